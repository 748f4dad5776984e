import LockerKit

/// The typed keys of a note's frontmatter; everything else is kept under ``extra``.
struct Frontmatter: Sendable, Hashable {
    var id: String?
    var idPosition: SourcePosition?
    var kind: ContentKind?
    var type: String?
    var title: String?
    /// Where `title`'s value is written, for what a landing page reads in it.
    var titlePosition: SourcePosition?
    var subtitle: String?
    var description: String?
    var descriptionPosition: SourcePosition?
    var category: String?
    var lang: String?
    var aliases: [String] = []
    var tags: [String] = []
    var order: Int?
    /// For a checklist: when it is used; nil when not given (a reference checklist).
    var checklistType: ChecklistType?
    var extra: [String: JSONValue] = [:]
    /// The keys kept under ``extra`` as written, with their positions: what a landing page reads.
    var extraEntries: [YAMLValue.Entry] = []

    /// Practice module categories, per the Mothership content model.
    static let categories = ["briefing", "knots", "maneuvering", "mooring", "safety"]
    /// How an app presents a guide (`document`, `briefing`), or, without a `kind`, the kind of
    /// the note: `checklist` makes a checklist, `deck` a deck.
    static let types = ["document", "briefing", "checklist", "deck"]
}

/// A note split into its frontmatter and the body cmark reads.
struct SplitNote: Sendable {
    /// The YAML between the fences, and the 1-based line it starts on.
    var yaml: String?
    var yamlFirstLine = 2
    /// The whole text with the frontmatter lines blanked, so body positions stay true.
    var body: String
}
