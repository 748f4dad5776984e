import Foundation

/// docs/content-format.md: the charter test vault's notes, `locker ids` on a copy of it, and
/// `locker check` in its four formats on a copy of `content/` with problems added.
extension DocsExamples {
    static let charterVault = repository.appendingPathComponent("Tests/LockerCoreTests/Fixtures/charter/vault")
    /// What the `locker check` examples add at the end of `guides/anchoring.ru.md`: a skipped
    /// heading level, a link to a note not written yet, a link to a heading the note lacks.
    static let problemLines = """

        ## Проверка

        #### Слишком глубоко

        Подробнее — в [[Нет такой]] и [[#letting-go]].

        """

    mutating func makeCheckExamples() throws {
        regions["charter-checklist-source"] = Self.fenced(
            try read("Checklists/check-in.en.md", in: Self.charterVault), "markdown")
        regions["charter-deck-source"] = Self.fenced(
            try read("Sound Signals/_deck.en.md", in: Self.charterVault), "markdown")

        // A copy of the charter test vault, named content/ as a repository's vault would be.
        let folder = work.appendingPathComponent("ids")
        _ = try copy(Self.charterVault, to: "ids/content")
        let check = try locker(["check", "content"], in: folder)
        let mismatch = check.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        guard
            let line = mismatch.firstIndex(where: {
                $0.contains("'extinguishers'") && $0.contains("[translation.mismatch]")
            })
        else { throw Failure(message: "the charter test vault has no translation.mismatch for 'extinguishers'") }
        regions["translation-mismatch"] = Self.fenced(
            mismatch[line...].prefix { $0 == mismatch[line] || $0.hasPrefix("  ") }.joined(separator: "\n"))

        regions["ids-list"] = Self.fenced(try shown(["ids", "content"], in: folder))
        let written = try shown(["ids", "content", "--write"], in: folder)
        var diffs = ""
        for path in try Self.files(in: Self.charterVault) {
            let before = try read(path, in: Self.charterVault)
            let after = try read("content/" + path, in: folder)
            if before != after { diffs += Self.diff(before, after, path: "content/" + path) }
        }
        regions["ids-write"] =
            Self.fenced(written) + "\n" + Self.fenced(diffs, "diff")

        // content/ with the problem lines added to one note.
        let problems = work.appendingPathComponent("problems")
        let note = try copy(Self.repository.appendingPathComponent("content"), to: "problems/content")
            .appendingPathComponent("guides/anchoring.ru.md")
        let handle = try FileHandle(forWritingTo: note)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(Self.problemLines.utf8))
        try handle.close()
        regions["check-problem-lines"] = Self.fenced(String(Self.problemLines.drop { $0 == "\n" }), "markdown")
        regions["check-text"] = Self.fenced(try shown(["check", "content"], in: problems))
        regions["check-json"] = Self.fenced(
            try locker(["check", "content", "--format", "json"], in: problems).stdout, "json")
        regions["check-github"] = Self.fenced(
            try locker(["check", "content", "--format", "github"], in: problems).stdout)
        regions["check-sarif"] = Self.fenced(
            try locker(["check", "content", "--format", "sarif"], in: problems).stdout, "json")
    }

    /// The paths of the files below `folder`, sorted.
    static func files(in folder: URL) throws -> [String] {
        let prefix = folder.standardizedFileURL.path + "/"
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        return walker.compactMap { item -> String? in
            guard let url = item as? URL, (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true
            else { return nil }
            return String(url.standardizedFileURL.path.dropFirst(prefix.count))
        }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// The lines that differ between `before` and `after`, with a line of context on each side,
    /// under a `---`/`+++` heading naming `path`: one hunk, which is what `locker ids --write`
    /// makes of a note.
    static func diff(_ before: String, _ after: String, path: String) -> String {
        let old = before.split(separator: "\n", omittingEmptySubsequences: false)
        let new = after.split(separator: "\n", omittingEmptySubsequences: false)
        var start = 0
        while start < min(old.count, new.count), old[start] == new[start] { start += 1 }
        var end = 0
        while end < min(old.count, new.count) - start, old[old.count - 1 - end] == new[new.count - 1 - end] { end += 1 }
        var lines = ["--- \(path)", "+++ \(path)"]
        if start > 0 { lines.append(" " + old[start - 1]) }
        lines += old[start..<(old.count - end)].map { "-" + $0 }
        lines += new[start..<(new.count - end)].map { "+" + $0 }
        // The context after: the next line, unless it is the empty text after the last newline.
        if end > 0, old.count - end < old.count, !(end == 1 && old[old.count - 1].isEmpty) {
            lines.append(" " + old[old.count - end])
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
