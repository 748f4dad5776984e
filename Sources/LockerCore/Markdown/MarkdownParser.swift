import CCmarkGFM
import Foundation

/// Parses CommonMark with GitHub's extensions, and reads cmark's tree through ``MarkdownNode``.
///
/// The only file that imports cmark-gfm: every C object is freed before `parse` returns, and the
/// nodes it hands out are used only inside its closure.
enum MarkdownParser {
    private static let registered: Bool = {
        cmark_gfm_core_extensions_ensure_registered()
        return true
    }()

    private static let extensionNames = ["table", "strikethrough", "autolink", "tasklist"]

    /// Held while cmark parses a document's inlines. cmark-gfm (0.29.0.gfm.6) keeps the
    /// characters its inline extensions start at in one table for every parser, adds them when a
    /// parser reaches its inlines and takes them out when it is done: a note parsed while another
    /// finishes could read `~~two~~` as text (github/cmark-gfm#176). Inline parsing is a small
    /// part of a note's parse, so notes still parse side by side.
    private static let inlines = NSLock()

    /// Parses a whole document and hands its root to `body`. Never fails: cmark accepts any text.
    ///
    /// The tree lives only while `body` runs: no ``MarkdownNode`` may leave it.
    static func parse<Result>(_ text: String, _ body: (MarkdownNode) -> Result) -> Result {
        _ = registered
        let options = CMARK_OPT_SOURCEPOS | CMARK_OPT_FOOTNOTES
        // Without memory for a parser or a tree, the note reads as empty: a nil node has no children.
        guard let parser = cmark_parser_new(options) else { return body(MarkdownNode(pointer: nil)) }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let syntax = cmark_find_syntax_extension(name) {
                cmark_parser_attach_syntax_extension(parser, syntax)
            }
        }
        let math = MathRegions.protect(text)
        let protected = EscapedPunctuation.protect(math?.text ?? text)
        var text = protected ?? math?.text ?? text
        text.withUTF8 { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    cmark_parser_feed(parser, $0, buffer.count)
                }
            }
        }
        inlines.lock()
        let finished = cmark_parser_finish(parser)
        inlines.unlock()
        guard let root = finished else { return body(MarkdownNode(pointer: nil)) }
        defer { cmark_node_free(root) }
        let context = MarkdownNode.Context(standIns: protected != nil, math: math?.math ?? MathRegions())
        return body(MarkdownNode(pointer: root, context: context))
    }

    fileprivate static func string(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    fileprivate static func kind(of node: OpaquePointer, context: MarkdownNode.Context?) -> MarkdownNode.Kind {
        let standIns = context?.standIns ?? false
        // URLs, titles and info strings have their escapes resolved, as text has.
        func string(_ pointer: UnsafePointer<CChar>?) -> String {
            let text = MarkdownParser.string(pointer)
            return standIns ? EscapedPunctuation.restored(text) : text
        }
        // Core nodes by their type; extension nodes (tables, strikethrough, task items) by name.
        if cmark_node_get_syntax_extension(node) == nil {
            switch cmark_node_get_type(node) {
            case CMARK_NODE_FOOTNOTE_REFERENCE:
                // cmark numbers footnotes in the order they are first referenced, and gives a
                // reference its definition's number as its text.
                return .footnoteReference(number: Int(MarkdownParser.string(cmark_node_get_literal(node))) ?? 0)
            case CMARK_NODE_FOOTNOTE_DEFINITION: return .footnoteDefinition
            case CMARK_NODE_DOCUMENT: return .document
            case CMARK_NODE_PARAGRAPH: return .paragraph
            case CMARK_NODE_TEXT: return .text
            case CMARK_NODE_SOFTBREAK: return .softBreak
            case CMARK_NODE_STRONG: return .strong
            case CMARK_NODE_EMPH: return .emphasis
            case CMARK_NODE_ITEM: return .item(task: nil)
            default: break
            }
        }
        let name = string(cmark_node_get_type_string(node))
        switch name {
        case "document": return .document
        case "block_quote": return .blockQuote
        case "list":
            return .list(
                ordered: cmark_node_get_list_type(node) == CMARK_ORDERED_LIST,
                start: Int(cmark_node_get_list_start(node)),
                tight: cmark_node_get_list_tight(node) != 0)
        case "item": return .item(task: nil)
        case "tasklist": return .item(task: cmark_gfm_extensions_get_tasklist_item_checked(node))
        case "code_block":
            let info = string(cmark_node_get_fence_info(node))
            // A `math` block, GitHub's form, or Obsidian's `$$` made into one (``MathRegions``).
            if info == "math" {
                let line = Int(cmark_node_get_start_line(node))
                var literal = MarkdownParser.string(cmark_node_get_literal(node))
                if literal.hasSuffix("\n") { literal.removeLast() }
                return .mathBlock(tex: context?.math.display[line] ?? literal)
            }
            return .codeBlock(info: info)
        case "html_block": return .htmlBlock
        case "paragraph": return .paragraph
        case "heading": return .heading(level: Int(cmark_node_get_heading_level(node)))
        case "thematic_break": return .thematicBreak
        case "table":
            let columns = Int(cmark_gfm_extensions_get_table_columns(node))
            var alignments: [Character] = []
            if let raw = cmark_gfm_extensions_get_table_alignments(node) {
                for index in 0..<columns {
                    let byte = raw[index]
                    alignments.append(byte == 0 ? "n" : Character(Unicode.Scalar(byte)))
                }
            }
            return .table(alignments: alignments)
        case "table_row", "table_header":
            return .tableRow(header: cmark_gfm_extensions_get_table_row_is_header(node) != 0)
        case "table_cell": return .tableCell
        case "text": return .text
        case "softbreak": return .softBreak
        case "linebreak": return .lineBreak
        case "code":
            if let math = context?.math, !math.isEmpty,
                let found = math.inlineMath(
                    line: Int(cmark_node_get_start_line(node)),
                    literal: MarkdownParser.string(cmark_node_get_literal(node)))
            {
                return .math(tex: found.tex, display: found.display)
            }
            return .code
        case "html_inline": return .htmlInline
        case "emph": return .emphasis
        case "strong": return .strong
        case "strikethrough": return .strikethrough
        case "link":
            // An autolink (`<http://…>`, a bare URL) is its own text: there backslashes escape
            // nothing, so its stand-ins turn back into the backslashes written.
            let url = MarkdownParser.string(cmark_node_get_url(node))
            let text = cmark_node_first_child(node).map { MarkdownParser.string(cmark_node_get_literal($0)) }
            let isAutolink = text.map { url == $0 || url == "mailto:" + $0 } ?? false
            let written =
                !standIns
                ? url : (isAutolink ? EscapedPunctuation.restoredVerbatim(url) : EscapedPunctuation.restored(url))
            return .link(url: written, title: string(cmark_node_get_title(node)))
        case "image":
            return .image(url: string(cmark_node_get_url(node)), title: string(cmark_node_get_title(node)))
        default: return .other(name)
        }
    }
}

extension MarkdownNode {
    /// What the node is, with what its kind carries.
    var kind: Kind {
        guard let pointer else { return .document }
        return MarkdownParser.kind(of: pointer, context: context)
    }

    /// The node's literal text (text, code, code blocks, HTML). Text keeps the stand-ins of
    /// escaped syntax characters (``EscapedPunctuation``), for the Obsidian pass to read as text
    /// and restore; code and HTML get their escapes back, as written.
    var literal: String {
        guard let pointer else { return "" }
        let text = MarkdownParser.string(cmark_node_get_literal(pointer))
        guard standIns, cmark_node_get_type(pointer) != CMARK_NODE_TEXT else { return text }
        return EscapedPunctuation.restoredVerbatim(text)
    }

    /// The 1-based line where the node starts, 0 when cmark gives none.
    var startLine: Int { pointer.map { Int(cmark_node_get_start_line($0)) } ?? 0 }
    /// The 1-based UTF-8 byte column where the node starts, 0 when cmark gives none.
    var startColumn: Int { pointer.map { Int(cmark_node_get_start_column($0)) } ?? 0 }
    /// The 1-based line where the node ends, 0 when cmark gives none.
    var endLine: Int { pointer.map { Int(cmark_node_get_end_line($0)) } ?? 0 }

    /// The node's children, in order.
    var children: [MarkdownNode] {
        var result: [MarkdownNode] = []
        var child = pointer.flatMap { cmark_node_first_child($0) }
        while let node = child {
            result.append(MarkdownNode(pointer: node, context: context))
            child = cmark_node_next(node)
        }
        return result
    }
}
