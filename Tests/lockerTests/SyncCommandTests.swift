import Foundation
import LockerKit
import LockerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `locker sync`, the built binary, against a real nginx serving real signed builds of
/// `content/`, and the fault proxy: the line it prints, its exit code (0, 3 for what fails
/// verification, 4 for what fails to arrive), the folder it leaves; and 200 runs killed with
/// SIGKILL at random moments, each leaving the old set or the new one.
@Suite(.serialized, .timeLimit(.minutes(2))) struct SyncCommandTests {
    // MARK: - Helpers

    /// Runs `locker sync URL --into store` from the store's parent, trusting the builds' key
    /// unless `extra` says otherwise.
    @discardableResult
    static func sync(_ delivery: Delivery, url: URL? = nil, _ extra: [String]? = nil) throws -> LockerRun {
        let builds = try DeliveryBuilds.shared()
        let base = (url ?? delivery.nginx.manifestURL).deletingLastPathComponent().absoluteString
        return try LockerRun(
            ["sync", base, "--into", "store"] + (extra ?? ["--key", builds.key.publicKey.path]), in: delivery.parent,
            timeLimit: 60)
    }

    /// A store holding `built`, synced by `locker sync` straight from nginx.
    static func synced(_ built: DeliveryBuilds.Built) throws -> Delivery {
        let delivery = try Delivery(publishing: built)
        let run = try sync(delivery)
        guard run.status == 0 else {
            delivery.close()
            throw Failure.sync(run.stderr)
        }
        return delivery
    }

    enum Failure: Error { case sync(String) }

    /// `n` with a comma every three digits, as `locker` prints counts.
    static func grouped(_ n: Int) -> String {
        var digits = String(n)
        var groups: [String] = []
        while digits.count > 3 {
            groups.insert(String(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        return ([digits] + groups).joined(separator: ",")
    }

    /// Checks the one line a successful update prints (whoever it says signed).
    static func expectUpdated(
        _ run: LockerRun, from old: DeliveryBuilds.Built?, to new: DeliveryBuilds.Built, files: Set<String>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let was = old.map { "from version \($0.version.map(String.init) ?? "none") " } ?? ""
        let start = "Updated store \(was)to version \(new.version.map(String.init) ?? "none")"
        let end =
            ": \(grouped(files.count)) files, \(grouped(DeliveryTests.bytes(of: files, in: new))) bytes downloaded.\n"
        #expect(run.status == 0, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(
            run.stdout.hasPrefix(start) && run.stdout.hasSuffix(end) && run.stdout.filter { $0 == "\n" }.count == 1,
            "\(run.stdout)", sourceLocation: sourceLocation)
    }

    /// Runs `locker sync` from `url` (with `arguments`, else the builds' key) on a store whose
    /// active set is `before`, and checks that it failed and changed nothing: exit `status`,
    /// nothing on stdout, the active set still `before`, and nothing written beside the store
    /// (which held `outside`). Returns the run, for what it says.
    @discardableResult
    static func expectSyncFails(
        _ delivery: Delivery, url: URL? = nil, _ arguments: [String]? = nil, exits status: Int32,
        keeping before: DeliveryBuilds.Built?, outside: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> LockerRun {
        let run = try sync(delivery, url: url, arguments)
        #expect(run.status == status, "\(run.stdout)\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stdout.isEmpty, "\(run.stdout)", sourceLocation: sourceLocation)
        try delivery.expectUnchanged(before, outside: outside, sourceLocation: sourceLocation)
        return run
    }

    /// The failures' pattern: a store synced to `before` by `locker sync`, and `offered`
    /// published over it (nothing new when nil); `fault` sets the test's fault and returns the
    /// manifest URL to sync from. `locker sync` from there (with `arguments`) must exit with
    /// `status` and change nothing (``expectSyncFails(_:url:_:exits:keeping:outside:sourceLocation:)``);
    /// `says` checks what it says.
    static func expectFailedSync(
        from before: DeliveryBuilds.Built, offering offered: DeliveryBuilds.Built? = nil, _ arguments: [String]? = nil,
        exits status: Int32, sourceLocation: SourceLocation = #_sourceLocation,
        fault: (Delivery) throws -> URL, says: (LockerRun) throws -> Void
    ) throws {
        let delivery = try synced(before)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        if let offered { try delivery.publish(offered) }
        let url = try fault(delivery)
        let run = try expectSyncFails(
            delivery, url: url, arguments, exits: status, keeping: before, outside: outside,
            sourceLocation: sourceLocation)
        try says(run)
    }

    /// Checks that `locker sync` from `url` (with `arguments`) of a store holding `old` downloads
    /// exactly the files of `new` it is missing (with the manifest and its signature), says so,
    /// makes `new` active, and writes nothing beside the store (which held `outside`). Returns
    /// what was missing.
    @discardableResult
    static func expectSyncDownloadsWhatIsMissing(
        _ delivery: Delivery, from old: DeliveryBuilds.Built, to new: DeliveryBuilds.Built, url: URL? = nil,
        _ arguments: [String]? = nil, outside: [String], context: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Set<String> {
        let missing = delivery.missing(of: new)
        let mark = try delivery.nginx.requests().count
        let run = try sync(delivery, url: url, arguments)
        expectUpdated(run, from: old, to: new, files: missing, sourceLocation: sourceLocation)
        try delivery.expectDownloaded(
            missing, of: new, since: mark, outside: outside, context, sourceLocation: sourceLocation)
        return missing
    }

    // MARK: - Syncs that work

    @Test func syncsTheBuildThenIsUpToDateWithOne304ThenTakesOnlyTheEdit() throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Delivery(publishing: builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()

        let first = try Self.sync(delivery)
        Self.expectUpdated(first, from: nil, to: builds.v1, files: builds.v1.paths)
        delivery.expectActive(builds.v1)

        let mark = try delivery.nginx.requests().count
        let second = try Self.sync(delivery)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            second.stdout.hasPrefix("Up to date: store holds version \(builds.v1.version ?? -1)"), "\(second.stdout)")
        let conditional = Array(try delivery.nginx.requests().dropFirst(mark))
        #expect(
            conditional.map(\.bundlePath) == ["manifest.json"] && conditional.map(\.status) == [304], "\(conditional)")

        try delivery.publish(builds.v2)
        let edited = try Self.expectSyncDownloadsWhatIsMissing(
            delivery, from: builds.v1, to: builds.v2, outside: outside)
        #expect(edited == builds.v2.paths.subtracting(builds.v1.paths), "only the changed files")
    }

    @Test func anUnsignedBuildIsRefusedWithAKeyAndTakenWithAllowUnsigned() throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Delivery(publishing: builds.unsigned)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()

        let refused = try Self.expectSyncFails(delivery, exits: 3, keeping: nil, outside: outside)
        #expect(refused.stderr.hasPrefix("locker: sync: signature: the manifest is not signed"), "\(refused.stderr)")

        let keyless = try Self.sync(delivery, [])
        #expect(keyless.status == 2 && keyless.stderr.contains("--allow-unsigned"), "\(keyless.stderr)")

        let allowed = try Self.sync(delivery, ["--allow-unsigned"])
        Self.expectUpdated(allowed, from: nil, to: builds.unsigned, files: builds.unsigned.paths)
        delivery.expectActive(builds.unsigned)
        #expect(try delivery.outsideStore() == outside)
    }

    /// The English files and their fallbacks only; `review` and `stats` read the folder as it is.
    @Test func anEnglishOnlySyncIsReadByReviewAndStats() throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Delivery(publishing: builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()

        let run = try Self.sync(delivery, ["--key", builds.key.publicKey.path, "--locale", "en"])

        let english = DeliveryTests.files(of: builds.v1.manifest, readBy: "en")
        Self.expectUpdated(run, from: nil, to: builds.v1, files: english)
        #expect(try delivery.storedFiles() == english)
        delivery.expectActive(builds.v1, locales: ["en"])

        // Progress is kept beside the delivery, not beside the store.
        let progress = delivery.folder.appendingPathComponent("progress.sqlite").path
        let review = try LockerRun(
            ["review", "--bundle", "store", "--locale", "en", "--progress", progress, "--today", "2026-06-01"],
            in: delivery.parent, stdin: "good\n")
        #expect(review.status == 0, "\(review.stderr)")
        #expect(review.stdout.split(separator: "\n").count == 1 && review.stdout.contains("\"grade\":\"good\""))

        let stats = try LockerRun(
            ["stats", "--bundle", "store", "--format", "json", "--progress", progress, "--today", "2026-06-01"],
            in: delivery.parent)
        #expect(stats.status == 0, "\(stats.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        let total = try #require(report["total"] as? [String: Any])
        #expect(try total["total"] as? Int == Self.englishCardCount(in: builds.v1), "\(stats.stdout)")
        #expect(try delivery.outsideStore() == outside)
    }

    /// The cards of the English decks, from the English deck index's counts.
    static func englishCardCount(in built: DeliveryBuilds.Built) throws -> Int {
        let index = try #require(
            built.manifest.files.first { $0.kind == "index" && $0.lists == "deck" && $0.locale == "en" })
        let decoded = try JSONDecoder().decode(
            ContentIndex.self, from: Data(contentsOf: built.bundle.appendingPathComponent(index.path)))
        return decoded.entries.reduce(0) { $0 + ($1.cardCount ?? 0) }
    }

    // MARK: - What fails verification: exit 3

    /// What the server offers a store holding `before` (builds by name), and how what `sync`
    /// says starts.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let before: String
        let offered: String
        let says: String
        /// Alters, on the server, the first file the offer adds: `sync` names it.
        var alter = false

        var testDescription: String { alter ? "\(offered) altered" : offered }

        static let all: [Refusal] = [
            Refusal(before: "v1", offered: "v2-other-key", says: "locker: sync: signature: signed by"),
            Refusal(before: "v2", offered: "v1", says: "locker: sync: rollback refused"),
            Refusal(before: "v1", offered: "expired", says: "locker: sync: the manifest expired at"),
            Refusal(before: "v1", offered: "unsigned", says: "locker: sync: signature: the manifest is not signed"),
            Refusal(before: "v1", offered: "v2", says: "locker: sync: ", alter: true),
        ]
    }

    @Test(arguments: Refusal.all)
    func whatFailsVerificationExitsWithThreeAndKeepsTheActiveSet(_ refusal: Refusal) throws {
        let builds = try DeliveryBuilds.shared()
        let before = try builds.named(refusal.before)
        let offered = try builds.named(refusal.offered)
        var says = refusal.says
        try Self.expectFailedSync(from: before, offering: offered, exits: 3) { delivery in
            if refusal.alter {
                let altered = try #require(offered.paths.subtracting(before.paths).sorted().first)
                try delivery.alter(altered)
                says += "\(altered): SHA-256 "
            }
            return delivery.nginx.manifestURL
        } says: { run in
            #expect(run.stderr.hasPrefix(says), "\(run.stderr)")
        }
    }

    // MARK: - What fails to arrive: exit 4

    @Test(arguments: [404, 500, 503], [true, false])
    func anHTTPErrorExitsWithFourAndKeepsTheActiveSet(status: Int, onManifest: Bool) throws {
        let builds = try DeliveryBuilds.shared()
        let failing = try #require(
            onManifest ? "manifest.json" : builds.v2.paths.subtracting(builds.v1.paths).sorted().first)
        try Self.expectFailedSync(from: builds.v1, offering: builds.v2, exits: 4) { delivery in
            try delivery.proxied([.status(status, Nginx.bundlePrefix + failing)])
        } says: { run in
            #expect(run.stderr.hasSuffix("/bundles/v1/\(failing): HTTP \(status)\n"), "\(run.stderr)")
        }
    }

    @Test func aSlowServerExitsWithFourAfterTheTimeout() throws {
        let builds = try DeliveryBuilds.shared()
        let arguments = ["--key", builds.key.publicKey.path, "--timeout", "1"]
        try Self.expectFailedSync(from: builds.v1, arguments, exits: 4) { delivery in
            try delivery.proxied([.delay(5, Nginx.bundlePrefix + "manifest.json")])
        } says: { run in
            #expect(run.stderr.hasSuffix("manifest.json: timed out\n"), "\(run.stderr)")
        }
    }

    /// A truncated body, then a server that stops answering after a few files: each time exit
    /// 4 and the old set; then a sync that downloads only what is still missing.
    @Test func aCutDownloadExitsWithFourAndTheNextSyncFetchesOnlyWhatIsMissing() throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        try delivery.publish(builds.manyEdits)
        let proxy = try delivery.proxy()
        let changed = builds.manyEdits.paths.subtracting(builds.v1.paths)
        let arguments = ["--key", builds.key.publicKey.path, "--jobs", "1"]

        // The first file downloaded (one at a time, in the manifest's order): no other is.
        let cut = try #require(changed.sorted().first)
        try proxy.set([.truncate(Nginx.bundlePrefix + cut)])
        let truncated = try Self.expectSyncFails(
            delivery, url: proxy.manifestURL, arguments, exits: 4, keeping: builds.v1, outside: outside)
        #expect(truncated.stderr.contains(cut), "\(truncated.stderr)")

        // The manifest, its signature and three files; then nothing.
        try proxy.set([.drop(after: 5)])
        try Self.expectSyncFails(
            delivery, url: proxy.manifestURL, arguments, exits: 4, keeping: builds.v1, outside: outside)
        // (curl tries a request again once on a fresh connection when a reused one closes unanswered.)
        #expect(try proxy.requests().contains { $0.action == "drop" }, "three files, then it stops")

        try proxy.set([])
        let missing = try Self.expectSyncDownloadsWhatIsMissing(
            delivery, from: builds.v1, to: builds.manyEdits, url: proxy.manifestURL, arguments, outside: outside)
        #expect(!missing.isEmpty && missing.count < changed.count, "\(missing.count) of \(changed.count) missing")
    }

    @Test func aSecondSyncOfAFolderBeingSyncedExitsWithFour() throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Self.synced(builds.v1)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        try delivery.publish(builds.v2)
        let proxy = try delivery.proxy()
        // Time for the second to start and find the store locked while the first waits.
        try proxy.set([.delay(2, Nginx.bundlePrefix + "manifest.json")])

        let first = Process()
        first.executableURL = LockerRun.binary
        first.arguments = [
            "sync", proxy.manifestURL.deletingLastPathComponent().absoluteString, "--into", "store", "--key",
            builds.key.publicKey.path,
        ]
        first.currentDirectoryURL = delivery.parent
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        defer { first.stopAndWait() }
        // The first holds the store's lock from before it asks for the manifest, which the proxy
        // holds back.
        let deadline = Date().addingTimeInterval(20)
        while try !proxy.requests().contains(where: { $0.action == "delay" }), first.isRunning, Date() < deadline {
            usleep(2_000)
        }
        #expect(Self.isLocked(delivery.store))

        let second = try Self.sync(delivery)

        #expect(second.status == 4, "\(second.stderr)")
        #expect(second.stderr == "locker: sync: another update of this store is running\n")
        first.wait(until: .distantFuture)
        #expect(first.terminationStatus == 0)
        delivery.expectActive(builds.v2)
        #expect(try delivery.outsideStore() == outside)
    }

    /// An update removes the files no set lists: a folder of other files is not a store.
    @Test func aFolderOfOtherFilesIsRefusedAndLeftAsItWas() throws {
        let builds = try DeliveryBuilds.shared()
        let delivery = try Delivery(publishing: builds.v1)
        defer { delivery.close() }
        let before = try delivery.outsideStore()

        let run = try LockerRun(
            [
                "sync", delivery.nginx.manifestURL.deletingLastPathComponent().absoluteString, "--into", ".", "--key",
                builds.key.publicKey.path,
            ], in: delivery.parent, timeLimit: 60)

        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("holds other files"), "\(run.stderr)")
        #expect(try delivery.outsideStore() == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: delivery.parent.path) == ["neighbour.txt"])
        #expect(try delivery.nginx.requests().isEmpty, "nothing is fetched")
    }

    /// Whether an update holds the store's lock (`.locker-sync/lock`, an `flock`) now. (Taking it
    /// for a moment when free, so only while no update may start.)
    static func isLocked(_ store: URL) -> Bool {
        let descriptor = open(store.appendingPathComponent(".locker-sync/lock").path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    // MARK: - Killed at any moment

    /// `locker sync` from the old set to one with many changed files, through the proxy with a
    /// small delay a request so that kills land during downloads, killed with SIGKILL after a
    /// random time (seeded: `LOCKER_KILL_SEED` replays one run's times): after each kill the
    /// active set verifies and is the old set or the new one, byte for byte. A trial that got
    /// to the new set starts the next from the old one again. A last sync downloads only what
    /// the killed ones left missing.
    @Test func aSyncKilledAtAnyMomentLeavesTheOldSetOrTheNew() throws {
        let builds = try DeliveryBuilds.shared()
        let (old, new) = (builds.v1, builds.manyEdits)
        let delivery = try Self.synced(old)
        defer { delivery.close() }
        let outside = try delivery.outsideStore()
        let pristine = delivery.folder.appendingPathComponent("old-store")
        try FileManager.default.copyItem(at: delivery.store, to: pristine)
        func restart() throws {
            try FileManager.default.removeItem(at: delivery.store)
            try FileManager.default.copyItem(at: pristine, to: delivery.store)
        }
        try delivery.publish(new)
        let proxy = try delivery.proxy()
        try proxy.set([.delay(0.008)])
        let arguments = [
            "sync", proxy.manifestURL.deletingLastPathComponent().absoluteString, "--into", "store", "--key",
            builds.key.publicKey.path, "--jobs", "2",
        ]
        func start() throws -> Process {
            let process = Process()
            process.executableURL = LockerRun.binary
            process.arguments = arguments
            process.currentDirectoryURL = delivery.parent
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }

        // How long a whole sync takes here, so that the kills spread over it.
        var durations: [TimeInterval] = []
        for _ in 0..<3 {
            let began = Date()
            let process = try start()
            process.wait(until: .distantFuture)
            durations.append(Date().timeIntervalSince(began))
            #expect(process.terminationStatus == 0)
            try restart()
        }
        let span = durations.sorted()[1]

        let seed =
            ProcessInfo.processInfo.environment["LOCKER_KILL_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        var outcomes: [String: Int] = [:]
        // Files of the new set still to download before the trial: fewer after it, and the old
        // set still active, is a kill that landed during the download.
        let changed = new.paths.subtracting(old.paths).count
        var missingBefore = changed
        let versions = [old.manifest.contentVersion, new.manifest.contentVersion]
        for trial in 0..<200 {
            let wait = Double.random(in: 0..<span, using: &random)
            let process = try start()
            if !process.wait(until: Date().addingTimeInterval(wait)) {
                kill(process.processIdentifier, SIGKILL)
                process.wait(until: .distantFuture)
            }
            let context = "seed \(seed) (LOCKER_KILL_SEED), trial \(trial), killed after \(Int(wait * 1000)) ms"

            let manifest: Manifest
            do {
                manifest = try #require(try ContentUpdater.activeBundle(in: delivery.store), "\(context)").manifest
            } catch {
                Issue.record("the active set does not verify: \(error); \(context)")
                break
            }
            guard versions.contains(manifest.contentVersion) else {
                Issue.record("the active set is neither the old nor the new one; \(context)")
                break
            }
            let bytes = FileManager.default.contents(
                atPath: delivery.store.appendingPathComponent("manifest.json").path)
            #expect(bytes == old.manifestBytes || bytes == new.manifestBytes, "\(context)")
            // A sync that ended before its kill ended well, on the new set.
            let exited = process.terminationReason == .exit
            if exited {
                #expect(process.terminationStatus == 0, "\(context)")
                #expect(manifest.contentVersion == new.manifest.contentVersion, "\(context)")
            }
            let left = delivery.missing(of: new).count
            if manifest.contentVersion == new.manifest.contentVersion {
                outcomes[exited ? "finished" : "killed after the switch", default: 0] += 1
                try restart()
                missingBefore = changed
            } else {
                outcomes[left < missingBefore ? "killed mid-download" : "killed before a new file", default: 0] += 1
                missingBefore = left
            }
        }
        #expect((outcomes["killed mid-download"] ?? 0) >= 10, "seed \(seed): \(outcomes), a sync took \(durations) s")

        try proxy.set([])
        try Self.expectSyncDownloadsWhatIsMissing(
            delivery, from: old, to: new, url: proxy.manifestURL, outside: outside, context: "seed \(seed)")
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: delivery.store.appendingPathComponent(".locker-sync/tmp").path)
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
