import Foundation

extension Array where Element == Block {
    /// The blocks as plain text: paragraphs separated by blank lines, lists with `•` or numbers,
    /// callouts and quotes indented with `│`, tables as ` | `-separated rows, images as their alt
    /// text. For terminals, notifications and accessibility; apps render the blocks themselves.
    public var plainText: String {
        map(\.plainText).filter { !$0.isEmpty }.joined(separator: "\n\n")
    }
}

extension Block {
    /// The block as plain text (see `[Block].plainText`).
    public var plainText: String {
        switch content {
        case .paragraph(let spans):
            guard spans.contains(where: Self.holdsFootnote) else { return spans.plainText }
            // Footnotes as `[1]` in the text, and their text under the paragraph.
            var footnotes: [Footnote] = []
            let text = Self.text(spans, footnotes: &footnotes)
            return ([text] + footnotes.map { Self.hang($0.blocks.plainText, marker: "[\($0.number)] ") })
                .joined(separator: "\n")
        case .list(let list):
            return list.items.enumerated().map { offset, item in
                let marker =
                    switch list.style {
                    case .bullet: "• "
                    case .ordered: "\((list.start ?? 1) + offset). "
                    case .task: item.checked == true ? "[x] " : "[ ] "
                    }
                return Self.hang(item.blocks.plainText, marker: marker)
            }.joined(separator: "\n")
        case .callout(let callout):
            let title = callout.title?.plainText ?? callout.calloutType.capitalized
            return Self.prefix([title, callout.blocks.plainText].filter { !$0.isEmpty }.joined(separator: "\n"), "│ ")
        case .quote(let blocks):
            return Self.prefix(blocks.plainText, "│ ")
        case .code(_, let text), .math(let text):
            return Self.prefix(text, "    ")
        case .table(let table):
            return ([table.header] + table.rows).map { $0.map(\.plainText).joined(separator: " | ") }.joined(
                separator: "\n")
        case .image(let image):
            return image.alt.isEmpty ? "" : "[\(image.alt)]"
        case .embed(let embed):
            return [embed.title, embed.blocks.plainText].filter { !$0.isEmpty }.joined(separator: "\n\n")
        case .rule:
            return "———"
        }
    }

    private static func holdsFootnote(_ span: Span) -> Bool {
        switch span {
        case .footnote: true
        case .bold(let children), .italic(let children), .strikethrough(let children), .highlight(let children),
            .link(_, let children):
            children.contains(where: holdsFootnote)
        default: false
        }
    }

    /// The spans' text with each footnote as its number, gathering the footnotes that carry text.
    private static func text(_ spans: [Span], footnotes: inout [Footnote]) -> String {
        var result = ""
        for span in spans {
            switch span {
            case .footnote(let footnote):
                if !footnote.blocks.isEmpty { footnotes.append(footnote) }
                result += "[\(footnote.number)]"
            case .bold(let children), .italic(let children), .strikethrough(let children), .highlight(let children),
                .link(_, let children):
                result += text(children, footnotes: &footnotes)
            default:
                result += [span].plainText
            }
        }
        return result
    }

    private static func prefix(_ text: String, _ prefix: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }.joined(separator: "\n")
    }

    private static func hang(_ text: String, marker: String) -> String {
        let indent = String(repeating: " ", count: marker.count)
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .map { $0.offset == 0 ? marker + $0.element : indent + $0.element }.joined(separator: "\n")
    }
}

extension Section {
    /// The section as plain text: its heading, its blocks (`[Block].plainText`), then each
    /// subsection the same way, separated by blank lines.
    public var plainText: String {
        ([title, blocks.plainText] + sections.map(\.plainText)).filter { !$0.isEmpty }.joined(separator: "\n\n")
    }
}
