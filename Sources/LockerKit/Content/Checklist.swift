/// A checklist: sections of subsections of items a crew ticks off, such as a charter check-in.
///
/// Every part has an `id` and a `uuid`. Item IDs are unique within the checklist and the same in
/// every translation, so an app keys a user's progress by item and keeps it through content updates.
/// Counts are precomputed so an app can show "X/Y" without walking the tree.
public struct Checklist: Sendable, Hashable, Codable {
    /// The checklist's ID, unique among checklists: frontmatter `id`, else a slug of its path.
    public var id: String
    /// The UUIDv5 of `checklist/<id>` (see ``ContentIdentity``): the same in every build and locale.
    public var uuid: String
    public var locale: String
    public var title: String
    public var subtitle: String?
    /// When in a charter the checklist is used, or `reference` for one not tied to a charter.
    public var checklistType: ChecklistType
    public var tags: [String]
    public var aliases: [String]
    public var order: Int?
    /// The note's path inside the vault.
    public var source: String
    /// Frontmatter keys Locker does not know, as they were written.
    public var extra: [String: JSONValue]
    /// Text before the first section: what the checklist is for.
    public var blocks: [Block]
    /// How many items the checklist has in all.
    public var itemCount: Int
    public var sections: [ChecklistSection]

    public init(
        id: String, uuid: String, locale: String, title: String, subtitle: String?, checklistType: ChecklistType,
        tags: [String], aliases: [String], order: Int?, source: String, extra: [String: JSONValue], blocks: [Block],
        sections: [ChecklistSection]
    ) {
        self.id = id
        self.uuid = uuid
        self.locale = locale
        self.title = title
        self.subtitle = subtitle
        self.checklistType = checklistType
        self.tags = tags
        self.aliases = aliases
        self.order = order
        self.source = source
        self.extra = extra
        self.blocks = blocks
        self.sections = sections
        self.itemCount = sections.reduce(0) { $0 + $1.itemCount }
    }

    /// Every item, in order.
    public var items: [ChecklistItem] { sections.flatMap { $0.subsections.flatMap(\.items) } }
}

/// When a checklist is used. A string-backed struct, so a later minor version can add types.
public struct ChecklistType: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Before the charter: booking, documents, packing.
    public static let preCharter = ChecklistType(rawValue: "preCharter")
    /// Accepting the yacht from the charter company.
    public static let checkIn = ChecklistType(rawValue: "checkIn")
    /// Every day aboard, or before leaving a berth.
    public static let daily = ChecklistType(rawValue: "daily")
    /// Returning the yacht.
    public static let postCharter = ChecklistType(rawValue: "postCharter")
    /// Not tied to a charter: read when needed.
    public static let reference = ChecklistType(rawValue: "reference")

    /// Every type this version of the schema defines.
    public static let known: [ChecklistType] = [.preCharter, .checkIn, .daily, .postCharter, .reference]

    /// Whether a checklist of this type is run once per charter (every type but `reference`).
    public var isCharterScoped: Bool { self != .reference }

    public var description: String { rawValue }
}

/// An H2 of a checklist: a part of the boat or of the procedure.
public struct ChecklistSection: Sendable, Hashable, Codable {
    /// The heading's `^id` if it has one, else an ASCII slug of its text; unique in the checklist.
    public var id: String
    /// The UUIDv5 of `checklist/<checklist id>/section/<id>`.
    public var uuid: String
    /// The anchor a link `[[Checklist#Heading]]` points at.
    public var anchor: String
    public var title: String
    public var titleSpans: [Span]
    /// Text under the heading that is not an item: advice for the whole section.
    public var note: [Block]
    public var itemCount: Int
    /// The section's subsections; items written directly under the H2 form the first, untitled one.
    public var subsections: [ChecklistSubsection]

    public init(
        id: String, uuid: String, anchor: String, title: String, titleSpans: [Span], note: [Block],
        subsections: [ChecklistSubsection]
    ) {
        self.id = id
        self.uuid = uuid
        self.anchor = anchor
        self.title = title
        self.titleSpans = titleSpans
        self.note = note
        self.subsections = subsections
        self.itemCount = subsections.reduce(0) { $0 + $1.itemCount }
    }
}

/// An H3 of a checklist, or the untitled group of items directly under an H2.
public struct ChecklistSubsection: Sendable, Hashable, Codable {
    /// The heading's `^id` or an ASCII slug of its text; for the untitled group, the section's ID.
    public var id: String
    /// The UUIDv5 of `checklist/<checklist id>/subsection/<section id>/<id>`.
    public var uuid: String
    public var anchor: String?
    /// Absent for the untitled group of items directly under the section's heading.
    public var title: String?
    public var titleSpans: [Span]?
    public var note: [Block]
    public var itemCount: Int
    public var items: [ChecklistItem]

    public init(
        id: String, uuid: String, anchor: String?, title: String?, titleSpans: [Span]?, note: [Block],
        items: [ChecklistItem]
    ) {
        self.id = id
        self.uuid = uuid
        self.anchor = anchor
        self.title = title
        self.titleSpans = titleSpans
        self.note = note
        self.items = items
        self.itemCount = items.count
    }
}

/// One thing to check.
public struct ChecklistItem: Sendable, Hashable, Codable {
    /// The item's `^id` when the author gave one (see `explicitID`), else derived from its
    /// section and title; unique in the checklist. A written ID is shared by every translation.
    public var id: String
    /// The UUIDv5 of `checklist/<checklist id>/item/<id>`: what progress is keyed by.
    public var uuid: String
    /// The first line of the item, as plain text.
    public var title: String
    public var titleSpans: [Span]
    /// The item's indented continuation: what to look at, what good looks like.
    public var guidance: [Block]
    /// Whether the ID was written in the note (`^id`); a derived ID changes when the text does.
    public var explicitID: Bool

    public init(id: String, uuid: String, title: String, titleSpans: [Span], guidance: [Block], explicitID: Bool) {
        self.id = id
        self.uuid = uuid
        self.title = title
        self.titleSpans = titleSpans
        self.guidance = guidance
        self.explicitID = explicitID
    }
}

extension Checklist: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("aliases", aliases)
            json.member("blocks", blocks)
            json.member("checklistType", checklistType.rawValue)
            json.member("extra", extra)
            json.member("id", id)
            json.member("itemCount", itemCount)
            json.member("locale", locale)
            json.member("order", order)
            json.member("sections", sections)
            json.member("source", source)
            json.member("subtitle", subtitle)
            json.member("tags", tags)
            json.member("title", title)
            json.member("uuid", uuid)
        }
    }
}

extension ChecklistSection: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("anchor", anchor)
            json.member("id", id)
            json.member("itemCount", itemCount)
            json.member("note", note)
            json.member("subsections", subsections)
            json.member("title", title)
            json.member("titleSpans", titleSpans)
            json.member("uuid", uuid)
        }
    }
}

extension ChecklistSubsection: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("anchor", anchor)
            json.member("id", id)
            json.member("itemCount", itemCount)
            json.member("items", items)
            json.member("note", note)
            json.member("title", title)
            json.member("titleSpans", titleSpans)
            json.member("uuid", uuid)
        }
    }
}

extension ChecklistItem: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("explicitID", explicitID)
            json.member("guidance", guidance)
            json.member("id", id)
            json.member("title", title)
            json.member("titleSpans", titleSpans)
            json.member("uuid", uuid)
        }
    }
}
