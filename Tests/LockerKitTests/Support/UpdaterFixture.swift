import Foundation
import LockerKit
import Testing

/// What one ``ContentUpdater`` test works with: a temporary folder holding the store folder (and
/// nothing else, unless the test puts a seed there), an in-memory server and a clock.
final class UpdaterFixture: @unchecked Sendable {
    /// The temporary folder: `store/`, and `seed/` when a test writes one.
    let root: URL
    let store: URL
    let transport = MemoryTransport()
    let clock = TestClock(TestPublisher.now)

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("locker-updater-\(UUID().uuidString)")
        store = root.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// An updater of ``store`` over ``transport`` at ``clock``'s time, trusting ``TestPublisher/key``
    /// unless told otherwise.
    func updater(
        trusting keys: [TrustedKey]? = nil, locales: [String]? = nil, seed: URL? = nil, allowUnsigned: Bool = false
    ) throws -> ContentUpdater {
        let clock = clock
        return ContentUpdater(
            store: store, manifestURL: MemoryTransport.manifestURL,
            trustedKeys: try keys ?? [TestPublisher.trusted(TestPublisher.key)], locales: locales, seed: seed,
            allowUnsigned: allowUnsigned, transport: transport, now: { clock.date })
    }

    /// Writes `publication` as a seed bundle in `root/seed` and returns that folder.
    func seed(_ publication: Publication) throws -> URL {
        let folder = root.appendingPathComponent("seed")
        try publication.write(to: folder)
        return folder
    }

    /// Every regular file of the store outside `.locker-sync/`, relative to it.
    var storedFiles: Set<String> { Self.files(under: store).filter { !$0.hasPrefix(".locker-sync/") } }

    /// Every folder of the store, relative to it.
    var storedFolders: Set<String> { Self.files(under: store, folders: true) }

    /// Everything in ``root`` (files and folders), relative to it.
    var everything: Set<String> {
        Self.files(under: root).union(Self.files(under: root, folders: true))
    }

    /// The active `manifest.json`'s bytes.
    var activeManifest: Data? { try? Data(contentsOf: store.appendingPathComponent("manifest.json")) }

    /// The updater's state file's bytes.
    var state: Data? { try? Data(contentsOf: store.appendingPathComponent(".locker-sync/state.json")) }

    private static func files(under folder: URL, folders: Bool = false) -> Set<String> {
        let base = folder.standardizedFileURL.path + "/"
        var found = Set<String>()
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isDirectoryKey])
        else { return found }
        for case let url as URL in walker {
            let isFolder = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true
            let path = url.standardizedFileURL.path
            if isFolder == folders, path.hasPrefix(base) { found.insert(String(path.dropFirst(base.count))) }
        }
        return found
    }
}

/// A clock a test sets.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ date: Date) { current = date }

    var date: Date {
        get {
            lock.lock()
            defer { lock.unlock() }
            return current
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            current = newValue
        }
    }
}

/// Collects what a callback is told, from any thread.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Value] = []

    func add(_ value: Value) {
        lock.lock()
        defer { lock.unlock() }
        stored.append(value)
    }

    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

extension UpdateError {
    /// The case's name, for comparing errors whose messages a test does not pin down.
    var name: String {
        switch self {
        case .network: "network"
        case .httpStatus: "httpStatus"
        case .signature: "signature"
        case .rollback: "rollback"
        case .expired: "expired"
        case .unsupportedSchema: "unsupportedSchema"
        case .invalidManifest: "invalidManifest"
        case .damagedFile: "damagedFile"
        case .store: "store"
        case .busy: "busy"
        }
    }
}

/// Runs an update that should fail; its error, or nil (an issue recorded) when it succeeded.
func failure(
    of updater: ContentUpdater, sourceLocation: SourceLocation = #_sourceLocation
) async -> UpdateError? {
    do {
        let result = try await updater.update()
        Issue.record("the update succeeded: \(result)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
