/// A link to a document of a bundle or to one part of it: a section of a guide or checklist, a
/// checklist item, or a card. The same link has two written forms (``ContentLinkFormat``):
///
/// ```
/// mothership://content/checklist/6fde2e4a-acd5-5489-a413-11c0d7bc9950/item/windlass
/// https://captainslocker.example/en/checklists/check-in/#item-windlass
/// ```
///
/// The app form names the document by its uuid, the web form by its ID and the locale of the
/// page; both name an item or a card by its ID (the same in every translation) and a section by
/// its anchor (a slug of the heading, so of one translation: the app form says which, in
/// `?locale=`). ``ContentBundle/resolve(_:locale:)`` finds what a link names.
public struct ContentLink: Hashable, Sendable {
    /// How a link names its document.
    public enum Document: Hashable, Sendable {
        /// By uuid (lowercase), as the app form does.
        case uuid(String)
        /// By ID, as the web form does.
        case id(String)
    }

    /// The part of a document a link names.
    public enum Part: Hashable, Sendable {
        /// A heading of a guide or a checklist, by its anchor.
        case section(anchor: String)
        /// A checklist item, by its ID.
        case item(id: String)
        /// A deck's card, by its ID.
        case card(id: String)

        /// The word the app form writes before the part's ID: `section`, `item` or `card`.
        public var name: String {
            switch self {
            case .section: "section"
            case .item: "item"
            case .card: "card"
            }
        }

        /// The anchor or ID.
        public var value: String {
            switch self {
            case .section(let anchor): anchor
            case .item(let id), .card(let id): id
            }
        }

        /// Whether a document of `kind` has parts of this sort.
        public func belongs(to kind: ContentKind) -> Bool {
            switch self {
            case .section: kind == .guide || kind == .checklist
            case .item: kind == .checklist
            case .card: kind == .deck
            }
        }
    }

    public var kind: ContentKind
    public var document: Document
    /// `nil` for the whole document.
    public var part: Part?
    /// The locale the link was made in: the page's for the web form, `?locale=` for the app form
    /// (written for sections only). A reader opens the link in their own language.
    public var locale: String?

    public init(kind: ContentKind, document: Document, part: Part? = nil, locale: String? = nil) {
        self.kind = kind
        self.document = document
        self.part = part
        self.locale = locale
    }
}

/// What a link names, found in a bundle: the document in the locale it is read in, and the part.
public struct ContentTarget: Hashable, Sendable {
    public var kind: ContentKind
    /// The document's ID.
    public var id: String
    /// The document's uuid.
    public var uuid: String
    /// The locale of the version found (the reader's, or the one they fall back to).
    public var locale: String
    /// The document's title in that version.
    public var title: String
    /// `nil` for the whole document.
    public var part: ContentLink.Part?
    /// The heading, the item's title or the card's front, as plain text.
    public var partTitle: String?
    /// The uuid of a checklist section, subsection or item, or of a card; `nil` for a guide's
    /// section (it has none) and the whole document.
    public var partUUID: String?

    public init(
        kind: ContentKind, id: String, uuid: String, locale: String, title: String, part: ContentLink.Part? = nil,
        partTitle: String? = nil, partUUID: String? = nil
    ) {
        self.kind = kind
        self.id = id
        self.uuid = uuid
        self.locale = locale
        self.title = title
        self.part = part
        self.partTitle = partTitle
        self.partUUID = partUUID
    }

    /// The link to this target, naming the document by uuid, with the locale for a section.
    public var link: ContentLink {
        let locale: String? = if case .section = part { locale } else { nil }
        return ContentLink(kind: kind, document: .uuid(uuid), part: part, locale: locale)
    }
}

/// What resolving a ``ContentLink`` against a bundle gave.
public enum LinkResolution: Equatable, Sendable {
    /// The document, or its part, in the reader's locale (or its fallback).
    case found(ContentTarget)
    /// A part that the version the reader reads does not have, found in another locale's version
    /// (a section of a translation whose headings differ, or an item not yet translated): the
    /// target there. Open that version, or the document in the reader's.
    case otherLocale(ContentTarget)
    /// No document of the link's kind (nor of any other) has that uuid or ID.
    case notFound(kind: ContentKind, document: String)
    /// The uuid or ID is a document of another kind than the link says.
    case wrongKind(link: ContentKind, actual: ContentKind, id: String)
    /// The document is there, but none of its versions has the part: the document.
    case partNotFound(ContentTarget, ContentLink.Part)
    /// The document's file did not decode.
    case unreadable(BundleError)

    /// The target found, in the reader's locale or another; `nil` for the failures.
    public var target: ContentTarget? {
        switch self {
        case .found(let target), .otherLocale(let target): target
        default: nil
        }
    }
}
