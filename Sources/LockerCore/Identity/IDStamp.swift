/// An item or card without an explicit ID, and where `locker ids --write` writes the ID it has now.
public struct IDStamp: Sendable, Hashable {
    /// Where the ID goes.
    public enum Placement: Sendable, Hashable {
        /// ` ^id` at the end of this 1-based line: a checklist item's first line, an inline card's line.
        case endOfLine(Int)
        /// `id: <id>` in the note's frontmatter: a card that is a whole note.
        case frontmatter
    }

    /// The note's path inside the vault.
    public var file: String
    public var placement: Placement
    /// The ID the item or card has now, derived from its text; writing it changes no identity.
    public var id: String
    /// The item's title or the card's front, its first line cut to 60 characters, for reports.
    public var label: String
    /// Where the item or card starts, for reports.
    public var position: SourcePosition
}

extension IDStamp {
    /// The stamp of a checklist item: its ID at the end of its title's last line.
    init(item: ParsedChecklist.Item, file: String, id: String) {
        self.init(
            file: file, placement: .endOfLine(item.titleLine), id: id, label: item.plainTitle.excerpt,
            position: item.position)
    }

    /// The stamp of a card: its ID where its reader found it belongs (``ParsedCard/stamp``).
    init(card: ParsedCard, id: String) {
        self.init(
            file: card.file, placement: card.stamp, id: id, label: card.frontText.excerpt, position: card.position)
    }
}
