/// A per-kind, per-locale list of documents: what an app shows before it opens any document.
public struct ContentIndex: Sendable, Hashable, Codable {
    public var kind: ContentKind
    public var locale: String
    /// Sorted by `order`, then title, then id.
    public var entries: [Entry]

    public init(kind: ContentKind, locale: String, entries: [Entry]) {
        self.kind = kind
        self.locale = locale
        self.entries = entries
    }

    /// A document's summary. Its file is the manifest entry with the same kind, locale and id.
    public struct Entry: Sendable, Hashable, Codable {
        public var id: String
        public var uuid: String
        public var title: String
        public var subtitle: String?
        public var category: String?
        public var type: String?
        public var tags: [String]
        public var order: Int?
        /// The locale the document was written in: differs from the index's when it fell back.
        public var locale: String
        /// For a checklist: when it is used.
        public var checklistType: ChecklistType?
        /// For a checklist: how many items it has.
        public var itemCount: Int?
        /// For a deck: how many cards it has.
        public var cardCount: Int?

        public init(
            id: String, uuid: String, title: String, subtitle: String?, category: String?, type: String?,
            tags: [String], order: Int?, locale: String, checklistType: ChecklistType? = nil, itemCount: Int? = nil,
            cardCount: Int? = nil
        ) {
            self.checklistType = checklistType
            self.itemCount = itemCount
            self.cardCount = cardCount
            self.id = id
            self.uuid = uuid
            self.title = title
            self.subtitle = subtitle
            self.category = category
            self.type = type
            self.tags = tags
            self.order = order
            self.locale = locale
        }
    }
}

extension ContentIndex: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("entries", entries)
            json.member("kind", kind.rawValue)
            json.member("locale", locale)
        }
    }
}

extension ContentIndex.Entry: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("cardCount", cardCount)
            json.member("category", category)
            json.member("checklistType", checklistType?.rawValue)
            json.member("id", id)
            json.member("itemCount", itemCount)
            json.member("locale", locale)
            json.member("order", order)
            json.member("subtitle", subtitle)
            json.member("tags", tags)
            json.member("title", title)
            json.member("type", type)
            json.member("uuid", uuid)
        }
    }
}
