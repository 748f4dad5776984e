import Foundation

/// A folder drawn as `tree` draws it, for the docs: entries sorted by name (UTF-8 bytes),
/// folders ending in `/`, a note beside the entries a doc explains, the folders it does not open
/// shown closed (`assets/…`), and a folder of more than `longFolder` files shown as its first
/// file, how many more, and its last file.
struct OutputTree {
    /// The note beside an entry, by its path relative to the root (a folder's without `/`).
    var note: (String) -> String? = { _ in nil }
    /// Whether to show what a folder holds, by its path relative to the root.
    var opens: (String) -> Bool = { _ in true }
    /// Folders that hold only files, more than this many, are abridged.
    var longFolder = 4
    /// The column notes start at.
    var noteColumn = 41

    /// The tree of `root`, whose first line is `title` (and the root's note, under the path "").
    func draw(_ root: URL, title: String) throws -> String {
        var lines = [line(title, note: note(""))]
        try draw(root, path: "", prefix: "", into: &lines)
        return lines.joined(separator: "\n") + "\n"
    }

    private func draw(_ folder: URL, path: String, prefix: String, into lines: inout [String]) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        var entries: [(name: String, isFolder: Bool)] = names.map { name in
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder)
            return (name, isFolder.boolValue)
        }
        var hidden = 0
        if entries.count > longFolder, entries.allSatisfy({ !$0.isFolder }), let first = entries.first,
            let last = entries.last
        {
            hidden = entries.count - 2
            entries = [first, last]
        }
        for (index, entry) in entries.enumerated() {
            let isLast = index == entries.count - 1
            let entryPath = path.isEmpty ? entry.name : path + "/" + entry.name
            let open = entry.isFolder && opens(entryPath)
            let name = entry.name + (entry.isFolder ? (open ? "/" : "/…") : "")
            lines.append(line(prefix + (isLast ? "└── " : "├── ") + name, note: note(entryPath)))
            if index == 0, hidden > 0 {
                lines.append(line(prefix + "├── … \(hidden) more", note: nil))
            }
            if open {
                try draw(
                    folder.appendingPathComponent(entry.name), path: entryPath,
                    prefix: prefix + (isLast ? "    " : "│   "), into: &lines)
            }
        }
    }

    private func line(_ text: String, note: String?) -> String {
        guard let note else { return text }
        let padding = max(1, noteColumn - text.count)
        return text + String(repeating: " ", count: padding) + note
    }
}
