import Foundation
import LockerKit

/// The decks of a verified bundle as an Anki package (`.apkg`): a zip holding a schema 11
/// collection (`collection.anki2`, which every Anki since 2.1 imports), the `media` map and the
/// images the cards show.
///
/// One note a card, and one two-card note for a card and its reverse, each with a GUID derived
/// from the card's uuid and the locale, so that importing a later export updates the notes an
/// earlier one made. The same bundle gives the same bytes: every time in the package is the
/// content's (``contentTime``). How cards map to notes is in docs/runtime.md, "Exporting to Anki".
public struct AnkiPackage: Sendable {
    /// One note: the card (and its reverse) in one locale.
    struct Note: Sendable {
        var guid: String
        var notetype: AnkiNotetype
        /// The front's HTML and the back's.
        var fields: [String]
        /// The front as plain text: Anki sorts and checks duplicates by it.
        var sortText: String
        var tags: [String]
        var deckID: Int
    }

    /// One image of the package's media.
    struct Media: Sendable {
        /// The name Anki keeps it by, which the cards' `<img src>` names.
        var name: String
        var data: Data
    }

    var notes: [Note] = []
    var decks: [AnkiDeckTree.Entry] = []
    var media: [Media] = []
    /// The content's time in seconds (the manifest's `version`, else its `generatedAt`, else 0):
    /// every `mod` in the package, so a later build's notes are newer to Anki's importer.
    public let contentTime: Int
    /// Whether the manifest had a time; without one a re-import updates nothing.
    public let hasContentTime: Bool

    /// How many notes, cards (a reversible card's note has two), decks (the roots and the decks
    /// holding the exported ones included) and images the package holds.
    public var noteCount: Int { notes.count }
    public var cardCount: Int { notes.reduce(0) { $0 + $1.notetype.templates.count } }
    public var deckCount: Int { decks.count }
    public var mediaCount: Int { media.count }

    /// Collects the decks `deckIDs` (every deck when `nil`, in the index's order) of `bundle`, in
    /// each of `locales`.
    ///
    /// - Throws: ``BundleError`` when a deck or an image cannot be read from the bundle, or a deck
    ///   ID is not the bundle's.
    public init(bundle: ContentBundle, deckIDs: [String]?, locales: [String]) throws(BundleError) {
        let time = Self.contentTime(of: bundle.manifest)
        hasContentTime = time != nil
        // Years 0 to 9999: Anki's millisecond IDs stay far inside 64 bits.
        contentTime = min(max(time ?? 0, 0), 253_402_300_799)
        let media = MediaNames()
        let collection = bundle.manifest.title ?? "Locker"
        for locale in locales {
            let all = try bundle.decks(locale: locale)
            let ids = deckIDs ?? all.map(\.id)
            for id in ids where !all.contains(where: { $0.id == id }) {
                throw BundleError.notFound(kind: .deck, id: id)
            }
            let tree = AnkiDeckTree(
                exported: Set(ids), decks: all, collection: collection, root: Self.rootName(of: bundle, locale: locale),
                locale: locale, locales: bundle.locales)
            decks += tree.entries
            let fields = AnkiFieldRenderer(bundle: bundle, locale: locale, media: media)
            for id in ids {
                guard let deck = all.first(where: { $0.id == id }), let entry = tree.entryByDeckID[id] else { continue }
                notes += Self.notes(of: deck, collection: collection, locale: locale, deckID: entry.id, fields: fields)
            }
        }
        for (source, name) in media.names {
            self.media.append(Media(name: name, data: try bundle.asset(at: source)))
        }
    }

    /// The root deck's name: the collection's title, with the locale when the bundle has several
    /// (so that each language's cards have decks of their own).
    private static func rootName(of bundle: ContentBundle, locale: String) -> String {
        let title = AnkiDeckTree.level(bundle.manifest.title ?? "Locker")
        return bundle.locales.count > 1 ? "\(title) (\(locale))" : title
    }

    /// The notes of a deck's cards, in order: a card followed by its reverse makes one note.
    static func notes(of deck: Deck, collection: String, locale: String, deckID: Int, fields: AnkiFieldRenderer)
        -> [Note]
    {
        let tags = deck.tags.map { String($0.map { $0.isWhitespace ? "_" : $0 }) }.filter { !$0.isEmpty }
        var notes: [Note] = []
        var index = deck.cards.startIndex
        while index < deck.cards.endIndex {
            let card = deck.cards[index]
            let next = deck.cards.index(after: index)
            let reversed = next < deck.cards.endIndex && isReverse(deck.cards[next], of: card)
            notes.append(
                Note(
                    guid: AnkiIdentity.guid(collection: collection, cardUUID: card.uuid, locale: locale),
                    notetype: reversed ? .reversed : .basic, fields: [fields.html(card.front), fields.html(card.back)],
                    sortText: card.frontText, tags: tags, deckID: deckID))
            index = reversed ? deck.cards.index(after: next) : next
        }
        return notes
    }

    /// Whether `card` is the reverse `front:::back` made of `forward`: the next card, written in
    /// the same note, with the sides swapped and the ID `<forward's>-reverse` (numbered when a
    /// derived ID clashed).
    static func isReverse(_ card: Card, of forward: Card) -> Bool {
        card.id.hasPrefix(forward.id + "-reverse") && card.source == forward.source && card.front == forward.back
            && card.back == forward.front
    }

    /// The manifest's `version`, else the time of its `generatedAt`.
    static func contentTime(of manifest: Manifest) -> Int? {
        if let version = manifest.version { return version }
        guard let generatedAt = manifest.generatedAt else { return nil }
        return ISO8601DateFormatter().date(from: generatedAt).map { Int($0.timeIntervalSince1970) }
    }
}

/// The names the package's images get, in the order the cards first show them.
final class MediaNames {
    private(set) var names: [(source: String, name: String)] = []
    private var byPath: [String: String] = [:]

    /// The name of the bundle asset at `path` (`assets/b1ff9c8ea3a780ba.png`):
    /// `locker-b1ff9c8ea3a780ba.png`. Content-addressed, so another export's file of that name has
    /// the same bytes.
    func name(of path: String) -> String {
        if let name = byPath[path] { return name }
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let name = "locker-" + file
        byPath[path] = name
        names.append((path, name))
        return name
    }
}
