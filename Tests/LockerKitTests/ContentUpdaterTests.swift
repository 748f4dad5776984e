import Foundation
import LockerKit
import Testing

/// ``ContentUpdater`` over an in-memory server: what it downloads, what it keeps, and what it
/// sends. Refusals are in `ContentUpdaterVerificationTests`, locales and seeds in
/// `ContentUpdaterLocaleTests`.
@Suite(.timeLimit(.minutes(1))) struct ContentUpdaterTests {
    /// The store files of a publication: its files, its manifest and its signature file.
    static func stored(_ publication: Publication) -> Set<String> {
        Set(publication.files.keys).union(["manifest.json", publication.signaturePath])
    }

    static func bytes(of paths: Set<String>, in publication: Publication) -> Int {
        paths.reduce(0) { $0 + (publication.files[$1]?.count ?? 0) }
    }

    /// What a first update to `publication` returns: every file downloaded.
    static func firstUpdate(to publication: Publication) -> UpdateResult {
        .updated(from: nil, to: 1, files: publication.files.count, bytes: publication.bytes)
    }

    /// Two calls of one updater of a first publication whose manifest the server holds back:
    /// the first waiting at the gate, the second made once the first is there and given 100 ms
    /// (had it run an update of its own, it would have found the store locked and thrown `busy`
    /// by then; a call that joins waits for the gate).
    struct TwoCallers {
        let fixture: UpdaterFixture
        let published: Publication
        let gate: Gate
        let first: Task<UpdateResult, any Error>
        let second: Task<UpdateResult, any Error>

        init() async throws {
            fixture = try UpdaterFixture()
            published = try TestPublisher.publish(TestContent.sailing(), version: 1)
            fixture.transport.publish(published)
            gate = fixture.transport.hold("manifest.json")
            let updater = try fixture.updater()
            first = Task { try await updater.update() }
            await gate.arrival()
            second = Task { try await updater.update() }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func firstUpdateDownloadsEveryFileAndActivatesIt() async throws {
        let fixture = try UpdaterFixture()
        let content = try TestContent.sailing()
        let published = try TestPublisher.publish(content, version: 1)
        fixture.transport.publish(published)
        let updater = try fixture.updater()
        #expect(try updater.activeBundle() == nil)

        let result = try await updater.update()

        let paths = content.paths()
        #expect(result == .updated(from: nil, to: 1, files: paths.count, bytes: Self.bytes(of: paths, in: published)))
        let log = fixture.transport.log
        #expect(log.first?.path == "manifest.json")
        #expect(log.first?.request.headers["If-None-Match"] == nil)
        #expect(log.dropFirst().first?.path == published.signaturePath)
        #expect(log.dropFirst(2).map(\.path).sorted() == paths.sorted(), "each file once")
        #expect(fixture.storedFiles == Self.stored(published))
        let bundle = try #require(try updater.activeBundle())
        #expect(bundle.manifest == published.manifest)
        #expect(try bundle.guide(id: "briefing", locale: "en").title == "Briefing")
        #expect(try bundle.deck(id: "flags", locale: "ru") == HandBundle.flagsEN)
        #expect(try bundle.asset(at: try #require(content.paths { $0.kind == "asset" }.first)) == HandBundle.asset)
    }

    @Test func secondUpdateSendsTheETagAndA304EndsIt() async throws {
        let fixture = try UpdaterFixture()
        let published = try TestPublisher.publish(TestContent.sailing(), version: 1)
        fixture.transport.publish(published)
        let updater = try fixture.updater()
        _ = try await updater.update()
        let before = fixture.storedFiles
        fixture.transport.clearLog()

        #expect(try await updater.update() == .upToDate)

        let log = fixture.transport.log
        #expect(log.map(\.path) == ["manifest.json"], "no request after the 304")
        #expect(log.first?.request.headers["If-None-Match"] == published.etag)
        #expect(log.first?.status == 304)
        #expect(fixture.storedFiles == before)
    }

    @Test func a200WithTheSameBytesIsUpToDate() async throws {
        let fixture = try UpdaterFixture()
        let published = try TestPublisher.publish(TestContent.sailing(), version: 1)
        fixture.transport.publish(published)
        let updater = try fixture.updater()
        _ = try await updater.update()
        fixture.transport.answersNotModified = false
        fixture.transport.clearLog()

        #expect(try await updater.update() == .upToDate)

        #expect(fixture.transport.log.map(\.path) == ["manifest.json"])
        #expect(fixture.transport.log.first?.status == 200)
        #expect(fixture.activeManifest == published.manifestBytes)
    }

    @Test func aNewVersionDownloadsOnlyTheChangedFilesAndKeepsThePreviousSetUntilTheNextUpdate() async throws {
        let fixture = try UpdaterFixture()
        // The first edition has a chart in a folder of its own that later editions drop.
        var first = try TestContent.sailing(edition: 1)
        first.entries.append(
            .init(
                path: "assets/charts/bay.svg", kind: "asset", locale: nil, id: nil, lists: nil,
                data: Data("<svg/>".utf8)))
        let v1 = try TestPublisher.publish(first, version: 1)
        let v2 = try TestPublisher.publish(TestContent.sailing(edition: 2), version: 2)
        let v3 = try TestPublisher.publish(TestContent.sailing(edition: 3), version: 3)
        let updater = try fixture.updater()
        fixture.transport.publish(v1)
        _ = try await updater.update()

        fixture.transport.publish(v2)
        fixture.transport.clearLog()
        let changed = Set(v2.files.keys).subtracting(v1.files.keys)
        #expect(!changed.isEmpty && changed.count < v2.files.count, "a test edition changes some files: \(changed)")

        let result = try await updater.update()

        #expect(result == .updated(from: 1, to: 2, files: changed.count, bytes: Self.bytes(of: changed, in: v2)))
        let log = fixture.transport.log
        #expect(log.first?.request.headers["If-None-Match"] == v1.etag)
        #expect(log.map(\.path).first == "manifest.json")
        #expect(log.dropFirst().first?.path == v2.signaturePath)
        #expect(Set(log.dropFirst(2).map(\.path)) == changed)
        #expect(log.count == changed.count + 2)
        #expect(try updater.activeBundle()?.manifest == v2.manifest)
        // The first set stays whole beside the second, for a reader that opened it.
        #expect(fixture.storedFiles == Self.stored(v1).union(Self.stored(v2)))
        #expect(fixture.storedFolders.contains("assets/charts"))

        fixture.transport.publish(v3)
        _ = try await updater.update()

        #expect(fixture.storedFiles == Self.stored(v2).union(Self.stored(v3)))
        #expect(!fixture.storedFolders.contains("assets/charts"), "an emptied folder is removed")
        #expect(try updater.activeBundle()?.manifest == v3.manifest)
    }

    @Test func progressReachesEveryFileAndByte() async throws {
        let fixture = try UpdaterFixture()
        let published = try TestPublisher.publish(TestContent.sailing(), version: 1)
        fixture.transport.publish(published)
        let updater = try fixture.updater()
        let reports = Recorder<UpdateProgress>()

        _ = try await updater.update { reports.add($0) }

        let files = published.files.count
        let bytes = published.bytes
        let seen = reports.values
        #expect(seen.first == UpdateProgress(files: 0, totalFiles: files, bytes: 0, totalBytes: bytes))
        #expect(seen.count == files + 1, "one report before the downloads and one after each")
        #expect(seen.allSatisfy { $0.totalFiles == files && $0.totalBytes == bytes })
        #expect(seen.map(\.files).max() == files)
        #expect(seen.map(\.bytes).max() == bytes)
    }

    @Test func anInterruptedUpdateIsFinishedByDownloadingOnlyWhatIsMissing() async throws {
        let fixture = try UpdaterFixture()
        let content = try TestContent.sailing()
        let published = try TestPublisher.publish(content, version: 1)
        fixture.transport.publish(published)
        let broken = try #require(content.entry(.guide, "harbour", "ru")).path
        fixture.transport.fail(.networkConnectionLost, at: broken)
        let updater = try fixture.updater()

        let error = await failure(of: updater)

        #expect(
            error
                == .network(
                    url: MemoryTransport.base.appendingPathComponent(broken).absoluteString, reason: "connection lost"))
        #expect(try updater.activeBundle() == nil)
        let fetched = Set(fixture.transport.log.filter { $0.status == 200 }.map(\.path))
            .subtracting(["manifest.json", published.signaturePath])

        fixture.transport.fail(nil, at: broken)
        fixture.transport.clearLog()
        let missing = content.paths().subtracting(fetched)
        let result = try await updater.update()

        #expect(missing.contains(broken))
        #expect(
            result == .updated(from: nil, to: 1, files: missing.count, bytes: Self.bytes(of: missing, in: published)))
        #expect(Set(fixture.transport.requested) == missing.union(["manifest.json", published.signaturePath]))
        #expect(fixture.transport.requested.count == missing.count + 2)
        #expect(try updater.activeBundle()?.manifest == published.manifest)
    }

    @Test func aDamagedFileLeavesTheActiveSetAsItWas() async throws {
        for damage in ["truncated", "altered", "longer"] {
            let fixture = try UpdaterFixture()
            let v1 = try TestPublisher.publish(TestContent.sailing(edition: 1), version: 1)
            let content = try TestContent.sailing(edition: 2)
            let v2 = try TestPublisher.publish(content, version: 2)
            let updater = try fixture.updater()
            fixture.transport.publish(v1)
            _ = try await updater.update()
            let before = fixture.storedFiles
            fixture.transport.publish(v2)
            let path = try #require(content.entry(.guide, "briefing", "en")).path
            var data = try #require(v2.files[path])
            switch damage {
            case "truncated": data.removeLast()
            case "longer": data.append(contentsOf: Data(repeating: 0x20, count: 1 << 20))
            default: data[data.count / 2] ^= 0x20
            }
            fixture.transport.serve(data, at: path)

            let error = await failure(of: updater)

            guard case .damagedFile(let damaged, let reason) = error else {
                Issue.record("\(damage): \(String(describing: error))")
                continue
            }
            #expect(damaged == path, "\(damage)")
            #expect(reason.contains(damage == "altered" ? "SHA-256" : "bytes"), "\(damage): \(reason)")
            #expect(fixture.activeManifest == v1.manifestBytes, "\(damage)")
            #expect(try updater.activeBundle()?.manifest == v1.manifest, "\(damage)")
            #expect(!fixture.storedFiles.contains(path), "\(damage)")
            let new = Set(v2.files.keys).subtracting(v1.files.keys)
            #expect(fixture.storedFiles.subtracting(new) == before, "\(damage)")
        }
    }

    @Test func concurrentUpdatesOfOneUpdaterMakeOneUpdate() async throws {
        let callers = try await TwoCallers()
        callers.gate.open()
        let results = try await [callers.first.value, callers.second.value]

        #expect(results == Array(repeating: Self.firstUpdate(to: callers.published), count: 2))
        let requested = callers.fixture.transport.requested
        #expect(requested.filter { $0 == "manifest.json" }.count == 1)
        #expect(requested.count == callers.published.files.count + 2)
    }

    @Test func cancellingTheCallerCancelsTheUpdate() async throws {
        let fixture = try UpdaterFixture()
        let published = try TestPublisher.publish(TestContent.sailing(), version: 1)
        fixture.transport.publish(published)
        let gate = fixture.transport.hold(published.signaturePath)
        let updater = try fixture.updater()

        let task = Task { try await updater.update() }
        await gate.arrival()
        task.cancel()
        gate.open()

        await #expect(throws: UpdateError.self) { try await task.value }
        #expect(fixture.activeManifest == nil)
        #expect(fixture.transport.requested == ["manifest.json", published.signaturePath])
    }

    @Test func cancellingOneOfTwoCallersLeavesTheUpdateToTheOther() async throws {
        let callers = try await TwoCallers()
        callers.second.cancel()
        callers.gate.open()

        #expect(try await callers.first.value == Self.firstUpdate(to: callers.published))
        #expect(callers.fixture.activeManifest == callers.published.manifestBytes)
    }

    @Test func aSecondUpdaterOfTheStoreIsBusyWhileTheFirstRuns() async throws {
        let fixture = try UpdaterFixture()
        let published = try TestPublisher.publish(TestContent.sailing(), version: 1)
        fixture.transport.publish(published)
        // The first request waits; had the second updater not been refused, its request would
        // pass and its update succeed.
        let gate = fixture.transport.hold(published.signaturePath, count: 1)
        let one = try fixture.updater()
        let other = try fixture.updater()

        let first = Task { try await one.update() }
        await gate.arrival()

        #expect(await failure(of: other) == .busy)
        await #expect(throws: UpdateError.busy) { try await other.installSeed() }
        gate.open()
        #expect(try await first.value == Self.firstUpdate(to: published))
        // The lock is released with the update.
        #expect(try await other.update() == .upToDate)
    }
}
