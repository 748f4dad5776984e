import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creates the folders of an output tree and their parents, each once, from any thread.
final class FolderMaker: @unchecked Sendable {
    /// The tree's root, which exists.
    let root: String
    private let lock = NSLock()
    private var known: Set<String> = [""]

    init(root: String) { self.root = root }

    /// Forgets the folders made: the root was emptied.
    func forget() { lock.withLock { known = [""] } }

    /// Creates `relative` (a path below ``root``) and its parents, unless done before.
    func ensure(_ relative: String) throws {
        guard !lock.withLock({ known.contains(relative) }) else { return }
        try ensure(VaultPath.folder(of: relative))
        let path = root + "/" + relative
        var status = stat()
        guard
            mkdir(path, 0o755) == 0
                || (errno == EEXIST && stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR)
        else {
            throw OutputWriter.failure("cannot create the folder \(path)")
        }
        _ = lock.withLock { known.insert(relative) }
    }
}
