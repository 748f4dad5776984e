/// Paths in runs of neighbours that share their first folder: paths sorted, or grouped by folder,
/// come a folder at a time, and each path after a run's first is told to be in its folder by its
/// first bytes, not by its folder's name made and hashed anew (10,000 times a build).
enum FolderRuns {
    /// Calls `body` once for each run of the `count` paths `path` gives, in order: with the run's
    /// folder (the path's part after `prefix`, which each path starts with, up to its next slash)
    /// and its places; with nil and one place for a path without a slash after `prefix`.
    static func visit(
        _ count: Int, prefix: String = "", path: (Int) -> String,
        _ body: (_ folder: String?, _ run: Range<Int>) -> Void
    ) {
        var start = 0
        while start < count {
            let first = path(start)
            let rest = first.utf8.dropFirst(prefix.utf8.count)
            guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else {
                body(nil, start..<start + 1)
                start += 1
                continue
            }
            let folder = String(Substring(rest[..<slash]))
            let inFolder = prefix + folder + "/"
            var end = start + 1
            while end < count, path(end).hasPrefixBytes(inFolder) { end += 1 }
            body(folder, start..<end)
            start = end
        }
    }
}
