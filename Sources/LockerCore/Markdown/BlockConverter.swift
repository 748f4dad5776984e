import Foundation
import LockerKit

/// Turns cmark's tree into ``ParsedBlock``s, adding Obsidian's syntax on the way: wikilinks,
/// embeds, tags, highlights, callouts and block IDs.
struct BlockConverter {
    let source: SourceText
    let file: String
    private(set) var diagnostics: [Diagnostic] = []
    /// Inline tags in the order they appear.
    private(set) var tags: [String] = []

    /// How deep blocks and inlines may nest: quotes, callouts, list items, emphasis, strong,
    /// strikethrough and links, counted together. Deeper content is dropped with an error
    /// (`markdown.too-deep`), so the blocks this converter makes are never deeper than this, and
    /// every later stage, which walks them recursively, is bounded by it.
    static let nestingLimit = 20
    /// How many quotes, callouts, list items and inline spans enclose what is being converted.
    private var depth = 0
    /// Whether the note already has its `markdown.too-deep` error: one per note is enough.
    private var reportedTooDeep = false

    init(source: SourceText, file: String) {
        self.source = source
        self.file = file
    }

    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "gif", "webp", "svg", "avif", "bmp"]

    mutating func blocks(_ nodes: [MarkdownNode]) -> [ParsedBlock] {
        var result: [ParsedBlock] = []
        for node in nodes {
            let converted = block(node)
            // A paragraph holding only `^id` names the block before it, as in Obsidian.
            if converted.count == 1, case .paragraph(let inlines) = converted[0].content, inlines.isEmpty,
                let id = converted[0].blockID, !result.isEmpty, result[result.count - 1].blockID == nil
            {
                result[result.count - 1].blockID = id
                continue
            }
            result += converted
        }
        return result
    }

    private func position(_ node: MarkdownNode) -> SourcePosition {
        guard node.startLine > 0 else { return .start }
        return source.position(line: node.startLine, byteColumn: max(1, node.startColumn))
    }

    /// Whether one more level of nesting fits, at `node`; reports the first that does not.
    private mutating func enter(_ node: MarkdownNode) -> Bool {
        guard depth < Self.nestingLimit else {
            if !reportedTooDeep {
                reportedTooDeep = true
                diagnostics.append(
                    Diagnostic(
                        .error, .markdownTooDeep,
                        "quotes, callouts, lists and emphasis nest more than \(Self.nestingLimit) levels deep here; what is deeper is dropped",
                        file: file, at: position(node), hint: "flatten the structure: split it into sections"))
            }
            return false
        }
        depth += 1
        return true
    }

    private mutating func block(_ node: MarkdownNode) -> [ParsedBlock] {
        let at = position(node)
        switch node.kind {
        case .paragraph:
            var inlines = paragraphInlines(node)
            let blockID = Self.takeBlockID(&inlines)
            return lift(inlines, blockID: blockID, at: at)
        case .heading(let level):
            var inlines = paragraphInlines(node)
            let blockID = Self.takeBlockID(&inlines)
            return [ParsedBlock(content: .heading(level: level, inlines), blockID: blockID, position: at)]
        case .blockQuote:
            guard enter(node) else { return [] }
            defer { depth -= 1 }
            return [quoteOrCallout(node, at: at)]
        case .list(let ordered, let start, _):
            var items: [ParsedListItem] = []
            var isTask = false
            for child in node.children {
                guard case .item(let task) = child.kind, enter(child) else { continue }
                if task != nil { isTask = true }
                var children = blocks(child.children)
                depth -= 1
                var blockID: String?
                if let last = children.indices.last, let id = children[last].blockID,
                    case .paragraph = children[last].content
                {
                    blockID = id
                    children[last].blockID = nil
                }
                var onFirstLine = false
                // `- item ^id` over nested bullets: the ID ends the item's first (one-line) paragraph.
                if blockID == nil, let first = children.first, first.blockID != nil, case .paragraph = first.content {
                    blockID = first.blockID
                    children[0].blockID = nil
                    onFirstLine = true
                }
                if blockID == nil {
                    blockID = Self.takeFirstLineBlockID(&children)
                    onFirstLine = blockID != nil
                }
                items.append(
                    ParsedListItem(
                        checked: task, blocks: children, blockID: blockID, blockIDOnFirstLine: onFirstLine,
                        position: position(child)))
            }
            let style: Block.List.Style = isTask ? .task : (ordered ? .ordered : .bullet)
            if isTask {
                items = items.map {
                    var item = $0
                    item.checked = item.checked ?? false
                    return item
                }
            }
            return [ParsedBlock(content: .list(style: style, start: ordered ? start : nil, items: items), position: at)]
        case .codeBlock(let info):
            let language = info.split(separator: " ").first.map(String.init)
            var text = node.literal
            if text.hasSuffix("\n") { text.removeLast() }
            return [ParsedBlock(content: .code(language: language, text: text), position: at)]
        case .thematicBreak:
            return [ParsedBlock(content: .rule, position: at)]
        case .table(let alignments):
            var header: [[Inline]] = []
            var rows: [[[Inline]]] = []
            for row in node.children {
                guard case .tableRow(let isHeader) = row.kind else { continue }
                let cells = row.children.map { paragraphInlines($0) }
                if isHeader { header = cells } else { rows.append(cells) }
            }
            let align: [Block.Table.Alignment] = alignments.map {
                switch $0 {
                case "l": .left
                case "c": .center
                case "r": .right
                default: .none
                }
            }
            return [ParsedBlock(content: .table(align: align, header: header, rows: rows), position: at)]
        case .htmlBlock:
            let html = node.literal.trimmingWhitespace
            if !(html.hasPrefix("<!--") && html.hasSuffix("-->")) {
                diagnostics.append(
                    Diagnostic(
                        .warning, .htmlDropped, "HTML block dropped: apps do not render HTML", file: file, at: at,
                        hint: "write it in markdown"))
            }
            return []
        default:
            return []
        }
    }

    /// A block quote, or a callout when its first line is `[!type]`.
    private mutating func quoteOrCallout(_ node: MarkdownNode, at: SourcePosition) -> ParsedBlock {
        var children = node.children
        if let first = children.first, case .paragraph = first.kind {
            var inlines = rawInlines(first.children)
            if case .text(let text)? = inlines.first, text.hasPrefix("[!"), let close = text.firstIndex(of: "]") {
                let type = text[text.index(text.startIndex, offsetBy: 2)..<close].lowercased()
                var rest = text[text.index(after: close)...]
                var fold: Block.Callout.Fold?
                if rest.hasPrefix("+") {
                    fold = .open
                    rest = rest.dropFirst()
                } else if rest.hasPrefix("-") {
                    fold = .closed
                    rest = rest.dropFirst()
                }
                inlines[0] = .text(String(rest.drop(while: { $0 == " " })))
                // The title is the rest of the first line; later lines are the body's first paragraph.
                let breakIndex = inlines.firstIndex { $0 == .softBreak || $0 == .lineBreak } ?? inlines.endIndex
                var locator = locator(for: first)
                let title = finish(Array(inlines[..<breakIndex]), locator: &locator)
                let bodyInlines = breakIndex < inlines.endIndex ? Array(inlines[(breakIndex + 1)...]) : []
                children.removeFirst()
                var body = blocks(children)
                var firstParagraph = finish(bodyInlines, locator: &locator)
                if !firstParagraph.isEmpty {
                    let blockID = Self.takeBlockID(&firstParagraph)
                    body.insert(contentsOf: lift(firstParagraph, blockID: blockID, at: at), at: 0)
                }
                let content = ParsedBlock.Content.callout(
                    type: type.isEmpty ? "note" : type, title: title.isEmpty ? nil : title, fold: fold, blocks: body)
                return ParsedBlock(content: content, position: at)
            }
        }
        return ParsedBlock(content: .quote(blocks(children)), position: at)
    }

    private func locator(for node: MarkdownNode) -> SourceLocator {
        SourceLocator(
            source: source, firstLine: node.startLine, byteColumn: node.startColumn,
            lastLine: max(node.endLine, node.startLine))
    }

    /// A paragraph's (or heading's, or cell's) inlines with Obsidian syntax applied.
    private mutating func paragraphInlines(_ node: MarkdownNode) -> [Inline] {
        var locator = locator(for: node)
        return finish(rawInlines(node.children), locator: &locator)
    }

    /// cmark's inlines, with adjacent text joined so Obsidian syntax split across nodes is whole.
    private mutating func rawInlines(_ nodes: [MarkdownNode]) -> [Inline] {
        var result: [Inline] = []
        for node in nodes {
            switch node.kind {
            case .text: result.append(.text(node.literal))
            case .softBreak: result.append(.softBreak)
            case .lineBreak: result.append(.lineBreak)
            case .code: result.append(.code(node.literal))
            case .emphasis: if let inner = nestedInlines(node) { result.append(.emphasis(inner)) }
            case .strong: if let inner = nestedInlines(node) { result.append(.strong(inner)) }
            case .strikethrough: if let inner = nestedInlines(node) { result.append(.strikethrough(inner)) }
            case .link(let url, _):
                if let inner = nestedInlines(node) {
                    result.append(.link(destination: url, children: inner, position: position(node)))
                }
            case .image(let url, _):
                // An image's description may hold images in turn.
                guard let inner = nestedInlines(node) else { continue }
                let alt = ObsidianInlines.merge(inner).compactMap {
                    if case .text(let text) = $0 { return text }
                    return nil
                }.joined()
                result.append(.image(source: url, alt: alt, position: position(node)))
            case .htmlInline:
                let html = node.literal.lowercased().replacingOccurrences(of: " ", with: "")
                if ["<br>", "<br/>"].contains(html) {
                    result.append(.lineBreak)
                } else if !html.hasPrefix("<!--") {
                    diagnostics.append(
                        Diagnostic(
                            .warning, .htmlDropped, "inline HTML '\(node.literal)' dropped: apps do not render HTML",
                            file: file, at: position(node)))
                }
            default:
                if !node.children.isEmpty, let inner = nestedInlines(node) { result += inner }
            }
        }
        return ObsidianInlines.merge(result)
    }

    /// The inlines inside `node`, one level deeper; nil when that level is past the limit.
    private mutating func nestedInlines(_ node: MarkdownNode) -> [Inline]? {
        guard enter(node) else { return nil }
        defer { depth -= 1 }
        return rawInlines(node.children)
    }

    /// Applies wikilinks, embeds, tags and highlights to inlines at every level.
    private mutating func finish(_ inlines: [Inline], locator: inout SourceLocator) -> [Inline] {
        var result: [Inline] = []
        for inline in inlines {
            switch inline {
            case .text(let text):
                let collapsed = Self.collapseSpaces(text)
                guard ObsidianInlines.mayHoldSyntax(collapsed) else {
                    if !collapsed.isEmpty { result.append(.text(collapsed)) }
                    continue
                }
                let scanned = ObsidianInlines.scan(collapsed, locator: &locator)
                for case .tag(let tag) in scanned where !tags.contains(tag) { tags.append(tag) }
                result += scanned
            case .emphasis(let children): result.append(.emphasis(finish(children, locator: &locator)))
            case .strong(let children): result.append(.strong(finish(children, locator: &locator)))
            case .strikethrough(let children): result.append(.strikethrough(finish(children, locator: &locator)))
            case .link(let destination, let children, let at):
                // Link text keeps its formatting but gets no links of its own.
                result.append(.link(destination: destination, children: children, position: at))
            default: result.append(inline)
            }
        }
        return ObsidianInlines.highlights(result)
    }

    /// Runs of spaces left by removed comments fold into one, as they would in rendered text.
    private static func collapseSpaces(_ text: String) -> String {
        guard text.containsBytes("  ") else { return text }
        var result = ""
        var previousSpace = false
        for character in text {
            if character == " " {
                if !previousSpace { result.append(character) }
                previousSpace = true
            } else {
                result.append(character)
                previousSpace = false
            }
        }
        return result
    }

    /// Removes a trailing ` ^block-id` from the inlines and returns the ID.
    static func takeBlockID(_ inlines: inout [Inline]) -> String? {
        guard case .text(let text)? = inlines.last else { return nil }
        // The ID is the run of ASCII letters, digits and `-` ending the text, right after a `^`:
        // found from the end, so text without one is not searched through.
        let bytes = text.utf8
        var caret = bytes.endIndex
        while caret > bytes.startIndex {
            let previous = bytes.index(before: caret)
            let byte = bytes[previous]
            guard (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A) || byte == 0x2D
            else { break }
            caret = previous
        }
        guard caret < bytes.endIndex, caret > bytes.startIndex else { return nil }
        caret = bytes.index(before: caret)
        guard bytes[caret] == UInt8(ascii: "^") else { return nil }
        let id = text[text.index(after: caret)...]
        let before = text[..<caret]
        guard before.isEmpty || before.last?.isWhitespace == true else { return nil }
        let remaining = String(before).trimmingTrailingWhitespace
        if remaining.isEmpty {
            inlines.removeLast()
            while let last = inlines.last, last == .softBreak || last == .lineBreak { inlines.removeLast() }
        } else {
            inlines[inlines.count - 1] = .text(remaining)
        }
        return String(id)
    }

    /// Removes a `^block-id` ending the first line of a list item whose paragraph goes on below
    /// it (`- [ ] Life jackets ^life-jackets` over an indented note), where `locker ids` writes them.
    static func takeFirstLineBlockID(_ blocks: inout [ParsedBlock]) -> String? {
        guard case .paragraph(let inlines)? = blocks.first?.content,
            let lineEnd = inlines.firstIndex(where: { $0 == .softBreak || $0 == .lineBreak })
        else { return nil }
        var firstLine = Array(inlines[..<lineEnd])
        guard let id = takeBlockID(&firstLine) else { return nil }
        blocks[0].content = .paragraph(firstLine + inlines[lineEnd...])
        return id
    }

    /// Lifts embeds and images out of a paragraph into blocks of their own, splitting the text
    /// around them, as Obsidian shows them.
    private mutating func lift(_ inlines: [Inline], blockID: String?, at: SourcePosition) -> [ParsedBlock] {
        guard inlines.contains(where: { if case .embed = $0 { true } else if case .image = $0 { true } else { false } })
        else {
            return [ParsedBlock(content: .paragraph(inlines), blockID: blockID, position: at)]
        }
        var result: [ParsedBlock] = []
        var pending: [Inline] = []
        func flush() {
            while let first = pending.first, Self.isBlank(first) { pending.removeFirst() }
            while let last = pending.last, Self.isBlank(last) { pending.removeLast() }
            if case .text(let text)? = pending.first { pending[0] = .text(String(text.drop(while: \.isWhitespace))) }
            if case .text(let text)? = pending.last {
                pending[pending.count - 1] = .text(text.trimmingTrailingWhitespace)
            }
            if !pending.isEmpty { result.append(ParsedBlock(content: .paragraph(pending), position: at)) }
            pending = []
        }
        for inline in inlines {
            switch inline {
            case .embed(let link):
                let fileExtension = VaultPath.fileExtension(of: link.target)
                if Self.imageExtensions.contains(fileExtension) {
                    flush()
                    let size = Self.size(link.display)
                    result.append(
                        ParsedBlock(
                            content: .image(
                                source: link.target, alt: size == nil ? (link.display ?? "") : "",
                                width: size?.width, height: size?.height),
                            position: link.position))
                } else if fileExtension.isEmpty || fileExtension == "md" || link.target.isEmpty {
                    flush()
                    result.append(ParsedBlock(content: .embed(link), position: link.position))
                } else {
                    diagnostics.append(
                        Diagnostic(
                            .warning, .embedUnsupported,
                            "cannot embed '\(link.target)': only notes and images can be embedded; shown as a link",
                            file: file, at: link.position))
                    var plain = link
                    plain.isEmbed = false
                    pending.append(.wikiLink(plain))
                }
            case .image(let source, let alt, let position):
                flush()
                var altText = alt
                var size: (width: Int, height: Int?)?
                if let bar = alt.lastIndex(of: "|"), let parsed = Self.size(String(alt[alt.index(after: bar)...])) {
                    size = parsed
                    altText = String(alt[..<bar]).trimmingWhitespace
                }
                result.append(
                    ParsedBlock(
                        content: .image(source: source, alt: altText, width: size?.width, height: size?.height),
                        position: position))
            default:
                pending.append(inline)
            }
        }
        flush()
        if let blockID, let last = result.indices.last { result[last].blockID = blockID }
        return result
    }

    private static func isBlank(_ inline: Inline) -> Bool {
        switch inline {
        case .softBreak, .lineBreak: true
        case .text(let text): text.allSatisfy(\.isWhitespace)
        default: false
        }
    }

    /// Obsidian's image size: `300` or `300x200`.
    static func size(_ text: String?) -> (width: Int, height: Int?)? {
        guard let text else { return nil }
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard let first = parts.first, let width = Int(first), width > 0 else { return nil }
        if parts.count == 2, let height = Int(parts[1]), height > 0 { return (width, height) }
        return parts.count == 1 ? (width, nil) : nil
    }
}
