/// A practice module: a briefing, safety guide or procedure, with nested sections.
public struct Guide: Sendable, Hashable, Codable {
    /// The document's ID, unique among guides: frontmatter `id`, else a slug of its path.
    public var id: String
    /// The UUIDv5 of `guide/<id>` (see ``ContentIdentity``): the same in every build and locale.
    public var uuid: String
    public var locale: String
    public var title: String
    public var subtitle: String?
    /// `briefing`, `knots`, `maneuvering`, `mooring` or `safety`.
    public var category: String?
    /// `document`, `briefing` or `checklist`: how the app presents the module.
    public var type: String
    public var tags: [String]
    public var aliases: [String]
    public var order: Int?
    /// The note's path inside the vault, for "edit this page" links and error reports.
    public var source: String
    /// Frontmatter keys Locker does not know, as they were written.
    public var extra: [String: JSONValue]
    /// Blocks before the first section.
    public var blocks: [Block]
    /// H2 sections, each with its H3 and H4 subsections.
    public var sections: [Section]

    public init(
        id: String, uuid: String, locale: String, title: String, subtitle: String?, category: String?,
        type: String, tags: [String], aliases: [String], order: Int?, source: String,
        extra: [String: JSONValue], blocks: [Block], sections: [Section]
    ) {
        self.id = id
        self.uuid = uuid
        self.locale = locale
        self.title = title
        self.subtitle = subtitle
        self.category = category
        self.type = type
        self.tags = tags
        self.aliases = aliases
        self.order = order
        self.source = source
        self.extra = extra
        self.blocks = blocks
        self.sections = sections
    }
}

/// A heading and everything under it down to the next heading of the same or a higher level.
public struct Section: Sendable, Hashable, Codable {
    /// The anchor a link `[[Note#Heading]]` points at: a slug of the heading, unique in the document.
    public var anchor: String
    /// 2, 3 or 4.
    public var level: Int
    public var title: String
    /// The heading with its inline formatting.
    public var titleSpans: [Span]
    public var blocks: [Block]
    public var sections: [Section]

    public init(anchor: String, level: Int, title: String, titleSpans: [Span], blocks: [Block], sections: [Section]) {
        self.anchor = anchor
        self.level = level
        self.title = title
        self.titleSpans = titleSpans
        self.blocks = blocks
        self.sections = sections
    }
}

extension Guide: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("aliases", aliases)
            json.member("blocks", blocks)
            json.member("category", category)
            json.member("extra", extra)
            json.member("id", id)
            json.member("locale", locale)
            json.member("order", order)
            json.member("sections", sections)
            json.member("source", source)
            json.member("subtitle", subtitle)
            json.member("tags", tags)
            json.member("title", title)
            json.member("type", type)
            json.member("uuid", uuid)
        }
    }
}

extension Section: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("anchor", anchor)
            json.member("blocks", blocks)
            json.member("level", level)
            json.member("sections", sections)
            json.member("title", title)
            json.member("titleSpans", titleSpans)
        }
    }
}
