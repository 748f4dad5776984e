/// A flashcard deck: the cards of one folder of the vault, in one language.
public struct Deck: Sendable, Hashable, Codable {
    /// The deck's ID, unique among decks: the folder note's `id`, else a slug of the folder's path.
    public var id: String
    /// The UUIDv5 of `deck/<id>` (see ``ContentIdentity``).
    public var uuid: String
    public var locale: String
    /// The folder note's title, else the folder's name.
    public var title: String
    /// The folder note's `description`, else its first paragraph.
    public var description: String?
    public var tags: [String]
    public var order: Int?
    /// The folder note's path, or the folder's when it has none.
    public var source: String
    public var extra: [String: JSONValue]
    public var cardCount: Int
    /// In the order of their notes' paths, then of their place in a note.
    public var cards: [Card]

    public init(
        id: String, uuid: String, locale: String, title: String, description: String?, tags: [String], order: Int?,
        source: String, extra: [String: JSONValue], cards: [Card]
    ) {
        self.id = id
        self.uuid = uuid
        self.locale = locale
        self.title = title
        self.description = description
        self.tags = tags
        self.order = order
        self.source = source
        self.extra = extra
        self.cards = cards
        self.cardCount = cards.count
    }
}

/// A flashcard: a question side and an answer side.
public struct Card: Sendable, Hashable, Codable {
    /// The card's `^id` (or its note's frontmatter `id`) when given, else derived; unique in the
    /// deck; a written ID is shared by every translation. The reverse of `front:::back` is `<id>-reverse`.
    public var id: String
    /// The UUIDv5 of `deck/<deck id>/card/<id>`: what review progress is keyed by.
    public var uuid: String
    public var front: [Block]
    public var back: [Block]
    /// The front as plain text, for lists and search.
    public var frontText: String
    /// The note the card is written in.
    public var source: String
    /// Whether the ID was written in the note; a derived ID changes when the text does.
    public var explicitID: Bool

    public init(
        id: String, uuid: String, front: [Block], back: [Block], frontText: String, source: String, explicitID: Bool
    ) {
        self.id = id
        self.uuid = uuid
        self.front = front
        self.back = back
        self.frontText = frontText
        self.source = source
        self.explicitID = explicitID
    }
}

extension Deck: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("cardCount", cardCount)
            json.member("cards", cards)
            json.member("description", description)
            json.member("extra", extra)
            json.member("id", id)
            json.member("locale", locale)
            json.member("order", order)
            json.member("source", source)
            json.member("tags", tags)
            json.member("title", title)
            json.member("uuid", uuid)
        }
    }
}

extension Card: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("back", back)
            json.member("explicitID", explicitID)
            json.member("front", front)
            json.member("frontText", frontText)
            json.member("id", id)
            json.member("source", source)
            json.member("uuid", uuid)
        }
    }
}
