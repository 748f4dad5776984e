import LockerKit

/// Which notes make up which decks.
///
/// A deck is a folder mapped to `deck` in `locker.yml`, or a folder whose folder note
/// (`<folder>/<folder>.md` or `<folder>/_deck.md`) says `type: deck`; or a single note that says
/// `type: deck` and holds its cards inline. Every note below a deck folder belongs to the deepest
/// such deck, unless its frontmatter gives it another `kind` or `type`.
struct DeckCatalog: Sendable {
    /// One deck in all its languages.
    struct Group: Sendable, Hashable {
        var id: String
        /// The deck folder, or the note of a single-note deck.
        var path: String
        /// The folder notes (or the single note), one per locale.
        var headers: [Int]
        /// The notes whose cards the deck holds.
        var members: [Int]
        /// Where `locker.yml` maps the folder to `deck`, when it does.
        var configPosition: SourcePosition?
    }

    var groups: [Group] = []
    var diagnostics: [Diagnostic] = []

    /// Finds the decks and marks their notes: kind ``ContentKind/deck`` and the deck's ID, so links
    /// to any of them lead to the deck, and a card note without a locale takes its folder note's.
    init(notes: inout [ParsedNote], config: VaultConfig) {
        var groupsByKey: [String: Group] = [:]
        for (folder, kind) in config.kinds where kind == .deck {
            groupsByKey[folder] = Group(
                id: "", path: folder, headers: [], members: [], configPosition: config.kindPositions[folder])
        }
        for (index, note) in notes.enumerated() where note.kind == .deck {
            let folder = VaultPath.folder(of: note.path)
            let saysDeck = note.frontmatter.kind == .deck || note.frontmatter.type == "deck"
            if Self.isFolderNote(note), saysDeck || config.kinds[folder] == .deck {
                groupsByKey[folder, default: Group(id: "", path: folder, headers: [], members: [])].headers.append(
                    index)
            } else if config.kind(forPath: note.path) != .deck, saysDeck {
                // A note of its own cards: its translations share its path without the locale suffix.
                let key = "note:" + note.basePath
                groupsByKey[key, default: Group(id: "", path: note.path, headers: [], members: [])].headers.append(
                    index)
            }
        }
        let headers = Set(groupsByKey.values.flatMap(\.headers))
        // Without a deck there is nothing to join: a vault of guides walks no folders.
        let members = groupsByKey.isEmpty ? [] : Array(notes.indices)
        for index in members where !headers.contains(index) {
            let note = notes[index]
            guard note.frontmatter.kind == nil || note.frontmatter.kind == .deck,
                note.kind == .guide || note.kind == .deck
            else { continue }
            var folder = VaultPath.folder(of: note.path)
            while true {
                if groupsByKey[folder] != nil {
                    groupsByKey[folder]?.members.append(index)
                    break
                }
                // A folder inside the deck mapped to another kind keeps its notes out of the deck.
                if let kind = config.kinds[folder], kind != .deck { break }
                if folder.isEmpty { break }
                folder = VaultPath.folder(of: folder)
            }
        }
        for key in groupsByKey.keys.sorted() {
            guard var group = groupsByKey[key] else { continue }
            group.headers.sort { notes[$0].path < notes[$1].path }
            group.members.sort { notes[$0].path < notes[$1].path }
            let first = group.headers.first { notes[$0].frontmatter.id != nil } ?? group.headers.first
            let derived = Slug.id(forPath: group.path)
            if let first {
                group.id =
                    notes[first].frontmatter.id
                    ?? (key.hasPrefix("note:") || derived.isEmpty ? notes[first].id : derived)
            } else {
                group.id = derived.isEmpty ? "deck" : derived
            }
            // Card notes without a locale of their own take the folder notes' when all of them
            // name the same one (a folder per language); otherwise the default locale.
            let headerLocales = Set(group.headers.map { notes[$0].locale })
            let inherited =
                group.headers.allSatisfy { notes[$0].explicitLocale } && headerLocales.count == 1
                ? headerLocales.first : nil
            for index in group.headers {
                notes[index] = notes[index].asDeckNote(id: group.id, locale: notes[index].locale)
            }
            for index in group.members {
                let note = notes[index]
                let locale = note.explicitLocale ? note.locale : (inherited ?? note.locale)
                notes[index] = note.asDeckNote(id: group.id, locale: locale)
            }
            groups.append(group)
        }
        groups.sort { ($0.id, $0.path) < ($1.id, $1.path) }
        // Two decks with one ID in one language, or IDs that differ only in case (one folder of
        // the site on macOS).
        var seen: [String: Group] = [:]
        for group in groups {
            let locales = Set((group.headers + group.members).map { notes[$0].locale })
            for locale in locales.sorted() {
                let key = group.id.lowercased() + "\u{0}" + locale
                if let earlier = seen[key] {
                    let file = group.headers.first.map { notes[$0].path } ?? VaultConfig.fileName
                    let position = group.headers.first.map { notes[$0].idPosition } ?? group.configPosition ?? .start
                    diagnostics.append(
                        Diagnostic(
                            .error, .idDuplicate,
                            Compiler.duplicateIDMessage(
                                kind: .deck, id: group.id, locale: locale, earlierID: earlier.id,
                                earlierPath: earlier.path),
                            file: file, at: position, hint: "give one of the decks a different 'id:' in its folder note"
                        ))
                } else {
                    seen[key] = group
                }
            }
        }
    }

    /// `Signals/Signals.md`, `Signals/Signals.ru.md` or `Signals/_deck.md`; never at the vault's
    /// root, which is no deck.
    static func isFolderNote(_ note: ParsedNote) -> Bool {
        let folder = VaultPath.folder(of: note.path)
        return !folder.isEmpty && (note.stem == "_deck" || note.stem == VaultPath.fileName(of: folder))
    }
}
