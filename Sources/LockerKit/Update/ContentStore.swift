import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The folder a ``ContentUpdater`` keeps content in: a bundle folder (`manifest.json`, the
/// signature file, the content-addressed files) that ``ContentBundle`` opens as it is, with the
/// updater's own files in `.locker-sync/`.
///
/// Every file reaches its place in one rename, after it is written and verified; before the one
/// rename of `manifest.json` that changes the active set, everything written is made durable
/// (``syncFiles(_:)``). A download cut short leaves files in their places that no manifest lists
/// yet: the next update checks their hashes and uses them.
struct ContentStore: Sendable {
    let folder: URL

    /// The updater's own folder inside the store.
    static let workFolder = ".locker-sync"

    var manifestURL: URL { folder.appendingPathComponent("manifest.json") }
    var work: URL { folder.appendingPathComponent(Self.workFolder) }
    var temporary: URL { work.appendingPathComponent("tmp") }
    /// The manifest active before the last update: its files are kept until the next one, for an
    /// app still reading the bundle it opened before.
    var previousManifestURL: URL { work.appendingPathComponent("previous.json") }
    var stateURL: URL { work.appendingPathComponent("state.json") }

    /// What the updater remembers between updates.
    struct State: Codable, Sendable, Equatable {
        /// The server's ETag of the active manifest, for `If-None-Match`.
        var etag: String?
        /// The SHA-256 of the manifest the ETag is for.
        var manifestSHA256: String
        /// The locales the store keeps; nil, every locale.
        var locales: [String]?
    }

    func url(of path: String) -> URL { folder.appendingPathComponent(path) }

    /// Whether a manifest's path may be written in the store: safe, and none of the store's own.
    static func isWritable(_ path: String) -> Bool {
        guard ContentBundle.isSafe(path), let first = path.split(separator: "/").first else { return false }
        // Compared without case: on a case-insensitive volume (macOS, iOS) `Manifest.json` is it.
        let name = first.lowercased()
        return name != "manifest.json" && name != ManifestSignature.folder && !name.hasPrefix(".")
    }

    // MARK: - Reading

    /// The bytes of a file of the store, or nil when it is not there.
    func read(_ url: URL) -> Data? { try? Data(contentsOf: url) }

    func state() -> State? {
        guard let data = read(stateURL) else { return nil }
        return try? JSONDecoder().decode(State.self, from: data)
    }

    /// The size of the file at `url`, or nil when there is no regular file.
    func size(of url: URL) -> Int? {
        var info = stat()
        guard lstat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    // MARK: - Writing

    /// Creates the store's folders and takes its lock; nil when another update holds it.
    func lock() throws(UpdateError) -> StoreLock? {
        // An update removes the files no set lists: never in a folder of other things.
        let manager = FileManager.default
        if let names = try? manager.contentsOfDirectory(atPath: folder.path), !names.isEmpty,
            !names.contains(Self.workFolder), !names.contains("manifest.json")
        {
            throw .store("\(folder.path) holds other files: a store folder must be new, empty, or a bundle folder")
        }
        do {
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        } catch {
            throw .store("\(folder.path): cannot create the store: \(error.localizedDescription)")
        }
        let descriptor = open(work.appendingPathComponent("lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .store("\(work.path)/lock: \(String(cString: strerror(errno)))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return StoreLock(descriptor: descriptor)
    }

    /// Removes what an update cut short left in the temporary folder.
    func clearTemporary() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names { unlink(temporary.appendingPathComponent(name).path) }
    }

    /// Writes `data` at `url` in the store in one rename, creating its folders; synced first
    /// when `synced` (the manifest), else left to ``syncFiles(_:)``.
    func place(_ data: Data, at url: URL, synced: Bool = false) throws(UpdateError) {
        let staged = temporary.appendingPathComponent(UUID().uuidString)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .store("\(url.deletingLastPathComponent().path): \(error.localizedDescription)")
        }
        try Self.store(data, at: staged, synced: synced)
        guard rename(staged.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(staged.path)
            throw .store("\(url.path): \(reason)")
        }
    }

    /// Makes the files at `urls` durable, before a manifest that lists them is: on Linux one
    /// `syncfs` of the store's file system (one journal commit, not one per file), elsewhere an
    /// `fsync` of each.
    func syncFiles(_ urls: [URL]) {
        #if os(Linux)
            if let syncfs = Self.syncfs {
                let descriptor = open(folder.path, O_RDONLY | O_CLOEXEC)
                if descriptor >= 0 {
                    defer { close(descriptor) }
                    if syncfs(descriptor) == 0 { return }
                }
            }
        #endif
        // Each file, then each folder a file was renamed into (or made in).
        var folders = Set<String>()
        for url in urls {
            let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            fsync(descriptor)
            close(descriptor)
            var folder = url.deletingLastPathComponent()
            while folder.path.count > self.folder.path.count, folders.insert(folder.path).inserted {
                folder = folder.deletingLastPathComponent()
            }
        }
        for folder in folders { syncFolder(URL(fileURLWithPath: folder)) }
    }

    #if os(Linux)
        /// glibc's `syncfs`, which its Swift module does not declare.
        private static let syncfs: (@convention(c) (Int32) -> Int32)? = {
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "syncfs") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
        }()
    #endif

    /// Makes the last renames in `folder` durable.
    func syncFolder(_ url: URL) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    func remove(_ url: URL) { unlink(url.path) }

    private static func store(_ data: Data, at url: URL, synced: Bool) throws(UpdateError) {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .store("\(url.path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let failed = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                offset += written
            }
            return false
        }
        guard !failed, !synced || fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(url.path)
            throw .store("\(url.path): \(reason)")
        }
    }

    // MARK: - Collecting

    /// Removes every file of the store that no path of `keep` names (relative to the store),
    /// outside the updater's folder, and the folders left empty.
    func removeFiles(notIn keep: Set<String>) {
        removeFiles(in: "", notIn: keep)
    }

    /// ``removeFiles(notIn:)`` below the folder at `prefix`; whether the folder is empty after.
    /// Read with `readdir`, whose entries say which are folders: a store holds thousands of
    /// files, and a walk that asked each for its type took most of an update's time.
    @discardableResult
    private func removeFiles(in prefix: String, notIn keep: Set<String>) -> Bool {
        let path = prefix.isEmpty ? folder.path : folder.path + "/" + prefix
        guard let directory = opendir(path) else { return false }
        defer { closedir(directory) }
        var empty = true
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let relative = prefix.isEmpty ? name : prefix + "/" + name
            if relative == Self.workFolder || relative == "manifest.json" {
                empty = false
            } else if isFolder(entry.pointee.d_type, at: path + "/" + name) {
                if removeFiles(in: relative, notIn: keep), rmdir(path + "/" + name) == 0 { continue }
                empty = false
            } else if keep.contains(relative) || unlink(path + "/" + name) != 0 {
                empty = false
            }
        }
        return empty
    }

    /// Whether a `readdir` entry is a folder: by its type, or by `lstat` where the file system
    /// does not say.
    private func isFolder(_ type: UInt8, at path: String) -> Bool {
        if Int32(type) == Int32(DT_DIR) { return true }
        guard Int32(type) == Int32(DT_UNKNOWN) else { return false }
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}

/// The store's lock, held while an update runs; released by ``release()`` or when the process
/// ends however it ends.
final class StoreLock: Sendable {
    private let descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    func release() { close(descriptor) }
}
