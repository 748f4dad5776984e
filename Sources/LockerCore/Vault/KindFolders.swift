import LockerKit

/// Folders whose names say what their notes are (`Checklists`, `flashcards`, `карточки`), in a
/// vault whose `locker.yml` maps no folder to a kind: each that holds notes built as guides is
/// pointed out, in a note, with the `kinds` line that would build them as checklists or a deck.
///
/// A suggestion, not a rule. Notes written for people read well as guides, and a folder's name
/// does not make them checklists: a boat's handbook with `docs/emergency/checklists/` (a
/// numbered list under each title, an index note) would go from building to an error or two per
/// note. A kind also names a document's uuid (`checklist/fire`, not `guide/fire`), which apps
/// key progress and links on: it should change when the author says so, not when a folder is
/// renamed or a `kinds` key is added for another folder.
enum KindFolders {
    /// The folder names that suggest a kind, lowercased. A folder's name matches when it is one
    /// of them in any case (`Checklists`, `DECKS`, `Чек-листы`); nothing else may differ.
    static let names: [String: ContentKind] = [
        "checklists": .checklist, "чек-листы": .checklist,
        "decks": .deck, "flashcards": .deck, "cards": .deck, "карточки": .deck,
    ]

    /// The kind a folder's own name suggests, if any.
    static func kind(ofFolderNamed name: String) -> ContentKind? { names[name.lowercased()] }

    /// One note per folder named for a kind that holds guides whose kind nothing decided (no
    /// `kind` or `type` in their frontmatter), counted in the deepest such folder around them;
    /// none when `locker.yml` has `kinds`. At `locker.yml`'s first line, which is the file to
    /// edit; in a vault without one, at the folder's first note, a file that exists for the
    /// tools that show a diagnostic on its file. First in the report either way.
    static func suggestions(for notes: [ParsedNote], config: VaultConfig, settingsFile: Bool) -> [Diagnostic] {
        guard !config.declaresKinds else { return [] }
        // Each folder's deepest named folder around it (itself included), worked out once.
        var named: [String: String?] = ["": nil]
        func namedFolder(around folder: String) -> String? {
            if let known = named[folder] { return known }
            let found =
                kind(ofFolderNamed: VaultPath.fileName(of: folder)) != nil
                ? folder : namedFolder(around: VaultPath.folder(of: folder))
            named[folder] = found
            return found
        }
        var counts: [String: Int] = [:]
        var firstNotes: [String: String] = [:]
        for note in notes
        where note.kind == .guide && note.frontmatter.kind == nil
            && NoteParser.kind(forType: note.frontmatter.type) == nil
        {
            if let folder = namedFolder(around: VaultPath.folder(of: note.path)) {
                counts[folder, default: 0] += 1
                if firstNotes[folder].map({ note.path.utf8Precedes($0) }) ?? true { firstNotes[folder] = note.path }
            }
        }
        let folders = counts.keys.sorted { $0.utf8Precedes($1) }
        let mapping = folders.compactMap { folder in
            kind(ofFolderNamed: VaultPath.fileName(of: folder)).map { "\(yamlKey(folder)): \($0.rawValue)" }
        }
        // Every folder in one line, so that it can be pasted once: `kinds` is one key.
        let line = "kinds: {" + mapping.joined(separator: ", ") + "}"
        return folders.compactMap { folder in
            guard let kind = kind(ofFolderNamed: VaultPath.fileName(of: folder)), let count = counts[folder] else {
                return nil
            }
            let notes = count == 1 ? "1 note in it is built as a guide" : "\(count) notes in it are built as guides"
            let named = kind == .deck ? "a deck" : "checklists"
            let goal =
                kind == .deck
                ? "to make the folder a deck, a card per note"
                : count == 1 ? "to build it as a checklist" : "to build them as checklists"
            return Diagnostic(
                .note, .configKindFolder, "\(folder)/ is named for \(named), but \(notes)",
                file: settingsFile ? VaultConfig.fileName : firstNotes[folder] ?? VaultConfig.fileName,
                hint: settingsFile
                    ? "\(goal), add to locker.yml: \(line)" : "\(goal), make a locker.yml holding: \(line)")
        }
    }

    /// A folder path as a key of a YAML flow mapping: plain when it can be (letters, digits,
    /// spaces inside, `-`, `_`, `.`, `/`), else double-quoted.
    static func yamlKey(_ path: String) -> String {
        let plain = path.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || " -_./".unicodeScalars.contains($0)
        }
        if plain, let first = path.unicodeScalars.first, first != " ", first != "-", path.unicodeScalars.last != " " {
            return path
        }
        return path.yamlDoubleQuoted
    }
}
