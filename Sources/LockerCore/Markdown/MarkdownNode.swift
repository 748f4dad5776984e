/// A node of the CommonMark + GFM tree, read in place: nothing is copied out of cmark's tree
/// but what a reader asks for.
///
/// Handed out by ``MarkdownParser/parse(_:_:)``, the only code that talks to cmark-gfm, and valid
/// only inside its closure, while the tree lives.
struct MarkdownNode {
    enum Kind: Sendable, Hashable {
        case document
        case blockQuote
        case list(ordered: Bool, start: Int, tight: Bool)
        /// A list item; `task` is nil for a plain item, else whether the box is ticked.
        case item(task: Bool?)
        case codeBlock(info: String)
        /// Display math: `$$…$$` on lines of its own, or a `math` code block.
        case mathBlock(tex: String)
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
        /// Math, `$…$`, or `$$…$$` (`display`): the line breaks inside it and how far its last
        /// line starts past its first, which cmark leaves out of the positions of what follows.
        case math(tex: String, display: Bool, newlines: Int, columnShift: Int)
        case htmlInline
        case emphasis
        case strong
        case strikethrough
        case link(url: String, title: String)
        case image(url: String, title: String)
        /// `[^label]`, with the number cmark gave its definition.
        case footnoteReference(number: Int)
        /// `[^label]: text`: cmark moves the definitions referenced to the end of the document, in
        /// the order of their numbers, and drops the others.
        case footnoteDefinition
        /// Anything else cmark may produce (custom nodes): kept by name.
        case other(String)
    }

    /// The node in cmark's tree; valid only inside ``MarkdownParser/parse(_:_:)``'s closure.
    /// Nil only for the empty document given when cmark could not allocate.
    let pointer: OpaquePointer?
    /// Whether the text was read with stand-ins for escaped syntax characters
    /// (``EscapedPunctuation``), which the node's strings give back.
    var standIns = false

    // Its kind, literal, positions and children are read from cmark in MarkdownParser.swift.
}
