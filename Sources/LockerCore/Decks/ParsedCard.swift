/// A flashcard before links are resolved.
struct ParsedCard: Sendable, Hashable {
    var id: String
    /// Whether the ID was written (`^id`, or the card note's frontmatter `id`).
    var isExplicit: Bool
    var front: [ParsedBlock]
    var back: [ParsedBlock]
    /// The front as plain text.
    var frontText: String
    /// The index of the note the card is written in, in the vault's note list: given when its deck
    /// gathers it (``CardReader/cards(of:at:wholeNote:)``), -1 until then.
    var note: Int
    var file: String
    var position: SourcePosition
    /// Where `locker ids --write` writes the card's ID.
    var stamp: IDStamp.Placement
    /// The reverse of the card before it (`front:::back`, or `??`); its ID is that card's plus `-reverse`.
    var isReverse: Bool
}
