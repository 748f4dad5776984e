/// A run of inline text, as an app renders it without a markdown parser.
public enum Span: Sendable, Hashable {
    /// Plain text.
    case text(String)
    /// Strong emphasis.
    case bold([Span])
    /// Emphasis.
    case italic([Span])
    /// Struck-through text.
    case strikethrough([Span])
    /// Obsidian's `==highlight==`.
    case highlight([Span])
    /// Inline code, shown verbatim.
    case code(String)
    /// Inline math: TeX, as Obsidian's `$…$` holds it (1.3).
    case math(String)
    /// A link to another document or to a URL.
    indirect case link(LinkTarget, [Span])
    /// An Obsidian `#tag`, without the `#`.
    case tag(String)
    /// A hard line break.
    case lineBreak
    /// A footnote, where its note refers to it: an app shows the number, and the footnote's
    /// blocks beside it, on demand or at the end.
    indirect case footnote(Footnote)
}

/// A footnote: Markdown's `[^label]` with its `[^label]: …` definition, or Obsidian's inline `^[…]`.
public struct Footnote: Sendable, Hashable, Codable {
    /// 1, 2, … in the order the note first refers to its footnotes; every reference to one
    /// footnote has its number.
    public var number: Int
    /// The footnote's text, usually one paragraph, at the note's first reference to it; empty
    /// at a later reference, which shows the number alone.
    public var blocks: [Block]

    public init(number: Int, blocks: [Block]) {
        self.number = number
        self.blocks = blocks
    }
}

/// Where a link goes: a resolved document of the bundle, or an external URL.
public enum LinkTarget: Sendable, Hashable, Codable {
    /// A document in the same bundle, optionally at a section anchor or block ID.
    case document(kind: ContentKind, id: String, uuid: String, anchor: String?)
    /// An external `http`, `https`, `mailto` or `tel` URL.
    case url(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: JSONKey.self)
        if let url = try container.decodeIfPresent(String.self, forKey: "url") {
            self = .url(url)
        } else {
            self = .document(
                kind: try container.decode(ContentKind.self, forKey: "kind"),
                id: try container.decode(String.self, forKey: "id"),
                uuid: try container.decode(String.self, forKey: "uuid"),
                anchor: try container.decodeIfPresent(String.self, forKey: "anchor"))
        }
    }

    public func encode(to encoder: any Encoder) throws { try encodeMembers(to: encoder) }
}

extension Span: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: JSONKey.self)
        let type = try container.decode(String.self, forKey: "type")
        func children() throws -> [Span] { try container.decode([Span].self, forKey: "children") }
        switch type {
        case "text": self = .text(try container.decode(String.self, forKey: "text"))
        case "bold": self = .bold(try children())
        case "italic": self = .italic(try children())
        case "strikethrough": self = .strikethrough(try children())
        case "highlight": self = .highlight(try children())
        case "code": self = .code(try container.decode(String.self, forKey: "text"))
        case "math": self = .math(try container.decode(String.self, forKey: "text"))
        case "link": self = .link(try container.decode(LinkTarget.self, forKey: "target"), try children())
        case "tag": self = .tag(try container.decode(String.self, forKey: "text"))
        case "lineBreak": self = .lineBreak
        case "footnote":
            self = .footnote(
                Footnote(
                    number: try container.decode(Int.self, forKey: "number"),
                    blocks: try container.decode([Block].self, forKey: "blocks")))
        default:
            // A span type from a newer minor version: keep its text if it has any.
            self = .text((try? container.decode(String.self, forKey: "text")) ?? "")
        }
    }

    public func encode(to encoder: any Encoder) throws { try encodeMembers(to: encoder) }
}

extension Array where Element == Span {
    /// The spans' text without formatting: for titles, search and accessibility labels.
    public var plainText: String {
        map { span -> String in
            switch span {
            case .text(let text), .code(let text), .math(let text): text
            case .tag(let text): "#" + text
            case .lineBreak: "\n"
            // A footnote is read apart from the text it annotates.
            case .footnote: ""
            case .bold(let children), .italic(let children), .strikethrough(let children),
                .highlight(let children), .link(_, let children):
                children.plainText
            }
        }.joined()
    }
}

extension LinkTarget: CanonicalJSONObject {
    package func writeMembers(to json: inout some CanonicalJSONMembers) {
        switch self {
        case .url(let url):
            json.member("url", url)
        case .document(let kind, let id, let uuid, let anchor):
            json.member("anchor", anchor)
            json.member("id", id)
            json.member("kind", kind.rawValue)
            json.member("uuid", uuid)
        }
    }
}

extension Span: CanonicalJSONObject {
    package func writeMembers(to json: inout some CanonicalJSONMembers) {
        switch self {
        case .text(let text):
            json.member("text", text)
            json.member("type", "text")
        case .bold(let children):
            json.member("children", children)
            json.member("type", "bold")
        case .italic(let children):
            json.member("children", children)
            json.member("type", "italic")
        case .strikethrough(let children):
            json.member("children", children)
            json.member("type", "strikethrough")
        case .highlight(let children):
            json.member("children", children)
            json.member("type", "highlight")
        case .code(let text):
            json.member("text", text)
            json.member("type", "code")
        case .math(let tex):
            json.member("text", tex)
            json.member("type", "math")
        case .link(let target, let children):
            json.member("children", children)
            json.member("target", target)
            json.member("type", "link")
        case .tag(let text):
            json.member("text", text)
            json.member("type", "tag")
        case .lineBreak:
            json.member("type", "lineBreak")
        case .footnote(let footnote):
            json.member("blocks", footnote.blocks)
            json.member("number", footnote.number)
            json.member("type", "footnote")
        }
    }
}
