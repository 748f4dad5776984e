/// A checklist note's structure before links are resolved: sections, subsections and items,
/// each with its ID.
struct ParsedChecklist: Sendable, Hashable {
    /// Text before the first section.
    var blocks: [ParsedBlock]
    var sections: [Section]

    /// An H2.
    struct Section: Sendable, Hashable {
        var id: String
        var anchor: String
        var title: [Inline]
        var plainTitle: String
        var position: SourcePosition
        var note: [ParsedBlock]
        var subsections: [Subsection]
    }

    /// An H3, or the untitled group of items directly under an H2.
    struct Subsection: Sendable, Hashable {
        var id: String
        var anchor: String?
        var title: [Inline]?
        var plainTitle: String?
        var position: SourcePosition
        var note: [ParsedBlock]
        var items: [Item]
    }

    /// One list item.
    struct Item: Sendable, Hashable {
        var id: String
        /// Whether the ID was written as `^id`.
        var isExplicit: Bool
        var title: [Inline]
        var plainTitle: String
        var guidance: [ParsedBlock]
        /// Where the item's marker stands.
        var position: SourcePosition
        /// The line the title ends on: where `locker ids --write` puts the `^id`.
        var titleLine: Int
    }

    var items: [Item] { sections.flatMap { $0.subsections.flatMap(\.items) } }
}
