/// A node of the CommonMark + GFM tree, as plain Swift values with source positions.
///
/// Produced by ``MarkdownParser``, the only code that talks to cmark-gfm.
struct MarkdownNode: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case document
        case blockQuote
        case list(ordered: Bool, start: Int, tight: Bool)
        /// A list item; `task` is nil for a plain item, else whether the box is ticked.
        case item(task: Bool?)
        case codeBlock(info: String)
        case htmlBlock
        case paragraph
        case heading(level: Int)
        case thematicBreak
        case table(alignments: [Character])
        case tableRow(header: Bool)
        case tableCell
        case text
        case softBreak
        case lineBreak
        case code
        case htmlInline
        case emphasis
        case strong
        case strikethrough
        case link(url: String, title: String)
        case image(url: String, title: String)
        /// Anything else cmark may produce (footnotes, custom nodes): kept by name.
        case other(String)
    }

    var kind: Kind
    /// The node's literal text (text, code, code blocks, HTML).
    var literal: String
    /// 1-based line and UTF-8 byte column where the node starts, 0 when cmark gives none.
    var startLine: Int
    var startColumn: Int
    var endLine: Int
    var endColumn: Int
    var children: [MarkdownNode]
}
