import LockerKit

/// An Obsidian wikilink or embed as written: `[[target#fragment|display]]`.
struct WikiLink: Sendable, Hashable {
    /// The note or file named, NFC; empty for a link into the same note (`[[#Heading]]`).
    var target: String
    /// What follows `#`: a heading (`Heading`, or `H2#H3`) or a block reference (`^id`).
    var fragment: String?
    /// What follows `|`: the text to show, or for images a size such as `300` or `300x200`.
    var display: String?
    /// The text to show when it holds formatting (`[[Note|**bold** text]]`); ``display`` is then
    /// its plain text.
    var formattedDisplay: [Inline]? = nil
    /// `![[…]]` rather than `[[…]]`.
    var isEmbed: Bool
    /// Where the link starts in its file.
    var position: SourcePosition
}

/// Inline content before links are resolved.
enum Inline: Sendable, Hashable {
    case text(String)
    case emphasis([Inline])
    case strong([Inline])
    case strikethrough([Inline])
    case highlight([Inline])
    case code(String)
    /// Inline math, its TeX.
    case math(String)
    /// Display math (`$$…$$`), its TeX: lifted into a block of its own when the note is built.
    case displayMath(String)
    indirect case wikiLink(WikiLink)
    /// A markdown link: a URL, or a path to a note or file in the vault.
    indirect case link(destination: String, children: [Inline], position: SourcePosition)
    /// An embed or image in the middle of text; lifted into its own block when the note is built.
    indirect case embed(WikiLink)
    indirect case image(source: String, alt: String, position: SourcePosition)
    case tag(String)
    case softBreak
    case lineBreak
    /// A footnote at its reference: `[^label]` with its definition, or an inline `^[text]`.
    indirect case footnote(ParsedFootnote)
}

/// A footnote as its reference finds it.
struct ParsedFootnote: Sendable, Hashable {
    /// Which footnote of the note it is: the same for every reference to one definition.
    var key: Int
    /// 1, 2, … in the order the note first refers to its footnotes; 0 until counted.
    var number: Int
    /// The definition's blocks.
    var blocks: [ParsedBlock]
}

/// A block before links are resolved.
struct ParsedBlock: Sendable, Hashable {
    enum Content: Sendable, Hashable {
        case paragraph([Inline])
        case heading(level: Int, [Inline])
        case list(style: Block.List.Style, start: Int?, items: [ParsedListItem])
        indirect case callout(type: String, title: [Inline]?, fold: Block.Callout.Fold?, blocks: [ParsedBlock])
        case quote([ParsedBlock])
        case code(language: String?, text: String)
        /// Display math, its TeX.
        case math(String)
        case table(align: [Block.Table.Alignment], header: [[Inline]], rows: [[[Inline]]])
        /// An image: a vault path or URL, with its alt text and an optional size.
        indirect case image(source: String, alt: String, width: Int?, height: Int?)
        /// A note (or a heading or block of one) shown in place.
        indirect case embed(WikiLink)
        case rule
    }

    var content: Content
    var blockID: String?
    var position: SourcePosition
}

/// A list item before links are resolved.
struct ParsedListItem: Sendable, Hashable {
    var checked: Bool?
    var blocks: [ParsedBlock]
    var blockID: String?
    /// Whether ``blockID`` ended the item's first line rather than its last.
    var blockIDOnFirstLine = false
    /// Where the item's marker (`-`, `1.`) stands.
    var position: SourcePosition = .start
}

/// A heading and what stands under it, before links are resolved.
struct ParsedSection: Sendable, Hashable {
    var anchor: String
    var level: Int
    var title: [Inline]
    var plainTitle: String
    var position: SourcePosition
    var blocks: [ParsedBlock]
    var sections: [ParsedSection]
    /// A `^id` written at the end of the heading.
    var blockID: String? = nil
}

/// A note read, parsed and structured, waiting for its links to be resolved.
///
/// Depends only on the note's own bytes and the vault config. Immutable but for its blocks and
/// sections, which a build lets go once they are built (``releaseBody()``); a class so that the
/// many places holding a note (link tables, decks) share one copy: a struct of this many fields
/// costs a retain per field each time it is copied.
final class ParsedNote: Sendable {
    let path: String
    let kind: ContentKind
    let id: String
    let idPosition: SourcePosition
    let locale: String
    /// Whether the locale was written (`lang:` or a file-name suffix) rather than defaulted.
    let explicitLocale: Bool
    let frontmatter: Frontmatter
    let title: String
    /// The blocks before the first heading, and the sections; empty once let go (``releaseBody()``).
    var blocks: [ParsedBlock] { body.withLock { $0?.blocks } ?? [] }
    var sections: [ParsedSection] { body.withLock { $0?.sections } ?? [] }
    /// Inline `#tags` found in the body, in order of appearance.
    let bodyTags: [String]
    /// Heading anchors by the normalised heading text an author links with; the H1's is empty,
    /// for the top of the note.
    let headings: [String: String]
    /// Every block ID in the note, with the block it marks; empty once let go.
    var blocksByID: [String: ParsedBlock] { body.withLock { $0?.blocksByID } ?? [:] }
    /// Every block ID in the note: what a link to `#^id` checks, kept when the body is let go.
    let blockIDs: Set<String>
    /// The note's blocks, sections and blocks by ID, until a build lets them go.
    private let body: Guarded<Body?>

    private struct Body: Sendable {
        var blocks: [ParsedBlock]
        var sections: [ParsedSection]
        var blocksByID: [String: ParsedBlock]
    }
    let diagnostics: [Diagnostic]
    /// The checklist the note describes, when its kind is ``ContentKind/checklist``.
    let checklist: ParsedChecklist?
    /// The cards the note holds inline, when its kind is ``ContentKind/deck`` as it was parsed
    /// (a note that joins a deck later, below a folder note, has them read when its deck is built:
    /// ``CardReader/cards(of:at:wholeNote:)``).
    let cards: [ParsedCard]?
    /// The path without extension and locale suffix, which the note's translations share
    /// (``VaultPath/basePath(of:locales:)``).
    let basePath: String
    /// The name the note is known by without a title: its file name without extension and locale.
    /// Worked out when asked (decks ask), not for each of the thousands of notes a build holds.
    var stem: String { VaultPath.fileName(of: basePath) }
    /// The UUID of the document the note is (or is part of), from its kind and ID: made once
    /// here rather than for every link to the note.
    let uuid: String
    /// How much of the note's text this value was made with.
    let holding: Holding

    /// How much of a note's text a ``ParsedNote`` was made with. ``VaultIndex/whole(_:)`` reads
    /// and parses the note again when a build needs its text and the note does not hold it.
    enum Holding: Sendable {
        /// All of it, parsed (the body may have been let go since: ``releaseBody()``).
        case whole
        /// Its frontmatter and what links to it need (title and headings), read by
        /// ``OutlineScanner``: how the parse stage holds a guide, whose body is parsed when it
        /// is built.
        case outline
        /// None: a guide kept unread from the previous build's record (``NoteRecord``). It has
        /// the path, kind, ID, locale, aliases and the frontmatter's ID and type.
        case hollow
    }

    /// Whether the note stands for one kept unread from the previous build's record.
    var isHollow: Bool { holding == .hollow }

    init(
        path: String, kind: ContentKind, id: String, idPosition: SourcePosition, locale: String,
        explicitLocale: Bool, frontmatter: Frontmatter, title: String, blocks: [ParsedBlock] = [],
        sections: [ParsedSection] = [], bodyTags: [String] = [], headings: [String: String],
        blocksByID: [String: ParsedBlock] = [:], diagnostics: [Diagnostic] = [], checklist: ParsedChecklist? = nil,
        cards: [ParsedCard]? = nil, basePath: String, holding: Holding = .whole, blockIDs: Set<String>? = nil,
        uuid: String? = nil
    ) {
        self.holding = holding
        self.path = path
        self.kind = kind
        self.id = id
        self.idPosition = idPosition
        self.locale = locale
        self.explicitLocale = explicitLocale
        self.frontmatter = frontmatter
        self.title = title
        self.bodyTags = bodyTags
        self.headings = headings
        body = Guarded(holding == .whole ? Body(blocks: blocks, sections: sections, blocksByID: blocksByID) : nil)
        self.blockIDs = blockIDs ?? Set(blocksByID.keys)
        self.diagnostics = diagnostics
        self.checklist = checklist
        self.cards = cards
        self.basePath = basePath
        self.uuid = uuid ?? ContentIdentity.uuidString(kind: kind, id: id)
    }

    /// Lets the note's blocks and sections go: its document is built, and the rest of the build
    /// needs only what links to it read (its title, headings and block IDs).
    func releaseBody() { body.withLock { $0 = nil } }

    /// This note with the blocks and sections it holds now, which no ``releaseBody()`` of this
    /// one takes away; nil when they were let go already. Taken once, under the lock: a note
    /// read field by field while another thread lets its body go gave an embed its blocks and
    /// no sections.
    func holdingBody() -> ParsedNote? {
        body.withLock { $0 }.map { copy(body: $0) }
    }

    /// This note as a card of the deck `id`, in `locale`.
    func asDeckNote(id: String, locale: String) -> ParsedNote {
        copy(kind: .deck, id: id, locale: locale, body: body.withLock { $0 })
    }

    /// This note with another identity or body.
    private func copy(kind: ContentKind? = nil, id: String? = nil, locale: String? = nil, body: Body?) -> ParsedNote {
        let note = ParsedNote(
            path: path, kind: kind ?? self.kind, id: id ?? self.id, idPosition: idPosition,
            locale: locale ?? self.locale,
            explicitLocale: explicitLocale, frontmatter: frontmatter, title: title, blocks: body?.blocks ?? [],
            sections: body?.sections ?? [], bodyTags: bodyTags, headings: headings, blocksByID: body?.blocksByID ?? [:],
            diagnostics: diagnostics, checklist: checklist, cards: cards, basePath: basePath, holding: holding,
            blockIDs: blockIDs,
            // The UUID follows the kind and ID.
            uuid: kind == nil && id == nil ? uuid : nil)
        if body == nil { note.releaseBody() }
        return note
    }

    /// A guide note kept from the previous build's record, standing in for the note unread.
    static func hollow(path: String, kept guide: NoteRecord.KeptGuide) -> ParsedNote {
        var frontmatter = Frontmatter()
        frontmatter.id = guide.frontmatterID
        frontmatter.kind = guide.frontmatterKind.map(ContentKind.init(rawValue:))
        frontmatter.type = guide.frontmatterType
        frontmatter.aliases = guide.aliases
        return ParsedNote(
            path: path, kind: .guide, id: guide.id, idPosition: guide.idPosition, locale: guide.locale,
            explicitLocale: guide.explicitLocale, frontmatter: frontmatter, title: "", blocks: [], sections: [],
            bodyTags: [], headings: [:], blocksByID: [:], diagnostics: guide.parseDiagnostics, checklist: nil,
            basePath: guide.basePath, holding: .hollow,
            // The guide's UUID, which its index entry holds: from the same kind and ID.
            uuid: guide.uuid)
    }
}
