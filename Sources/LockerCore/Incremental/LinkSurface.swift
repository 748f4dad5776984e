import Foundation
import LockerKit

/// Everything besides the notes' content that decides how links resolve: the settings, and each
/// note's path, kind, ID, locale and aliases, and the vault's other files; compared as bytes.
struct LinkSurface: Sendable, Equatable {
    private var bytes = SurfaceBytes()

    /// The SHA-256 of the surface, for ``PageInputs``: hashed at each call.
    var sha256: String { bytes.sha256 }

    /// - Parameter decks: which notes make up each deck. A note can move from a deck of its own
    ///   into its folder's deck keeping its kind, ID and locale; the deck built before must not
    ///   stand for the new one.
    init(config: Data?, notes: [ParsedNote], assets: [String], decks: [DeckCatalog.Group] = []) {
        bytes.add(config)
        // The notes in runs, each on a core, joined in order: the bytes added one by one. Each
        // run and the whole are made at about their size, not grown by doubling: a rebuild
        // touched several times the surface's size in memory for the first time.
        let runs = Compiler.parallelMap(Compiler.runs(of: notes.count, length: 1024)) { run in
            var part = SurfaceBytes()
            part.reserve(run.count * 64)
            for note in notes[run] {
                part.add(text: note.path)
                part.add(text: note.kind.rawValue)
                part.add(text: note.id)
                part.add(text: note.locale)
                part.add(text: note.explicitLocale ? "1" : "0")
                part.endList()
                for alias in note.frontmatter.aliases { part.add(text: alias) }
                part.endList()
            }
            return part
        }
        bytes.reserve(runs.reduce(bytes.count + assets.count * 64) { $0 + $1.count })
        for part in runs { bytes.append(part) }
        bytes.add(assets)
        for group in decks {
            bytes.add([group.id, group.path])
            bytes.add(group.headers.map { $0 < notes.count ? notes[$0].path : "" })
            bytes.add(group.members.map { $0 < notes.count ? notes[$0].path : "" })
        }
    }
}

/// What an index lists, in its order: every field of each entry and, for an index page, the
/// path of each entry's page; compared as bytes.
struct IndexListing: Sendable, Equatable {
    private var bytes = SurfaceBytes()

    /// The SHA-256 of the listing, for ``PageInputs``.
    var sha256: String { bytes.sha256 }

    init(_ entries: [ContentIndex.Entry], paths: [String]? = nil) {
        for (offset, entry) in entries.enumerated() {
            bytes.add([
                entry.id, entry.uuid, entry.title, entry.subtitle, entry.category, entry.type,
                entry.order.map(String.init), entry.locale, entry.checklistType?.rawValue,
                entry.itemCount.map(String.init), entry.cardCount.map(String.init), paths?[offset],
            ])
            bytes.add(entry.tags)
        }
    }
}

/// Texts laid end to end as UTF-8, each followed by a byte no UTF-8 text holds: two lists of
/// texts give the same bytes only when they hold the same texts, byte for byte.
struct SurfaceBytes: Sendable, Equatable {
    private var bytes: [UInt8] = []

    /// The SHA-256 of the bytes, in hex: what a later build, in another process, compares.
    var sha256: String { ContentHash.sha256Hex(bytes) }

    /// Appends each text and a separator, then a second separator that ends the list.
    mutating func add(_ texts: [String]) { add(texts.map(Optional.some)) }

    /// Appends each text and a separator, or a marker for an absent text, then the list's end.
    mutating func add(_ texts: [String?]) {
        for text in texts {
            if let text { add(text: text) } else { bytes.append(0xFD) }
        }
        endList()
    }

    /// Appends one text of a list and its separator.
    mutating func add(text: String) {
        bytes += text.utf8
        bytes.append(0xFF)
    }

    /// Ends a list of texts.
    mutating func endList() { bytes.append(0xFE) }

    /// Appends the bytes of another.
    mutating func append(_ other: SurfaceBytes) { bytes += other.bytes }

    /// How many bytes there are.
    var count: Int { bytes.count }

    /// Makes room for `count` bytes in all, so that appending up to them does not grow the bytes.
    mutating func reserve(_ count: Int) { bytes.reserveCapacity(count) }

    /// Appends raw bytes, marked as present or absent.
    mutating func add(_ data: Data?) {
        bytes += data.map { [1] + Array($0) + [0xFE] } ?? [0]
    }
}
