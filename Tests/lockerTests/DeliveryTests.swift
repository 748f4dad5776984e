import Foundation
import LockerKit
import Testing

/// LockerKit's `ContentUpdater`, with its real `URLSessionTransport`, against a real nginx
/// serving real signed builds of `content/`, and the fault proxy for what nginx alone does not
/// do. After each case: the result or error is the documented one, the active set verifies
/// and is the old or the new one, and nothing was written beside the store.
@Suite(.serialized, .timeLimit(.minutes(1))) struct DeliveryTests {
    // MARK: - Helpers

    /// An updater of `delivery`'s store, trusting the builds' key unless told otherwise.
    static func updater(
        _ delivery: Delivery, url: URL? = nil, keys: [TrustedKey]? = nil, locales: [String]? = nil,
        allowUnsigned: Bool = false, timeout: TimeInterval = 10, concurrency: Int = 6
    ) throws -> ContentUpdater {
        let builds = try DeliveryBuilds.shared()
        return ContentUpdater(
            store: delivery.store, manifestURL: url ?? delivery.nginx.manifestURL,
            trustedKeys: keys ?? [builds.key.trusted],
            locales: locales, allowUnsigned: allowUnsigned, transport: URLSessionTransport(timeout: timeout),
            concurrency: concurrency)
    }

    /// The error an update throws; an issue when it succeeds.
    static func failure(
        of updater: ContentUpdater, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> UpdateError? {
        await failure(of: Task { try await updater.update() }.result, sourceLocation: sourceLocation)
    }

    /// The error of an update's outcome; an issue when it succeeded.
    static func failure(
        of outcome: Result<UpdateResult, any Error>, sourceLocation: SourceLocation = #_sourceLocation
    ) -> UpdateError? {
        switch outcome {
        case .success(let result):
            Issue.record("the update should fail; it gave \(result)", sourceLocation: sourceLocation)
            return nil
        case .failure(let error as UpdateError):
            return error
        case .failure(let error):
            Issue.record("the update failed with \(error), not an UpdateError", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The store holding `built`, synced straight from nginx.
    static func synced(_ built: DeliveryBuilds.Built) async throws -> Delivery {
        let delivery = try Delivery(publishing: built)
        do {
            _ = try await updater(delivery).update()
        } catch {
            delivery.close()
            throw error
        }
        return delivery
    }

    /// The bundle paths nginx was asked for after the first `mark` requests, sorted.
    static func requested(_ delivery: Delivery, since mark: Int) throws -> [String] {
        try delivery.nginx.requests().dropFirst(mark).map(\.bundlePath).sorted()
    }

    /// What an update from `old` to `new` has to request: the manifest, its signature, and the
    /// files whose hash changed (new paths, names being content-addressed).
    static func expectedRequests(from old: DeliveryBuilds.Built?, to new: DeliveryBuilds.Built) -> [String] {
        (["manifest.json", new.signaturePath] + new.paths.subtracting(old?.paths ?? [])).sorted()
    }

    static func bytes(of paths: Set<String>, in built: DeliveryBuilds.Built) -> Int {
        var sizes: [String: Int] = [:]
        for file in built.manifest.files { sizes[file.path] = file.size }
        return paths.reduce(0) { $0 + (sizes[$1] ?? 0) }
    }

    /// Checks that an update from `url` of a store holding `old` downloads exactly the files of
    /// `new` it is missing (with the manifest and its signature), makes `new` active, and writes
    /// nothing beside the store (which held `outside` before). Returns what was missing.
    @discardableResult
    static func expectUpdateDownloadsWhatIsMissing(
        _ delivery: Delivery, from old: DeliveryBuilds.Built, to new: DeliveryBuilds.Built, url: URL? = nil,
        outside: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Set<String> {
        let missing = delivery.missing(of: new)
        let mark = try delivery.nginx.requests().count
        let result = try await updater(delivery, url: url).update()
        #expect(
            result
                == .updated(
                    from: old.version, to: new.version, files: missing.count, bytes: bytes(of: missing, in: new)),
            sourceLocation: sourceLocation)
        try delivery.expectDownloaded(missing, of: new, since: mark, outside: outside, sourceLocation: sourceLocation)
        return missing
    }

    /// The faults' pattern. A store synced to `before`, and `offered` published over it (nothing
    /// new when nil); `fault` sets the test's fault and returns the manifest URL to update from.
    /// An update from there (with `timeout` and `concurrency`, `meanwhile` run while it runs)
    /// must fail, and `error` checks its error and what it left. Whatever the error, the active
    /// set must then still be `before` and verify, and nothing be written beside the store.
    ///
    /// With `recover`, which clears the fault: the next update from the same URL must then
    /// download exactly the files of `offered` still missing, and make it active
    /// (``expectUpdateDownloadsWhatIsMissing(_:from:to:url:outside:sourceLocation:)``).
    static func expectFault(
        from before: DeliveryBuilds.Built, offering offered: DeliveryBuilds.Built? = nil,
        timeout: TimeInterval = 10, concurrency: Int = 6, sourceLocation: SourceLocation = #_sourceLocation,
        fault: (Delivery) async throws -> URL,
        meanwhile: ((Delivery) async throws -> Void)? = nil,
        error expectError: (UpdateError?, Delivery) throws -> Void,
        recover: ((Delivery) throws -> Void)? = nil
    ) async throws {
        let delivery = try await synced(before)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        if let offered { try delivery.publish(offered) }
        let url = try await fault(delivery)
        let updater = try updater(delivery, url: url, timeout: timeout, concurrency: concurrency)

        let running = Task { try await updater.update() }
        do {
            try await meanwhile?(delivery)
        } catch {
            running.cancel()
            _ = await running.result
            throw error
        }

        let error = failure(of: await running.result, sourceLocation: sourceLocation)
        try expectError(error, delivery)
        try delivery.expectUnchanged(before, outside: outside, sourceLocation: sourceLocation)

        guard let recover else { return }
        let offered = try #require(offered, "nothing offered to recover to", sourceLocation: sourceLocation)
        try recover(delivery)
        try await expectUpdateDownloadsWhatIsMissing(
            delivery, from: before, to: offered, url: url, outside: outside, sourceLocation: sourceLocation)
    }

    // MARK: - The server

    @Test func nginxServesTheBuildWithTheCacheHeadersOfItsHeadersFileAndETags() throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Delivery(publishing: builds.v1)
        defer { delivery.close() }
        let (status, headers, body) = try ServeTests.get(delivery.nginx.manifestURL)
        #expect(status == 200 && body == builds.v1.manifestBytes)
        #expect(headers["cache-control"] == "no-cache")
        #expect(headers["access-control-allow-origin"] == "*")
        let etag = try #require(headers["etag"])
        let (again, _, _) = try ServeTests.get(delivery.nginx.manifestURL, headers: ["If-None-Match": etag])
        #expect(again == 304)

        let guide = try #require(builds.v1.manifest.files.first { $0.kind == "guide" })
        let (fileStatus, fileHeaders, fileBody) = try ServeTests.get(
            delivery.nginx.address.appendingPathComponent("bundles/v1/\(guide.path)"))
        #expect(fileStatus == 200 && fileBody.count == guide.size)
        #expect(fileHeaders["cache-control"] == "public, max-age=31536000, immutable")

        let log = try delivery.nginx.requests()
        #expect(log.map(\.status) == [200, 304, 200], "\(log)")
        #expect(log.last?.bytes == guide.size)
    }

    @Test func nginxStopsAndStartsAgainOnTheSamePort() throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Delivery(publishing: builds.v1)
        defer { delivery.close() }
        let port = delivery.nginx.port
        delivery.nginx.stop()
        #expect(!LocalPort.accepts(port))
        try delivery.nginx.start()
        #expect(delivery.nginx.port == port)
        #expect(try ServeTests.get(delivery.nginx.manifestURL).0 == 200)
    }

    // MARK: - Updates that work

    @Test func aFirstUpdateDownloadsEveryFileOnceAndVerifiesIt() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Delivery(publishing: builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()

        let result = try await Self.updater(delivery).update()

        #expect(
            result
                == .updated(from: nil, to: builds.v1.version, files: builds.v1.paths.count, bytes: builds.v1.totalBytes)
        )
        #expect(try Self.requested(delivery, since: 0) == Self.expectedRequests(from: nil, to: builds.v1))
        #expect(try delivery.nginx.requests().allSatisfy { $0.status == 200 && $0.completion == "OK" })
        delivery.expectActive(builds.v1)
        #expect(try delivery.storedFiles() == builds.v1.paths)
        #expect(try delivery.outsideStore() == outside)
    }

    @Test func anUnchangedManifestCostsOneRequestAnswered304() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try await Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        let mark = try delivery.nginx.requests().count

        let result = try await Self.updater(delivery).update()

        #expect(result == .upToDate)
        let requests = Array(try delivery.nginx.requests().dropFirst(mark))
        #expect(requests.count == 1, "\(requests)")
        #expect(requests.first?.bundlePath == "manifest.json")
        #expect(requests.first?.status == 304)
        #expect(requests.first?.ifNoneMatch.isEmpty == false)
        delivery.expectActive(builds.v1)
        #expect(try delivery.outsideStore() == outside)
    }

    @Test func anEditedNoteDownloadsTheManifestItsSignatureAndOnlyTheChangedFiles() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try await Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        try delivery.publish(builds.v2)

        let missing = try await Self.expectUpdateDownloadsWhatIsMissing(
            delivery, from: builds.v1, to: builds.v2, outside: outside)

        let changed = builds.v2.paths.subtracting(builds.v1.paths)
        #expect(!changed.isEmpty && changed.count < builds.v2.paths.count, "\(changed)")
        #expect(missing == changed, "only the changed files")
    }

    /// A scheduled rebuild of unchanged content (a later version and expiry, the same files)
    /// costs the manifest and its signature.
    @Test func aRefreshedManifestOfTheSameContentDownloadsNoFile() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try await Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        try delivery.publish(builds.refreshed)

        let missing = try await Self.expectUpdateDownloadsWhatIsMissing(
            delivery, from: builds.v1, to: builds.refreshed, outside: outside)

        #expect(builds.refreshed.manifest.contentVersion == builds.v1.manifest.contentVersion)
        #expect(missing.isEmpty, "\(missing)")
    }

    @Test func anUnsignedManifestIsRefusedUnlessUnsignedBuildsAreAllowed() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Delivery(publishing: builds.unsigned)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()

        let error = await Self.failure(of: try Self.updater(delivery))
        guard case .signature = error else {
            Issue.record("expected .signature, got \(String(describing: error))")
            return
        }
        #expect(error?.isVerificationFailure == true)
        #expect(try delivery.nginx.requests().map(\.bundlePath) == ["manifest.json"], "nothing else is fetched")
        delivery.expectActive(nil)

        let result = try await Self.updater(delivery, keys: [], allowUnsigned: true).update()
        #expect(
            result
                == .updated(
                    from: nil, to: builds.unsigned.version, files: builds.unsigned.paths.count,
                    bytes: builds.unsigned.totalBytes))
        delivery.expectActive(builds.unsigned)
        #expect(try delivery.outsideStore() == outside)
    }

    @Test func keepingEnglishOnlyDownloadsTheEnglishFilesAndTheirFallbacks() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Delivery(publishing: builds.v1)
        defer { delivery.close() }

        let result = try await Self.updater(delivery, locales: ["en"]).update()

        let english = Self.files(of: builds.v1.manifest, readBy: "en")
        #expect(english.count < builds.v1.paths.count && english.contains { $0.hasPrefix("guide/en/") })
        #expect(
            result
                == .updated(
                    from: nil, to: builds.v1.version, files: english.count,
                    bytes: Self.bytes(of: english, in: builds.v1)))
        #expect(try delivery.storedFiles() == english)
        #expect(
            try Self.requested(delivery, since: 0) == (["manifest.json", builds.v1.signaturePath] + english).sorted())
        delivery.expectActive(builds.v1, locales: ["en"])
    }

    /// The files a reader of `locale` needs, worked out from the manifest as bundle-format.md
    /// says: the locale's indexes, each document in that locale, else in the default locale,
    /// else in the first locale it exists in, and every file without a locale.
    static func files(of manifest: Manifest, readBy locale: String) -> Set<String> {
        var paths = Set<String>()
        var versions: [String: [Manifest.File]] = [:]
        for file in manifest.files {
            if let id = file.id {
                versions["\(file.kind)/\(id)", default: []].append(file)
            } else if file.locale == nil || file.locale == locale {
                paths.insert(file.path)
            }
        }
        for files in versions.values {
            let order = [locale, manifest.defaultLocale] + manifest.locales
            if let chosen = order.lazy.compactMap({ wanted in files.first { $0.locale == wanted } }).first {
                paths.insert(chosen.path)
            }
        }
        return paths
    }

    // MARK: - What the server sends that fails verification

    /// One byte changed, the size kept: in the file nginx serves, or by the proxy on the way.
    @Test(arguments: [false, true])
    func bytesAlteredOnTheServerOrOnTheWayAreRefusedAsADamagedFile(onTheWay: Bool) async throws {
        let builds = try DeliveryBuilds.shared()
        let altered = try #require(builds.v2.paths.subtracting(builds.v1.paths).sorted().first)
        try await Self.expectFault(from: builds.v1, offering: builds.v2) { delivery in
            guard onTheWay else {
                try delivery.alter(altered)
                return delivery.nginx.manifestURL
            }
            return try delivery.proxied([.corrupt(Nginx.bundlePrefix + altered)])
        } error: { error, delivery in
            guard case .damagedFile(let path, _) = error else {
                Issue.record("expected .damagedFile, got \(String(describing: error))")
                return
            }
            #expect(path == altered)
            #expect(error?.isVerificationFailure == true)
            #expect(!FileManager.default.fileExists(atPath: delivery.store.appendingPathComponent(altered).path))
        }
    }

    @Test func aManifestSignedByAKeyTheAppDoesNotTrustIsRefusedBeforeAnyFileIsFetched() async throws {
        let builds = try DeliveryBuilds.shared()
        var mark = 0
        try await Self.expectFault(from: builds.v1, offering: builds.v2ByOtherKey) { delivery in
            mark = try delivery.nginx.requests().count
            return delivery.nginx.manifestURL
        } error: { error, delivery throws in
            guard case .signature = error else {
                Issue.record("expected .signature, got \(String(describing: error))")
                return
            }
            #expect(
                try Self.requested(delivery, since: mark)
                    == ["manifest.json", builds.v2ByOtherKey.signaturePath].sorted())
        }
    }

    @Test func aReplayedOlderManifestIsRefusedAsARollback() async throws {
        let builds = try DeliveryBuilds.shared()
        try await Self.expectFault(from: builds.v2, offering: builds.v1) { delivery in
            delivery.nginx.manifestURL
        } error: { error, _ in
            #expect(error == .rollback(active: builds.v2.version, offered: builds.v1.version))
        }
    }

    @Test func anExpiredManifestIsRefused() async throws {
        let builds = try DeliveryBuilds.shared()
        let expires = try #require(builds.expired.manifest.expires)
        #expect((builds.expired.version ?? 0) > (builds.v1.version ?? 0), "only its expiry is wrong")
        try await Self.expectFault(from: builds.v1, offering: builds.expired) { delivery in
            delivery.nginx.manifestURL
        } error: { error, _ in
            #expect(error == .expired(expires: expires))
        }
    }

    // MARK: - What fails to arrive

    /// The documented `.httpStatus` for the manifest and for a file; the active set stays.
    @Test(arguments: [404, 500, 503], [true, false])
    func anHTTPErrorIsTemporaryAndChangesNothing(status: Int, onManifest: Bool) async throws {
        let builds = try DeliveryBuilds.shared()
        let failing = try #require(
            onManifest ? "manifest.json" : builds.v2.paths.subtracting(builds.v1.paths).sorted().first)
        try await Self.expectFault(from: builds.v1, offering: builds.v2) { delivery in
            try delivery.proxied([.status(status, Nginx.bundlePrefix + failing)])
        } error: { error, delivery in
            let url = try delivery.proxy().manifestURL.deletingLastPathComponent().appendingPathComponent(failing)
            #expect(error == .httpStatus(url: url.absoluteString, status: status))
            #expect(error?.isTemporary == true)
        }
    }

    /// The headers with the full length, half the body, and the connection closed: a
    /// connection lost mid-file, which keeps nothing of that file; the next update fetches it.
    @Test func aTruncatedResponseIsANetworkErrorAndTheNextUpdateFetchesWhatIsMissing() async throws {
        let builds = try DeliveryBuilds.shared()
        let cut = try #require(builds.v2.paths.subtracting(builds.v1.paths).sorted().first)
        try await Self.expectFault(from: builds.v1, offering: builds.v2) { delivery in
            try delivery.proxied([.truncate(Nginx.bundlePrefix + cut)])
        } error: { error, delivery throws in
            guard case .network = error else {
                Issue.record("expected .network, got \(String(describing: error))")
                return
            }
            #expect(try delivery.proxy().requests().contains { $0.action == "truncate" && $0.bundlePath == cut })
            #expect(!FileManager.default.fileExists(atPath: delivery.store.appendingPathComponent(cut).path))
            #expect(delivery.missing(of: builds.v2).contains(cut))
        } recover: { delivery in
            try delivery.proxy().set([])
        }
    }

    @Test func aSlowServerTimesOutAsANetworkError() async throws {
        let builds = try DeliveryBuilds.shared()
        try await Self.expectFault(from: builds.v1, timeout: 0.5) { delivery in
            try delivery.proxied([.delay(5, Nginx.bundlePrefix + "manifest.json")])
        } error: { error, _ in
            guard case .network(_, let reason) = error else {
                Issue.record("expected .network, got \(String(describing: error))")
                return
            }
            #expect(reason == "timed out")
        }
    }

    /// FoundationNetworking arms its timer with whole seconds (`Int(timeout) * 1000` ms): a
    /// timeout under a second timed every request out at once, from a server that answers at once.
    @Test func aTimeoutUnderASecondStillWaitsForAServerThatAnswers() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Delivery(publishing: builds.v1)
        defer { delivery.close() }

        let result = try await Self.updater(delivery, timeout: 0.5).update()

        #expect(
            result
                == .updated(from: nil, to: builds.v1.version, files: builds.v1.paths.count, bytes: builds.v1.totalBytes)
        )
        delivery.expectActive(builds.v1)
    }

    /// nginx stopped after a few files of many and started again on the same port: the failed
    /// update kept the active set and the files it had verified, and the next one downloads only
    /// the rest.
    @Test func aServerStoppedMidDownloadAndStartedAgainLeavesOnlyTheRestToDownload() async throws {
        let builds = try DeliveryBuilds.shared()
        let changed = builds.manyEdits.paths.subtracting(builds.v1.paths)
        var mark = 0
        try await Self.expectFault(from: builds.v1, offering: builds.manyEdits, concurrency: 1) { delivery in
            // Slow files, one at a time: the stop lands between files, not after the last.
            let url = try delivery.proxied([.delay(0.03, Nginx.bundlePrefix + "guide/*")])
            mark = try delivery.nginx.requests().count
            return url
        } meanwhile: { delivery in
            let deadline = Date().addingTimeInterval(30)
            while try Self.requested(delivery, since: mark).filter({ $0.hasPrefix("guide/") }).count < 3 {
                guard Date() < deadline else { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            delivery.nginx.stop()
        } error: { error, delivery in
            guard case .network = error else {
                Issue.record("expected .network, got \(String(describing: error))")
                return
            }
            let missing = delivery.missing(of: builds.manyEdits)
            #expect(
                !missing.isEmpty && missing.count < changed.count - 2, "\(missing.count) of \(changed.count) missing")
        } recover: { delivery in
            try delivery.nginx.start()
            try delivery.proxy().set([])
        }
    }
}
