import Foundation
import LockerKit

/// What the index stage found of the vault as a whole: the decks' notes gathered, the vault's
/// shape (its ``LinkSurface``), and whether the previous build's record still fits it.
struct IndexedVault: Sendable {
    /// The notes, a deck's card notes given the deck's ID and locale.
    var notes: [ParsedNote]
    /// Which notes make up each deck.
    var catalog: DeckCatalog
    /// The vault's other files, by path, sorted by their bytes.
    var assetPaths: [String]
    /// The SHA-256 of the link surface, for the record and the pages' inputs; nil when neither
    /// is written.
    var surfaceSHA256: String?
    /// Whether guides are kept from the record: its link surface and notes are the vault's.
    var keeping = false
    var diagnostics: [Diagnostic] = []
}

extension Compiler {
    /// The index stage: decks gather their notes, folders named for a kind that hold guides are
    /// pointed out (``KindFolders``), the vault's shape is worked out, and documents must not
    /// share an ID. Nil when the previous build's `record` no longer fits the vault's
    /// shape while the parse kept notes unread from it: the compile starts again without it.
    func index(
        _ notes: consuming [ParsedNote], assets: [VaultFile], settings: Settings, record: NoteRecord?,
        loader: NoteLoader?, sink: some OutputSink
    ) -> IndexedVault? {
        let catalog = DeckCatalog(notes: &notes, config: settings.config)
        var diagnostics =
            catalog.diagnostics
            + KindFolders.suggestions(
                for: notes, config: settings.config, settingsFile: settings.data != nil)
        // A guide held in outline that joined a deck below a folder note is one of the deck's
        // notes now: read whole, with what its body has wrong.
        if let loader {
            for place in notes.indices where notes[place].kind == .deck && notes[place].holding == .outline {
                let read = loader.read(place, notes[place])
                notes[place] = read.note
                diagnostics += read.diagnostics
            }
        }
        var indexed = IndexedVault(notes: notes, catalog: catalog, assetPaths: assets.map(\.path))
        indexed.diagnostics = diagnostics
        // Hashed once, for the record and the page inputs.
        indexed.surfaceSHA256 =
            sink.recordsInputs
            ? LinkSurface(
                config: settings.data, notes: indexed.notes, assets: indexed.assetPaths, decks: catalog.groups
            ).sha256 : nil
        // The surface holds every note's kind, ID and locale: while it is the one a build found
        // no two documents sharing an ID under, none do. So it is for the surface the record was
        // written under: only a build without errors writes one.
        let recordedSurface = record.map { $0.linkSurface == indexed.surfaceSHA256 } ?? false
        if !recordedSurface {
            indexed.diagnostics += Self.duplicateIDs(indexed.notes.filter { $0.kind != .deck })
        }
        // Guides are kept from the record only while the vault's shape is the one it was written
        // under: every note keeps its place, kind, ID and locale.
        indexed.keeping = recordedSurface && record?.notes.count == indexed.notes.count
        if record != nil, !indexed.keeping, indexed.notes.contains(where: \.isHollow) { return nil }
        return indexed
    }

    /// Errors for documents of one kind and locale that share an ID, or whose IDs differ only in
    /// case: their pages would share a folder on a file system that ignores case (macOS,
    /// Windows), and the build's output would depend on the machine.
    static func duplicateIDs(_ notes: [ParsedNote]) -> [Diagnostic] {
        struct Key: Hashable {
            var kind: ContentKind
            var locale: String
            var id: String
        }
        var first: [Key: ParsedNote] = [:]
        var diagnostics: [Diagnostic] = []
        for note in notes {
            let key = Key(kind: note.kind, locale: note.locale, id: note.id.lowercased())
            if let earlier = first[key] {
                diagnostics.append(
                    Diagnostic(
                        .error, .idDuplicate,
                        Self.duplicateIDMessage(
                            kind: note.kind, id: note.id, locale: note.locale, earlierID: earlier.id,
                            earlierPath: earlier.path),
                        file: note.path, at: note.idPosition,
                        hint:
                            "give one of them a different 'id:' in its frontmatter, or a 'lang:' if it is a translation"
                    ))
            } else {
                first[key] = note
            }
        }
        return diagnostics
    }

    /// What `id.duplicate` says of a document or deck whose ID (`id`, in `locale`) an earlier one
    /// has, or has in other case.
    static func duplicateIDMessage(
        kind: ContentKind, id: String, locale: String, earlierID: String, earlierPath: String
    ) -> String {
        earlierID == id
            ? "\(kind) id '\(id)' (\(locale)) is already used by \(earlierPath)"
            : "\(kind) id '\(id)' (\(locale)) differs only in case from '\(earlierID)' of \(earlierPath): "
                + "their pages would share a folder on macOS"
    }
}
