import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creates the folders of an output tree and their parents, each once, from any thread, and
/// remembers which it made (rather than found).
final class FolderMaker: @unchecked Sendable {
    /// The tree's root, which exists.
    let root: String
    private let lock = NSLock()
    private var known: Set<String> = [""]
    private var made: [String] = []

    init(root: String) { self.root = root }

    /// Creates `relative` (a path below ``root``) and its parents, unless done before.
    func ensure(_ relative: String) throws {
        lock.lock()
        let isKnown = known.contains(relative)
        lock.unlock()
        guard !isKnown else { return }
        try ensure(VaultPath.folder(of: relative))
        let path = root + "/" + relative
        let created = mkdir(path, 0o755) == 0
        if !created {
            var status = stat()
            guard errno == EEXIST, stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw LockerError.io("cannot create the folder \(path): \(String(cString: strerror(errno)))")
            }
        }
        lock.lock()
        known.insert(relative)
        if created { made.append(relative) }
        lock.unlock()
    }

    /// The folders this maker created, deepest first: the order to remove them in.
    var created: [String] {
        lock.lock()
        defer { lock.unlock() }
        return made.sorted { $0.utf8.count > $1.utf8.count }
    }
}
