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
        do {
            let result = try await updater.update()
            Issue.record("the update should fail; it gave \(result)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
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
        let mark = try delivery.nginx.requests().count

        let result = try await Self.updater(delivery).update()

        let changed = builds.v2.paths.subtracting(builds.v1.paths)
        #expect(!changed.isEmpty && changed.count < builds.v2.paths.count, "\(changed)")
        #expect(
            result
                == .updated(
                    from: builds.v1.version, to: builds.v2.version, files: changed.count,
                    bytes: Self.bytes(of: changed, in: builds.v2)))
        #expect(try Self.requested(delivery, since: mark) == Self.expectedRequests(from: builds.v1, to: builds.v2))
        delivery.expectActive(builds.v2)
        #expect(try delivery.outsideStore() == outside)
    }

    /// A scheduled rebuild of unchanged content (a later version and expiry, the same files)
    /// costs the manifest and its signature.
    @Test func aRefreshedManifestOfTheSameContentDownloadsNoFile() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try await Self.synced(builds.v1)
        defer { delivery.close() }
        try delivery.publish(builds.refreshed)
        let mark = try delivery.nginx.requests().count

        let result = try await Self.updater(delivery).update()

        #expect(builds.refreshed.manifest.contentVersion == builds.v1.manifest.contentVersion)
        #expect(result == .updated(from: builds.v1.version, to: builds.refreshed.version, files: 0, bytes: 0))
        #expect(
            try Self.requested(delivery, since: mark) == ["manifest.json", builds.refreshed.signaturePath].sorted())
        delivery.expectActive(builds.refreshed)
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
        let delivery = try await Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        try delivery.publish(builds.v2)
        let altered = try #require(builds.v2.paths.subtracting(builds.v1.paths).sorted().first)
        var url = delivery.nginx.manifestURL
        if onTheWay {
            let proxy = try delivery.proxy()
            try proxy.set([.corrupt(Nginx.bundlePrefix + altered)])
            url = proxy.manifestURL
        } else {
            try delivery.alter(altered)
        }

        let error = await Self.failure(of: try Self.updater(delivery, url: url))

        guard case .damagedFile(let path, _) = error else {
            Issue.record("expected .damagedFile, got \(String(describing: error))")
            return
        }
        #expect(path == altered)
        #expect(error?.isVerificationFailure == true)
        #expect(!FileManager.default.fileExists(atPath: delivery.store.appendingPathComponent(altered).path))
        delivery.expectActive(builds.v1)
        #expect(try delivery.outsideStore() == outside)
    }

    @Test func aManifestSignedByAKeyTheAppDoesNotTrustIsRefusedBeforeAnyFileIsFetched() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try await Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        try delivery.publish(builds.v2ByOtherKey)
        let mark = try delivery.nginx.requests().count

        let error = await Self.failure(of: try Self.updater(delivery))

        guard case .signature = error else {
            Issue.record("expected .signature, got \(String(describing: error))")
            return
        }
        #expect(
            try Self.requested(delivery, since: mark) == ["manifest.json", builds.v2ByOtherKey.signaturePath].sorted())
        delivery.expectActive(builds.v1)
        #expect(try delivery.outsideStore() == outside)
    }

    @Test func aReplayedOlderManifestIsRefusedAsARollback() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try await Self.synced(builds.v2)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        try delivery.publish(builds.v1)

        let error = await Self.failure(of: try Self.updater(delivery))

        #expect(error == .rollback(active: builds.v2.version, offered: builds.v1.version))
        delivery.expectActive(builds.v2)
        #expect(try delivery.outsideStore() == outside)
    }

    @Test func anExpiredManifestIsRefused() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try await Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        try delivery.publish(builds.expired)
        let expires = try #require(builds.expired.manifest.expires)
        #expect((builds.expired.version ?? 0) > (builds.v1.version ?? 0), "only its expiry is wrong")

        let error = await Self.failure(of: try Self.updater(delivery))

        #expect(error == .expired(expires: expires))
        delivery.expectActive(builds.v1)
        #expect(try delivery.outsideStore() == outside)
    }

    // MARK: - What fails to arrive

    /// The documented `.httpStatus` for the manifest and for a file; the active set stays.
    @Test(arguments: [404, 500, 503], [true, false])
    func anHTTPErrorIsTemporaryAndChangesNothing(status: Int, onManifest: Bool) async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try await Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        try delivery.publish(builds.v2)
        let proxy = try delivery.proxy()
        let failing = try #require(
            onManifest ? "manifest.json" : builds.v2.paths.subtracting(builds.v1.paths).sorted().first)
        try proxy.set([.status(status, Nginx.bundlePrefix + failing)])

        let error = await Self.failure(of: try Self.updater(delivery, url: proxy.manifestURL))

        #expect(
            error
                == .httpStatus(
                    url: proxy.manifestURL.deletingLastPathComponent().appendingPathComponent(failing).absoluteString,
                    status: status))
        #expect(error?.isTemporary == true)
        delivery.expectActive(builds.v1)
        #expect(try delivery.outsideStore() == outside)
    }

    /// The headers with the full length, half the body, and the connection closed: a
    /// connection lost mid-file, which keeps nothing of that file; the next update fetches it.
    @Test func aTruncatedResponseIsANetworkErrorAndTheNextUpdateFetchesWhatIsMissing() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try await Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        try delivery.publish(builds.v2)
        let proxy = try delivery.proxy()
        let cut = try #require(builds.v2.paths.subtracting(builds.v1.paths).sorted().first)
        try proxy.set([.truncate(Nginx.bundlePrefix + cut)])

        let error = await Self.failure(of: try Self.updater(delivery, url: proxy.manifestURL))

        guard case .network = error else {
            Issue.record("expected .network, got \(String(describing: error))")
            return
        }
        #expect(try proxy.requests().contains { $0.action == "truncate" && $0.bundlePath == cut })
        #expect(!FileManager.default.fileExists(atPath: delivery.store.appendingPathComponent(cut).path))
        delivery.expectActive(builds.v1)

        try proxy.set([])
        let missing = delivery.missing(of: builds.v2)
        #expect(missing.contains(cut))
        let mark = try delivery.nginx.requests().count
        let result = try await Self.updater(delivery, url: proxy.manifestURL).update()
        #expect(
            result
                == .updated(
                    from: builds.v1.version, to: builds.v2.version, files: missing.count,
                    bytes: Self.bytes(of: missing, in: builds.v2)))
        #expect(
            try Self.requested(delivery, since: mark)
                == (["manifest.json", builds.v2.signaturePath] + missing).sorted())
        delivery.expectActive(builds.v2)
        #expect(try delivery.outsideStore() == outside)
    }

    @Test func aSlowServerTimesOutAsANetworkError() async throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try await Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        let proxy = try delivery.proxy()
        try proxy.set([.delay(5, Nginx.bundlePrefix + "manifest.json")])

        let error = await Self.failure(of: try Self.updater(delivery, url: proxy.manifestURL, timeout: 0.5))

        guard case .network(_, let reason) = error else {
            Issue.record("expected .network, got \(String(describing: error))")
            return
        }
        #expect(reason == "timed out")
        delivery.expectActive(builds.v1)
        #expect(try delivery.outsideStore() == outside)
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
        let delivery = try await Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        try delivery.publish(builds.manyEdits)
        let proxy = try delivery.proxy()
        // Slow files, one at a time: the stop lands between files, not after the last.
        try proxy.set([.delay(0.03, Nginx.bundlePrefix + "guide/*")])
        let changed = builds.manyEdits.paths.subtracting(builds.v1.paths)
        let mark = try delivery.nginx.requests().count

        let updater = try Self.updater(delivery, url: proxy.manifestURL, concurrency: 1)
        let first = Task { try await updater.update() }
        let deadline = Date().addingTimeInterval(30)
        while try delivery.nginx.requests().dropFirst(mark).filter({ $0.bundlePath.hasPrefix("guide/") }).count < 3 {
            guard Date() < deadline else { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        delivery.nginx.stop()
        let outcome = await first.result

        guard case .failure(let failure) = outcome, case .network? = failure as? UpdateError else {
            Issue.record("expected .network, got \(outcome)")
            return
        }
        delivery.expectActive(builds.v1)
        let missing = delivery.missing(of: builds.manyEdits)
        #expect(!missing.isEmpty && missing.count < changed.count - 2, "\(missing.count) of \(changed.count) missing")

        try delivery.nginx.start()
        try proxy.set([])
        let restart = try delivery.nginx.requests().count
        let result = try await Self.updater(delivery, url: proxy.manifestURL).update()

        #expect(
            result
                == .updated(
                    from: builds.v1.version, to: builds.manyEdits.version, files: missing.count,
                    bytes: Self.bytes(of: missing, in: builds.manyEdits)))
        #expect(
            try Self.requested(delivery, since: restart)
                == (["manifest.json", builds.manyEdits.signaturePath] + missing).sorted())
        delivery.expectActive(builds.manyEdits)
        #expect(try delivery.outsideStore() == outside)
    }
}
