import Foundation
import LockerCore
import LockerKit

/// The Anki decks of one locale of an export: a root deck named after the collection, and below
/// it the bundle's decks nested as their folders are in the vault. A deck whose folder lies inside
/// another deck's folder is that deck's child (`Captain's Locker::Seamanship::Knots`).
///
/// Anki's importer finds decks by name, so names are what must stay the same from one export to
/// the next; IDs are derived too (``AnkiIdentity/deckID(uuid:locale:)``), for a byte-identical package.
struct AnkiDeckTree {
    /// One Anki deck.
    struct Entry: Equatable {
        var id: Int
        /// Levels joined by `::`.
        var name: String
        /// HTML.
        var description: String
    }

    /// The root, then the decks exported and the decks they lie in, parents before children.
    private(set) var entries: [Entry] = []
    /// The Anki deck of each bundle deck, by its ID.
    private(set) var entryByDeckID: [String: Entry] = [:]

    /// - Parameters:
    ///   - exported: the IDs of the decks whose cards are exported.
    ///   - decks: every deck of the bundle in this locale (or its fallback), in the index's order.
    ///   - collection: the collection's title, which scopes the decks' IDs.
    ///   - root: the root deck's name.
    ///   - locales: the bundle's locales, for recognising a translated folder note (`_deck.en.md`).
    init(exported: Set<String>, decks: [Deck], collection: String, root: String, locale: String, locales: [String]) {
        let rootEntry = Entry(
            id: AnkiIdentity.id("deck/\(collection)/root/\(locale)"), name: Self.level(root), description: "")
        let places = decks.map { Self.place(of: $0.source, locales: locales) }
        // Each deck's parent: the deck with the deepest folder that holds it.
        func parent(of index: Int) -> Int? {
            let place = places[index].path
            return places.indices.filter { other in
                other != index && places[other].isFolder && places[other].path.count < place.count
                    && Array(place.prefix(places[other].path.count)) == places[other].path
            }.max { places[$0].path.count < places[$1].path.count }
        }
        let parents = decks.indices.map(parent)
        // Names, parents first; a name another deck already has gets the deck's ID after it.
        var names: [Int: String] = [:]
        var taken: Set<String> = [rootEntry.name]
        func name(of index: Int, depth: Int = 0) -> String {
            if let known = names[index] { return known }
            // A cycle is impossible (parents have shorter paths), and the depth guards it anyway.
            let above = (depth < decks.count ? parents[index].map { name(of: $0, depth: depth + 1) } : nil)
            var full = (above ?? rootEntry.name) + "::" + Self.level(decks[index].title, or: decks[index].id)
            if taken.contains(full) { full += " (\(decks[index].id))" }
            taken.insert(full)
            names[index] = full
            return full
        }
        for index in decks.indices { _ = name(of: index) }
        // The exported decks and the decks above them.
        var needed: Set<Int> = []
        for index in decks.indices where exported.contains(decks[index].id) {
            var next: Int? = index
            while let current = next, needed.insert(current).inserted { next = parents[current] }
        }
        entries = [rootEntry]
        for index in decks.indices where needed.contains(index) {
            let deck = decks[index]
            let entry = Entry(
                id: AnkiIdentity.deckID(collection: collection, uuid: deck.uuid, locale: locale),
                name: names[index] ?? rootEntry.name,
                description: deck.description.map(HTMLRenderer.escape) ?? "")
            entries.append(entry)
            entryByDeckID[deck.id] = entry
        }
        // Parents before children, as Anki's importer takes them.
        entries.sort { $0.name.split(separator: "::").count < $1.name.split(separator: "::").count }
    }

    /// Where a deck lies in the vault: its folder, for a deck kept in a folder (its source is the
    /// folder or its folder note); the note's path without `.md`, for a deck written in one note.
    static func place(of source: String, locales: [String]) -> (path: [String], isFolder: Bool) {
        var path = source.split(separator: "/").map(String.init)
        guard let last = path.last, last.hasSuffix(".md") else { return (path, true) }
        var stem = String(last.dropLast(3))
        if let dot = stem.lastIndex(of: "."), locales.contains(String(stem[stem.index(after: dot)...])) {
            stem = String(stem[..<dot])
        }
        path.removeLast()
        if stem == "_deck" || stem == path.last { return (path, true) }
        return (path + [stem], false)
    }

    /// One level of a deck name: `::` would start another level and Anki trims the ends, so
    /// `::` becomes `:`, control characters spaces, and colons at the ends go.
    static func level(_ title: String, or fallback: String = "Locker") -> String {
        var text = String(String.UnicodeScalarView(title.unicodeScalars.map { $0.value < 0x20 ? " " : $0 }))
        while text.contains("::") { text = text.replacingOccurrences(of: "::", with: ":") }
        // A colon at either end would make `::` with the separator beside it.
        text = text.trimmingCharacters(in: CharacterSet.whitespaces.union(CharacterSet(charactersIn: ":")))
        return text.isEmpty ? fallback : text
    }
}
