/// A stable identifier of a kind of problem, such as `link.broken`.
///
/// Codes never change meaning once released; docs/content-format.md lists them all.
public struct DiagnosticCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

extension DiagnosticCode {
    // Files
    /// The file is not valid UTF-8.
    public static let fileInvalidUTF8 = DiagnosticCode(rawValue: "file.invalid-utf8")
    /// The file holds NUL bytes: binary data named `.md`.
    public static let fileBinary = DiagnosticCode(rawValue: "file.binary")
    /// The file is larger than the limit.
    public static let fileTooLarge = DiagnosticCode(rawValue: "file.too-large")
    /// The file could not be read.
    public static let fileUnreadable = DiagnosticCode(rawValue: "file.unreadable")
    /// The file starts with a byte order mark, which was removed.
    public static let fileBOM = DiagnosticCode(rawValue: "file.bom")
    /// The file uses CRLF line endings, which were normalised.
    public static let fileCRLF = DiagnosticCode(rawValue: "file.crlf")
    /// The note is empty.
    public static let fileEmpty = DiagnosticCode(rawValue: "file.empty")
    /// A symbolic link points outside the vault and was not followed.
    public static let fileOutsideVault = DiagnosticCode(rawValue: "file.outside-vault")

    // Configuration
    /// `locker.yml` is not valid YAML or has a value of the wrong type.
    public static let configInvalid = DiagnosticCode(rawValue: "config.invalid")
    /// `locker.yml` has a key Locker does not know.
    public static let configUnknownKey = DiagnosticCode(rawValue: "config.unknown-key")
    /// A folder named for checklists or a deck holds notes built as guides, in a vault whose
    /// `locker.yml` has no `kinds`: the note says how to map it.
    public static let configKindFolder = DiagnosticCode(rawValue: "config.kind-folder")

    // Frontmatter
    /// The frontmatter opens with `---` but never closes.
    public static let frontmatterUnterminated = DiagnosticCode(rawValue: "frontmatter.unterminated")
    /// The frontmatter is not valid YAML.
    public static let frontmatterSyntax = DiagnosticCode(rawValue: "frontmatter.syntax")
    /// The frontmatter is not a mapping of keys to values.
    public static let frontmatterNotMapping = DiagnosticCode(rawValue: "frontmatter.not-mapping")
    /// The frontmatter expands to too many values (an alias bomb, or just too much).
    public static let frontmatterTooComplex = DiagnosticCode(rawValue: "frontmatter.too-complex")
    /// A known key has a value of the wrong type or outside its allowed values.
    public static let frontmatterInvalidValue = DiagnosticCode(rawValue: "frontmatter.invalid-value")
    /// A key appears twice in the frontmatter.
    public static let frontmatterDuplicateKey = DiagnosticCode(rawValue: "frontmatter.duplicate-key")

    // Identity
    /// Two documents of the same kind and locale have the same ID.
    public static let idDuplicate = DiagnosticCode(rawValue: "id.duplicate")
    /// An `id` that is not a usable identifier.
    public static let idInvalid = DiagnosticCode(rawValue: "id.invalid")

    // Links
    /// A link or embed names a note or file that does not exist.
    public static let linkBroken = DiagnosticCode(rawValue: "link.broken")
    /// A link names more than one note equally well.
    public static let linkAmbiguous = DiagnosticCode(rawValue: "link.ambiguous")
    /// A link names a heading the target does not have.
    public static let linkBrokenHeading = DiagnosticCode(rawValue: "link.broken-heading")
    /// A link names a block ID the target does not have.
    public static let linkBrokenBlock = DiagnosticCode(rawValue: "link.broken-block")
    /// An embed or image, something Locker would read, names a path above the vault's root.
    public static let linkOutsideVault = DiagnosticCode(rawValue: "link.outside-vault")
    /// A link (not an embed) names a path above the vault's root: it reads nothing, and is kept
    /// as its text.
    public static let linkLeavesVault = DiagnosticCode(rawValue: "link.leaves-vault")
    /// A link with a scheme apps must not open (`javascript:`, `data:`, …).
    public static let linkUnsafeURL = DiagnosticCode(rawValue: "link.unsafe-url")
    /// An empty wikilink, `[[]]`.
    public static let linkEmpty = DiagnosticCode(rawValue: "link.empty")
    /// A footnote reference, `[^label]`, with no `[^label]: …` definition in its note.
    public static let footnoteUndefined = DiagnosticCode(rawValue: "footnote.undefined")
    /// A footnote definition, `[^label]: …`, that nothing in its note refers to.
    public static let footnoteUnused = DiagnosticCode(rawValue: "footnote.unused")

    // Embeds
    /// Embeds embed each other in a cycle.
    public static let embedCycle = DiagnosticCode(rawValue: "embed.cycle")
    /// Embeds nest deeper than the limit.
    public static let embedTooDeep = DiagnosticCode(rawValue: "embed.too-deep")
    /// An embedded file type Locker cannot carry (only notes and images can be embedded).
    public static let embedUnsupported = DiagnosticCode(rawValue: "embed.unsupported")

    // Structure
    /// A heading level was skipped (H2 straight to H4).
    public static let headingSkippedLevel = DiagnosticCode(rawValue: "heading.skipped-level")
    /// An H1 after the first, or after other content: it becomes a section.
    public static let headingExtraH1 = DiagnosticCode(rawValue: "heading.extra-h1")
    /// An H5 or H6: deeper than sections go, kept as a bold paragraph.
    public static let headingTooDeep = DiagnosticCode(rawValue: "heading.too-deep")
    /// The same block ID twice in one note.
    public static let blockDuplicateID = DiagnosticCode(rawValue: "block.duplicate-id")
    /// Quotes, callouts, lists and inline spans nested deeper than the limit: the rest is dropped.
    public static let markdownTooDeep = DiagnosticCode(rawValue: "markdown.too-deep")
    /// Raw HTML in a note: apps render no HTML, so it is dropped.
    public static let htmlDropped = DiagnosticCode(rawValue: "html.dropped")
    /// A `%%` comment that never closes: the rest of the note is hidden.
    public static let commentUnterminated = DiagnosticCode(rawValue: "comment.unterminated")

    // Checklists
    /// A checklist with no items at all.
    public static let checklistEmpty = DiagnosticCode(rawValue: "checklist.empty")
    /// A section or subsection of a checklist with no items.
    public static let checklistEmptySection = DiagnosticCode(rawValue: "checklist.empty-section")
    /// A checklist item with no text.
    public static let checklistEmptyItem = DiagnosticCode(rawValue: "checklist.empty-item")
    /// List items before the first H2 of a checklist: they belong to no section.
    public static let checklistItemOutsideSection = DiagnosticCode(rawValue: "checklist.item-outside-section")
    /// An H4 (or deeper) in a checklist, which has sections (H2) and subsections (H3) only.
    public static let checklistHeadingTooDeep = DiagnosticCode(rawValue: "checklist.heading-too-deep")
    /// A `checklistType` Locker does not know.
    public static let checklistUnknownType = DiagnosticCode(rawValue: "checklist.unknown-type")

    // Decks
    /// A deck with no cards.
    public static let deckEmpty = DiagnosticCode(rawValue: "deck.empty")
    /// A card with an empty front or back.
    public static let deckEmptySide = DiagnosticCode(rawValue: "deck.empty-side")
    /// Two cards of one deck with the same front.
    public static let deckDuplicateCard = DiagnosticCode(rawValue: "deck.duplicate-card")
    /// Two cards of one deck with the same ID.
    public static let deckDuplicateID = DiagnosticCode(rawValue: "deck.duplicate-id")

    // Drawings
    /// A `.drawing` description that cannot be read: no scene, too large, too many rows or places.
    public static let drawingInvalid = DiagnosticCode(rawValue: "drawing.invalid")
    /// A place in a `.drawing` description names no shape, light or sound the drawing knows.
    public static let drawingUnknownShape = DiagnosticCode(rawValue: "drawing.unknown-shape")

    // Item and card identity
    /// A checklist item or card without an explicit ID: its derived ID changes with its text.
    public static let idDerived = DiagnosticCode(rawValue: "id.derived")

    // Translations
    /// Translations of a checklist or deck whose item or card IDs differ.
    public static let translationMismatch = DiagnosticCode(rawValue: "translation.mismatch")
    /// A document with no translation into one of the vault's locales (reported under --strict).
    public static let translationMissing = DiagnosticCode(rawValue: "translation.missing")

    // Site

    /// A landing page lacks a key it needs (a headline, a section's title).
    public static let pageMissingKey = DiagnosticCode(rawValue: "page.missing-key")
    /// A landing page has a key the site does not show: usually a typo.
    public static let pageUnknownKey = DiagnosticCode(rawValue: "page.unknown-key")
    /// A landing page's `{{…}}` counts nothing, or names a checklist or deck there is none of.
    public static let pageInvalidCount = DiagnosticCode(rawValue: "page.invalid-count")
    /// A landing page's ID names a folder of the site's own (`guides`, `assets`, a locale, `b`).
    public static let pageReservedID = DiagnosticCode(rawValue: "page.reserved-id")
    /// A template of the vault's `templates/` folder cannot be parsed.
    public static let templateInvalid = DiagnosticCode(rawValue: "template.invalid")
}
