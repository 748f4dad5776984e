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
    /// part of a note's parse, so notes still parse side by side. Later versions touch that table
    /// from the table extension while text is fed too: on an upgrade, hold this around
    /// `cmark_parser_feed` as well.
    private static let inlines = NSLock()

    /// Parses a whole document and hands its root to `body`. Never fails: cmark accepts any text.
    ///
    /// The tree lives only while `body` runs: no ``MarkdownNode`` may leave it.
    static func parse<Result>(_ text: String, _ body: (MarkdownNode) -> Result) -> Result {
        _ = registered
        // Footnotes and math only for a text that can hold them: cmark walks the whole tree
        // again for footnotes, and stops at every `$` for math.
        let footnotes = text.containsBytes("[^")
        let math = text.containsBytes("$")
        let options = CMARK_OPT_SOURCEPOS | (footnotes ? CMARK_OPT_FOOTNOTES : 0)
        // Without memory for a parser or a tree, the note reads as empty: a nil node has no children.
        guard let parser = cmark_parser_new(options) else { return body(MarkdownNode(pointer: nil)) }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let syntax = cmark_find_syntax_extension(name) {
                cmark_parser_attach_syntax_extension(parser, syntax)
            }
        }
        if math, let syntax = MathSyntax.syntax { cmark_parser_attach_syntax_extension(parser, syntax) }
        let protected = EscapedPunctuation.protect(text)
        var text = protected ?? text
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
        return body(MarkdownNode(pointer: root, standIns: protected != nil))
    }

    fileprivate static func string(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    fileprivate static func kind(of node: OpaquePointer, standIns: Bool) -> MarkdownNode.Kind {
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
            // GitHub's form of display math, which Obsidian's `$$` lines become when markdown
            // would read block syntax in them.
            guard info == "math" else { return .codeBlock(info: info) }
            var tex = MarkdownParser.string(cmark_node_get_literal(node))
            if standIns { tex = EscapedPunctuation.restoredVerbatim(tex) }
            return .mathBlock(tex: tex.trimmingWhitespace)
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
            guard let math = MathSyntax.syntax, cmark_node_get_syntax_extension(node) == math else { return .code }
            var tex = MarkdownParser.string(cmark_node_get_literal(node))
            if standIns { tex = EscapedPunctuation.restoredVerbatim(tex) }
            let packed = Int(bitPattern: cmark_node_get_user_data(node))
            return .math(
                tex: tex, display: packed & 1 == 1, newlines: (packed >> 1) & 0xFFFFF, columnShift: packed >> 21)
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
        return MarkdownParser.kind(of: pointer, standIns: standIns)
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

    /// The node's first child, if it has any.
    var firstChild: MarkdownNode? {
        pointer.flatMap { cmark_node_first_child($0) }.map { MarkdownNode(pointer: $0, standIns: standIns) }
    }

    /// Up to `count` bytes of the node's literal, read in place: a check of how a text starts
    /// need not copy the text.
    func literalPrefix(_ count: Int) -> [UInt8] {
        guard let literal = pointer.flatMap({ cmark_node_get_literal($0) }) else { return [] }
        var bytes: [UInt8] = []
        var index = 0
        while index < count, literal[index] != 0 {
            bytes.append(UInt8(bitPattern: literal[index]))
            index += 1
        }
        return bytes
    }

    /// The node's children, in order.
    var children: [MarkdownNode] {
        var result: [MarkdownNode] = []
        var child = pointer.flatMap { cmark_node_first_child($0) }
        while let node = child {
            result.append(MarkdownNode(pointer: node, standIns: standIns))
            child = cmark_node_next(node)
        }
        return result
    }
}

/// Obsidian's math as a cmark-gfm inline extension: `$tex$` and `$$tex$$` become code nodes
/// marked with this extension (display math with user data set), holding the TeX as written.
///
/// An extension rather than a pass over the text, because cmark then decides where math can
/// stand: never in code, URLs, autolinks or HTML, and `\$` is a dollar before the extension
/// sees it. Inside, TeX is not markdown: the extension takes the text up to the closing `$`
/// before emphasis or escapes are read. The rules are Pandoc's, as Obsidian follows them: the
/// opening `$` has no space after it, and the closing `$` has none before it and no digit after
/// it, and holds no `$` between (`$5 and $10` is money); inline math ends on its line; `$$`
/// math may run over lines of its paragraph.
enum MathSyntax {
    /// Made once and shared by every parser, as cmark's own extensions are: cmark only reads it.
    nonisolated(unsafe) static let syntax: OpaquePointer? = {
        guard let syntax = cmark_syntax_extension_new("locker-math") else { return nil }
        cmark_syntax_extension_set_match_inline_func(syntax, match)
        let dollar = UnsafeMutableRawPointer(bitPattern: Int(UInt8(ascii: "$")))
        cmark_syntax_extension_set_special_inline_chars(
            syntax, cmark_llist_append(cmark_get_default_mem_allocator(), nil, dollar))
        return syntax
    }()

    /// cmark's inline parser reads `$` at its offset: math from there, or nil with the offset
    /// where it was.
    private static let match: cmark_match_inline_func = { syntax, _, _, character, parser in
        guard character == UInt8(ascii: "$"), let parser else { return nil }
        let start = cmark_inline_parser_get_offset(parser)
        /// The byte at `offset`, nil past the end: peeked with cmark's bounds check.
        func byte(at offset: Int32) -> UInt8? {
            cmark_inline_parser_set_offset(parser, offset)
            return cmark_inline_parser_is_eof(parser) != 0 ? nil : cmark_inline_parser_peek_char(parser)
        }
        let display = byte(at: start + 1) == UInt8(ascii: "$")
        let texStart = start + (display ? 2 : 1)
        guard let first = byte(at: texStart), first != UInt8(ascii: "$"), display || !isSpace(first) else {
            cmark_inline_parser_set_offset(parser, start)
            return nil
        }
        var texBytes: [UInt8] = []
        var offset = texStart
        var closed: Int32?
        while let current = byte(at: offset) {
            if current == UInt8(ascii: "\\"), let next = byte(at: offset + 1), display || next != 0x0A {
                texBytes += [current, next]
                offset += 2
                continue
            }
            if current == UInt8(ascii: "$") {
                if display {
                    if byte(at: offset + 1) == UInt8(ascii: "$") {
                        closed = offset + 2
                        break
                    }
                } else {
                    let after = byte(at: offset + 1)
                    let digitAfter = after.map { $0 >= 0x30 && $0 <= 0x39 } ?? false
                    if let last = texBytes.last, !isSpace(last), !digitAfter { closed = offset + 1 }
                    // A `$` that cannot close ends the search: inline math holds no `$`.
                    break
                }
            }
            // Inline math ends on its line.
            if current == 0x0A, !display { break }
            texBytes.append(current)
            offset += 1
        }
        let tex = String(decoding: texBytes, as: UTF8.self).trimmingWhitespace
        guard let end = closed, !tex.isEmpty,
            let node = cmark_node_new_with_mem(CMARK_NODE_CODE, cmark_get_default_mem_allocator())
        else {
            cmark_inline_parser_set_offset(parser, start)
            return nil
        }
        cmark_node_set_literal(node, tex)
        cmark_node_set_syntax_extension(node, syntax)
        if display {
            // cmark counts lines only where it reads them: what follows math over lines has its
            // line short by the line breaks inside, and its column counted from the line the
            // math started on. Kept for the converter, which puts them right: bit 0 marks
            // display math, then the line breaks, then how far the last line starts past the first.
            var shift = 0
            let newlines = texBytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            if newlines > 0, let last = texBytes.lastIndex(of: 0x0A) {
                var lineStart = start
                while lineStart > 0, byte(at: lineStart - 1) != 0x0A { lineStart -= 1 }
                shift = Int(texStart) + last + 1 - Int(lineStart)
            }
            let packed = 1 | (min(newlines, 0xFFFFF) << 1) | (min(shift, 0x3FF_FFFF_FFFF) << 21)
            cmark_node_set_user_data(node, UnsafeMutableRawPointer(bitPattern: packed))
        }
        cmark_inline_parser_set_offset(parser, end)
        return node
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A }
}
