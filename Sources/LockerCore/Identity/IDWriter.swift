import Foundation

/// Writes the derived IDs of checklist items and cards into their notes, so that editing the text
/// later keeps each item's identity: `locker ids --write`.
///
/// Only the ID is inserted: ` ^id` at the end of an item's (or inline card's) line, or `id: <id>`
/// as the first frontmatter key of a card note. No other byte of the file changes. A file with
/// errors is left alone, and each edited file is read back before it is written, to prove that
/// every ID it was given is now read as written. Files are replaced atomically.
public struct IDWriter: Sendable {
    /// The change to one note.
    public struct Edit: Sendable {
        /// The note's path inside the vault.
        public var file: String
        public var stamps: [IDStamp]
        public var updated: Data
    }

    /// A note that needs IDs but is not edited, and why.
    public struct Refusal: Error, Sendable, Hashable {
        public var file: String
        public var reason: String
    }

    public var vault: URL
    var config: VaultConfig

    /// Plans the edits for a compilation of the vault at `vault`: the notes to change, and those
    /// refused because they have errors or their IDs could not be placed safely.
    public static func plan(_ compilation: Compilation, vault: URL) -> (edits: [Edit], refused: [Refusal]) {
        let writer = IDWriter(vault: vault, config: compilation.config)
        let configBroken = compilation.diagnostics.contains { $0.severity == .error && $0.file == VaultConfig.fileName }
        let filesWithErrors = Set(compilation.diagnostics.filter { $0.severity == .error }.map(\.file))
        var edits: [Edit] = []
        var refused: [Refusal] = []
        let byFile = Dictionary(grouping: compilation.stamps, by: \.file)
        for file in byFile.keys.sorted() {
            let stamps = byFile[file] ?? []
            if configBroken || filesWithErrors.contains(file) {
                refused.append(
                    Refusal(file: file, reason: configBroken ? "locker.yml has errors" : "the note has errors; fix them first"))
                continue
            }
            switch writer.edit(file, stamps: stamps) {
            case .success(let edit): edits.append(edit)
            case .failure(let refusal): refused.append(refusal)
            }
        }
        return (edits, refused)
    }

    /// Writes the planned edits, each file atomically.
    public static func apply(_ edits: [Edit], vault: URL) throws {
        for edit in edits {
            // A note that is a symbolic link (inside the vault) is edited where it points.
            let url = vault.appendingPathComponent(edit.file).resolvingSymlinksInPath()
            let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).locker-ids")
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            do {
                try edit.updated.write(to: temporary)
                if let permissions = attributes?[.posixPermissions] {
                    try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: temporary.path)
                }
                guard rename(temporary.path, url.path) == 0 else {
                    throw LockerError.io("cannot replace \(edit.file): \(String(cString: strerror(errno)))")
                }
            } catch let error as LockerError {
                try? FileManager.default.removeItem(at: temporary)
                throw error
            } catch {
                try? FileManager.default.removeItem(at: temporary)
                throw LockerError.io("cannot write \(edit.file): \(error.localizedDescription)")
            }
        }
    }

    /// The note's bytes with the IDs inserted, checked by reading them back.
    func edit(_ file: String, stamps: [IDStamp]) -> Result<Edit, Refusal> {
        guard let bytes = try? FileBytes.contents(of: vault.appendingPathComponent(file).path) else {
            return .failure(Refusal(file: file, reason: "cannot read the file"))
        }
        let lines = Self.lines(bytes)
        let newline = lines.first.map { Array(bytes[$0.end..<$0.next]) }.flatMap { $0.isEmpty ? nil : $0 } ?? [0x0A]
        var insertions: [(offset: Int, bytes: [UInt8])] = []
        var unique = Set<IDStamp.Placement>()
        for stamp in stamps where unique.insert(stamp.placement).inserted {
            switch stamp.placement {
            case .endOfLine(let line):
                guard line >= 1, line <= lines.count else {
                    return .failure(Refusal(file: file, reason: "line \(line) is not in the file"))
                }
                var end = lines[line - 1].end
                while end > lines[line - 1].start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
                // A line ending in `\` (a hard line break) keeps it last: `text ^id\`.
                if end > lines[line - 1].start, bytes[end - 1] == 0x5C { end -= 1 }
                insertions.append((end, Array(" ^\(stamp.id)".utf8)))
            case .frontmatter:
                let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
                let idLine = Array("id: \(stamp.id)".utf8) + newline
                if let first = lines.first, Self.isFence(bytes[(first.start + bom)..<first.end]) {
                    insertions.append((first.next, idLine))
                } else {
                    let fence = Array("---".utf8) + newline
                    insertions.append((bom, fence + idLine + fence))
                }
            }
        }
        var updated = bytes
        for insertion in insertions.sorted(by: { $0.offset > $1.offset }) {
            updated.insert(contentsOf: insertion.bytes, at: insertion.offset)
        }
        if let problem = verify(file, original: bytes, updated, stamps: stamps) {
            return .failure(Refusal(file: file, reason: "\(problem); write this note's IDs by hand"))
        }
        return .success(Edit(file: file, stamps: stamps, updated: Data(updated)))
    }

    /// Whether the edited note, parsed again, reads exactly as before but with every stamped ID
    /// written: the same items and cards in the same order with the same text, each written ID
    /// kept, each stamped ID on the item or card it was meant for.
    /// Returns nil when it does, else what went wrong.
    private func verify(_ file: String, original: [UInt8], _ bytes: [UInt8], stamps: [IDStamp]) -> String? {
        guard let before = Self.identities(file, original, config: config),
            let after = Self.identities(file, bytes, config: config), before.count == after.count
        else { return "the note would read differently" }
        let stamped = Dictionary(stamps.map { ($0.position, $0.id) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        for (old, new) in zip(before, after) {
            guard old.label == new.label, old.isReverse == new.isReverse else {
                return "'\(old.label.excerpt)' would read as '\(new.label.excerpt)'"
            }
            if old.isReverse { continue }
            let expected = old.isExplicit ? old.id : stamped[old.position]
            if let expected {
                guard new.isExplicit, new.id == expected, seen.insert(expected).inserted else {
                    return "'\(old.label.excerpt)' would not read back with ID '\(expected)'"
                }
            }
        }
        return nil
    }

    /// The items and cards of a note as read: text, ID, whether written, and where.
    private static func identities(
        _ file: String, _ bytes: [UInt8], config: VaultConfig
    ) -> [(label: String, id: String, isExplicit: Bool, isReverse: Bool, position: SourcePosition)]? {
        let (parsed, _) = NoteParser(config: config).parse(path: file, bytes: bytes)
        guard let note = parsed else { return nil }
        var result = (note.checklist?.items ?? []).map {
            (label: $0.plainTitle, id: $0.id, isExplicit: $0.isExplicit, isReverse: false, position: $0.position)
        }
        for card in CardReader.cards(of: note, at: 0, wholeNote: true) {
            result.append((card.frontText, card.id, card.isExplicit, card.isReverse, card.position))
        }
        return result
    }

    private static func isFence(_ line: ArraySlice<UInt8>) -> Bool {
        var trimmed = line
        while let last = trimmed.last, last == 0x20 || last == 0x09 { trimmed.removeLast() }
        return trimmed.elementsEqual("---".utf8)
    }

    /// Each line's start, the end of its text, and where the next line starts; `\n`, `\r\n` and
    /// `\r` end lines, as the note reader counts them.
    static func lines(_ bytes: [UInt8]) -> [(start: Int, end: Int, next: Int)] {
        var result: [(start: Int, end: Int, next: Int)] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A || bytes[index] == 0x0D {
                let next = bytes[index] == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A ? index + 2 : index + 1
                result.append((start, index, next))
                start = next
                index = next
            } else {
                index += 1
            }
        }
        result.append((start, bytes.count, bytes.count))
        return result
    }
}
