/// Paths in runs of neighbours that share their first folder: paths sorted, or grouped by folder,
/// come a folder at a time, and each path after a run's first is told to be in its folder by its
/// first bytes, not by its folder's name made and hashed anew for every path of a build.
enum FolderRuns {
    /// The runs of the `count` paths `path` gives, in order: each with its folder (the paths'
    /// part after `prefix`, which each starts with, up to the next slash) and its places; nil and
    /// one place for a path without a slash after `prefix`.
    static func runs(
        _ count: Int, prefix: String = "", path: (Int) -> String
    ) -> [(folder: String?, places: Range<Int>)] {
        var runs: [(folder: String?, places: Range<Int>)] = []
        var start = 0
        while start < count {
            let first = path(start)
            let rest = first.utf8.dropFirst(prefix.utf8.count)
            guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else {
                runs.append((nil, start..<start + 1))
                start += 1
                continue
            }
            let folder = String(Substring(rest[..<slash]))
            let inFolder = prefix + folder + "/"
            var end = start + 1
            while end < count, path(end).hasPrefixBytes(inFolder) { end += 1 }
            runs.append((folder, start..<end))
            start = end
        }
        return runs
    }
}
