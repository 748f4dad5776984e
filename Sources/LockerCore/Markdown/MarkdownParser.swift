import CCmarkGFM

/// Parses CommonMark with GitHub's extensions into a ``MarkdownNode`` tree.
///
/// The only file that imports cmark-gfm: every C object is freed before `parse` returns and no
/// pointer leaves it.
enum MarkdownParser {
    private static let registered: Bool = {
        cmark_gfm_core_extensions_ensure_registered()
        return true
    }()

    private static let extensionNames = ["table", "strikethrough", "autolink", "tasklist"]

    /// Parses a whole document. Never fails: cmark accepts any text.
    static func parse(_ text: String) -> MarkdownNode {
        _ = registered
        let options = CMARK_OPT_SOURCEPOS
        guard let parser = cmark_parser_new(options) else { return empty }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let syntax = cmark_find_syntax_extension(name) {
                cmark_parser_attach_syntax_extension(parser, syntax)
            }
        }
        var text = text
        text.withUTF8 { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    cmark_parser_feed(parser, $0, buffer.count)
                }
            }
        }
        guard let root = cmark_parser_finish(parser) else { return empty }
        defer { cmark_node_free(root) }
        return convert(root)
    }

    private static let empty = MarkdownNode(
        kind: .document, literal: "", startLine: 1, startColumn: 1, endLine: 1, endColumn: 1, children: [])

    /// Walks the C tree with an explicit stack, so deep nesting cannot overflow ours.
    private static func convert(_ root: OpaquePointer) -> MarkdownNode {
        var stack: [(node: MarkdownNode, next: OpaquePointer?)] = [(make(root), cmark_node_first_child(root))]
        while let top = stack.last {
            if let child = top.next {
                stack[stack.count - 1].next = cmark_node_next(child)
                stack.append((make(child), cmark_node_first_child(child)))
            } else {
                let finished = stack.removeLast().node
                if stack.isEmpty { return finished }
                stack[stack.count - 1].node.children.append(finished)
            }
        }
        return empty
    }

    private static func make(_ node: OpaquePointer) -> MarkdownNode {
        MarkdownNode(
            kind: kind(of: node),
            literal: string(cmark_node_get_literal(node)),
            startLine: Int(cmark_node_get_start_line(node)),
            startColumn: Int(cmark_node_get_start_column(node)),
            endLine: Int(cmark_node_get_end_line(node)),
            endColumn: Int(cmark_node_get_end_column(node)),
            children: [])
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    private static func kind(of node: OpaquePointer) -> MarkdownNode.Kind {
        // Core nodes by their type; extension nodes (tables, strikethrough, task items) by name.
        if cmark_node_get_syntax_extension(node) == nil {
            switch cmark_node_get_type(node) {
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
        case "code_block": return .codeBlock(info: string(cmark_node_get_fence_info(node)))
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
        case "code": return .code
        case "html_inline": return .htmlInline
        case "emph": return .emphasis
        case "strong": return .strong
        case "strikethrough": return .strikethrough
        case "link":
            return .link(url: string(cmark_node_get_url(node)), title: string(cmark_node_get_title(node)))
        case "image":
            return .image(url: string(cmark_node_get_url(node)), title: string(cmark_node_get_title(node)))
        default: return .other(name)
        }
    }
}
