/// A block of a document's body, as an app renders it natively.
public struct Block: Sendable, Hashable, Codable {
    /// What the block is, with its content.
    public var content: Content
    /// The Obsidian block ID (`^id`) the author gave this block, if any.
    public var blockID: String?

    public init(_ content: Content, blockID: String? = nil) {
        self.content = content
        self.blockID = blockID
    }

    /// The kinds of block.
    public enum Content: Sendable, Hashable {
        /// A paragraph of inline spans.
        case paragraph([Span])
        /// A bullet, ordered or task list.
        case list(List)
        /// An Obsidian callout: `> [!warning] Title`.
        indirect case callout(Callout)
        /// A block quote.
        case quote([Block])
        /// A code block, shown verbatim.
        case code(language: String?, text: String)
        /// Display math: TeX, as Obsidian's `$$…$$` holds it (1.3).
        case math(String)
        /// A table with a header row.
        case table(Table)
        /// An image, from the bundle's assets or a URL.
        indirect case image(Image)
        /// Another note, or a section or block of one, shown in place (Obsidian's `![[Note]]`).
        indirect case embed(Embed)
        /// A thematic break.
        case rule
    }

    /// Transcluded content, resolved at build time.
    public struct Embed: Sendable, Hashable, Codable {
        /// The document (and anchor) the content comes from.
        public var target: LinkTarget
        /// The embedded document's title, or the section's.
        public var title: String
        public var blocks: [Block]
        public var sections: [Section]

        public init(target: LinkTarget, title: String, blocks: [Block], sections: [Section]) {
            self.target = target
            self.title = title
            self.blocks = blocks
            self.sections = sections
        }
    }

    /// A list and its items.
    public struct List: Sendable, Hashable, Codable {
        /// `bullet`, `ordered` or `task`.
        public var style: Style
        /// The first number of an ordered list.
        public var start: Int?
        public var items: [Item]

        public init(style: Style, start: Int? = nil, items: [Item]) {
            self.style = style
            self.start = start
            self.items = items
        }

        /// How a list's items are marked.
        public enum Style: String, Sendable, Hashable, Codable { case bullet, ordered, task }

        /// One list item: its blocks, and for task lists whether it is ticked.
        public struct Item: Sendable, Hashable, Codable {
            public var checked: Bool?
            public var blocks: [Block]
            public var blockID: String?

            public init(checked: Bool? = nil, blocks: [Block], blockID: String? = nil) {
                self.checked = checked
                self.blocks = blocks
                self.blockID = blockID
            }
        }
    }

    /// An Obsidian callout.
    public struct Callout: Sendable, Hashable, Codable {
        /// The callout type as written, lowercased: `note`, `warning`, `danger`, `tip`, ….
        public var calloutType: String
        /// The title the author wrote after the type, if any.
        public var title: [Span]?
        /// `open` for `+`, `closed` for `-`, absent when the callout does not fold.
        public var fold: Fold?
        public var blocks: [Block]

        public init(calloutType: String, title: [Span]?, fold: Fold?, blocks: [Block]) {
            self.calloutType = calloutType
            self.title = title
            self.fold = fold
            self.blocks = blocks
        }

        /// Whether a foldable callout starts open or closed.
        public enum Fold: String, Sendable, Hashable, Codable { case open, closed }
    }

    /// A table: column alignments, a header row and body rows of cells.
    public struct Table: Sendable, Hashable, Codable {
        public var align: [Alignment]
        public var header: [[Span]]
        public var rows: [[[Span]]]

        public init(align: [Alignment], header: [[Span]], rows: [[[Span]]]) {
            self.align = align
            self.header = header
            self.rows = rows
        }

        /// A column's alignment.
        public enum Alignment: String, Sendable, Hashable, Codable { case none, left, center, right }
    }

    /// An image: a bundle asset path (relative to the bundle root) or an external URL.
    public struct Image: Sendable, Hashable, Codable {
        public var src: String
        public var alt: String
        public var width: Int?
        public var height: Int?

        public init(src: String, alt: String, width: Int? = nil, height: Int? = nil) {
            self.src = src
            self.alt = alt
            self.width = width
            self.height = height
        }
    }
}

extension Block {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: JSONKey.self)
        blockID = try container.decodeIfPresent(String.self, forKey: "blockID")
        switch try container.decode(String.self, forKey: "type") {
        case "paragraph": content = .paragraph(try container.decode([Span].self, forKey: "spans"))
        case "list": content = .list(try container.decode(List.self, forKey: "list"))
        case "callout": content = .callout(try container.decode(Callout.self, forKey: "callout"))
        case "quote": content = .quote(try container.decode([Block].self, forKey: "blocks"))
        case "code":
            content = .code(
                language: try container.decodeIfPresent(String.self, forKey: "language"),
                text: try container.decode(String.self, forKey: "text"))
        case "math": content = .math(try container.decode(String.self, forKey: "text"))
        case "table": content = .table(try container.decode(Table.self, forKey: "table"))
        case "image": content = .image(try container.decode(Image.self, forKey: "image"))
        case "embed": content = .embed(try container.decode(Embed.self, forKey: "embed"))
        case "rule": content = .rule
        default:
            // A block type from a newer minor version: show nothing rather than fail the document.
            content = .paragraph([])
        }
    }

    public func encode(to encoder: any Encoder) throws { try encodeMembers(to: encoder) }
}

extension Block: CanonicalJSONObject {
    package func writeMembers(to json: inout some CanonicalJSONMembers) {
        json.member("blockID", blockID)
        switch content {
        case .paragraph(let spans):
            json.member("spans", spans)
            json.member("type", "paragraph")
        case .list(let list):
            json.member("list", list)
            json.member("type", "list")
        case .callout(let callout):
            json.member("callout", callout)
            json.member("type", "callout")
        case .quote(let blocks):
            json.member("blocks", blocks)
            json.member("type", "quote")
        case .code(let language, let text):
            json.member("language", language)
            json.member("text", text)
            json.member("type", "code")
        case .math(let tex):
            json.member("text", tex)
            json.member("type", "math")
        case .table(let table):
            json.member("table", table)
            json.member("type", "table")
        case .image(let image):
            json.member("image", image)
            json.member("type", "image")
        case .embed(let embed):
            json.member("embed", embed)
            json.member("type", "embed")
        case .rule:
            json.member("type", "rule")
        }
    }
}

extension Block.Embed: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("blocks", blocks)
            json.member("sections", sections)
            json.member("target", target)
            json.member("title", title)
        }
    }
}

extension Block.List: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("items", items)
            json.member("start", start)
            json.member("style", style.rawValue)
        }
    }
}

extension Block.List.Item: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("blockID", blockID)
            json.member("blocks", blocks)
            json.member("checked", checked)
        }
    }
}

extension Block.Callout: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("blocks", blocks)
            json.member("calloutType", calloutType)
            json.member("fold", fold?.rawValue)
            json.member("title", title)
        }
    }
}

extension Block.Table: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("align", align.map(\.rawValue))
            json.member("header", header)
            json.member("rows", rows)
        }
    }
}

extension Block.Image: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("alt", alt)
            json.member("height", height)
            json.member("src", src)
            json.member("width", width)
        }
    }
}
