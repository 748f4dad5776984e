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
    /// Whether cmark read the text with stand-ins for escaped syntax characters (``EscapedPunctuation``).
    private var standIns = false
    /// The footnote definitions cmark kept, by the number it gave them.
    private var definitions: [Int: MarkdownNode] = [:]
    /// Each footnote's number, by its key (``ParsedFootnote/key``), in the order first referenced.
    private var footnoteNumbers: [Int: Int] = [:]
    /// What cmark's positions in the paragraph being read are short by, after math over lines
    /// (``MathSyntax``): lines, and columns while still on the line the math ended on.
    private var mathShift = (lines: 0, columns: 0, onLine: false)
    /// The key the next inline footnote gets: inline footnotes count down from -1, apart from
    /// definitions' numbers.
    private var nextInlineFootnote = -1

    init(source: SourceText, file: String) {
        self.source = source
        self.file = file
    }

    /// Files embedded as images; a `.drawing` description is drawn as one (``DrawingRenderer``).
    static let imageExtensions: Set<String> = [
        "png", "jpg", "jpeg", "gif", "webp", "svg", "avif", "bmp", AssetCatalog.drawingExtension,
    ]

    /// The blocks of a whole note, whose `text` cmark read: its footnote definitions become the
    /// footnotes of their references.
    mutating func document(_ root: MarkdownNode, text: String) -> [ParsedBlock] {
        standIns = root.standIns
        var body: [MarkdownNode] = []
        for node in root.children {
            if case .footnoteDefinition = node.kind {
                definitions[definitions.count + 1] = node
            } else {
                body.append(node)
            }
        }
        let blocks = blocks(body)
        if text.containsBytes("[^") { reportUnusedDefinitions(in: text) }
        return blocks
    }

    /// Reports each `[^label]: …` line that starts no definition cmark kept: cmark drops a
    /// definition nothing refers to, and its text would vanish unseen.
    private mutating func reportUnusedDefinitions(in text: String) {
        let kept = Set(definitions.values.map(\.startLine))
        var fence: Character?
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let indent = line.prefix { $0 == " " }.count
            let rest = line.dropFirst(indent)
            if indent < 4, let marker = rest.first, marker == "`" || marker == "~",
                rest.hasPrefix(String(repeating: marker, count: 3))
            {
                fence = fence == nil ? marker : (fence == marker ? nil : fence)
                continue
            }
            guard fence == nil, indent < 4, rest.hasPrefix("[^"), let close = rest.firstIndex(of: "]"),
                rest[rest.index(after: close)...].hasPrefix(":"), !kept.contains(offset + 1)
            else { continue }
            let label = rest[rest.index(rest.startIndex, offsetBy: 2)..<close]
            guard !label.isEmpty, !label.contains(where: \.isWhitespace) else { continue }
            diagnostics.append(
                Diagnostic(
                    .warning, .footnoteUnused,
                    "footnote '[^\(label)]' is defined but never referred to; its text is left out",
                    file: file, at: source.position(line: offset + 1, byteColumn: indent + 1),
                    hint: "refer to it with [^\(label)] in the text, or remove it"))
        }
    }

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
            return lift(unescaped(inlines), blockID: blockID, at: at)
        case .heading(let level):
            var inlines = paragraphInlines(node)
            let blockID = Self.takeBlockID(&inlines)
            return [ParsedBlock(content: .heading(level: level, unescaped(inlines)), blockID: blockID, position: at)]
        case .blockQuote:
            guard enter(node) else { return [] }
            defer { depth -= 1 }
            return [quoteOrCallout(node, at: at)]
        case .list(let ordered, let start, _):
            var items: [ParsedListItem] = []
            var isTask = false
            for child in node.children {
                guard case .item(var task) = child.kind, enter(child) else { continue }
                var children = blocks(child.children)
                depth -= 1
                if task == nil, Self.hasOtherTaskBox(child) {
                    // Obsidian's `- [?] item`, `- [-] item`: any character in the box ticks it.
                    task = true
                    Self.dropTaskBox(&children)
                }
                if task != nil { isTask = true }
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
        case .mathBlock(let tex):
            return [ParsedBlock(content: .math(tex), position: at)]
        case .thematicBreak:
            return [ParsedBlock(content: .rule, position: at)]
        case .table(let alignments):
            var header: [[Inline]] = []
            var rows: [[[Inline]]] = []
            for row in node.children {
                guard case .tableRow(let isHeader) = row.kind else { continue }
                let cells = row.children.map { unescaped(paragraphInlines($0)) }
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
            mathShift = (0, 0, false)
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
                let title = unescaped(finish(Array(inlines[..<breakIndex]), locator: &locator))
                let bodyInlines = breakIndex < inlines.endIndex ? Array(inlines[(breakIndex + 1)...]) : []
                // The first paragraph is finished before the rest, so footnotes count in reading order.
                var firstParagraph = finish(bodyInlines, locator: &locator)
                children.removeFirst()
                var body = blocks(children)
                if !firstParagraph.isEmpty {
                    let blockID = Self.takeBlockID(&firstParagraph)
                    body.insert(contentsOf: lift(unescaped(firstParagraph), blockID: blockID, at: at), at: 0)
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
        mathShift = (0, 0, false)
        var locator = locator(for: node)
        return finish(rawInlines(node.children), locator: &locator)
    }

    /// cmark's inlines, with adjacent text joined so Obsidian syntax split across nodes is whole.
    private mutating func rawInlines(_ nodes: [MarkdownNode]) -> [Inline] {
        var result: [Inline] = []
        for node in nodes {
            switch node.kind {
            case .text: result.append(.text(node.literal))
            case .softBreak:
                result.append(.softBreak)
                mathShift.onLine = false
            case .lineBreak:
                result.append(.lineBreak)
                mathShift.onLine = false
            case .code: result.append(.code(node.literal))
            case .math(let tex, let display, let newlines, let columnShift):
                result.append(display ? .displayMath(tex) : .math(tex))
                if newlines > 0 { mathShift = (mathShift.lines + newlines, columnShift, true) }
            case .emphasis: if let inner = nestedInlines(node) { result.append(.emphasis(inner)) }
            case .strong: if let inner = nestedInlines(node) { result.append(.strong(inner)) }
            case .strikethrough: if let inner = nestedInlines(node) { result.append(.strikethrough(inner)) }
            case .link(let url, _):
                if let inner = nestedInlines(node) {
                    result.append(.link(destination: url, children: inner, position: inlinePosition(node)))
                }
            case .image(let url, _):
                // An image's description may hold images in turn.
                guard let inner = nestedInlines(node) else { continue }
                let alt = ObsidianInlines.merge(inner).compactMap {
                    if case .text(let text) = $0 { return text }
                    return nil
                }.joined()
                result.append(.image(source: url, alt: alt, position: inlinePosition(node)))
            case .footnoteReference(let number):
                result.append(.footnote(ParsedFootnote(key: number, number: 0, blocks: [])))
            case .htmlInline:
                let html = node.literal.lowercased().replacingOccurrences(of: " ", with: "")
                if ["<br>", "<br/>"].contains(html) {
                    result.append(.lineBreak)
                } else if !html.hasPrefix("<!--") {
                    diagnostics.append(
                        Diagnostic(
                            .warning, .htmlDropped, "inline HTML '\(node.literal)' dropped: apps do not render HTML",
                            file: file, at: inlinePosition(node)))
                }
            default:
                if !node.children.isEmpty, let inner = nestedInlines(node) { result += inner }
            }
        }
        return ObsidianInlines.merge(result)
    }

    /// Where an inline node stands: cmark's position, put right after math over lines in its paragraph.
    private func inlinePosition(_ node: MarkdownNode) -> SourcePosition {
        guard mathShift.lines > 0, node.startLine > 0 else { return position(node) }
        let column = mathShift.onLine ? max(1, node.startColumn - mathShift.columns) : max(1, node.startColumn)
        return source.position(line: node.startLine + mathShift.lines, byteColumn: column)
    }

    /// The inlines inside `node`, one level deeper; nil when that level is past the limit.
    private mutating func nestedInlines(_ node: MarkdownNode) -> [Inline]? {
        guard enter(node) else { return nil }
        defer { depth -= 1 }
        return rawInlines(node.children)
    }

    /// Applies wikilinks, embeds, tags, footnotes and highlights to inlines at every level, in
    /// reading order: `locator` finds each in the source in turn, and footnotes are counted so.
    private mutating func finish(_ inlines: [Inline], locator: inout SourceLocator) -> [Inline] {
        var result: [Inline] = []
        var items = inlines
        var index = 0
        while index < items.count {
            if let spanning = SpanningInline.find(in: items, at: index) {
                if !spanning.before.isEmpty { result += finishText(spanning.before, locator: &locator) }
                result.append(joined(spanning, locator: &locator))
                // The text after it is read next, in place of the last inline taken: it may open more.
                if spanning.after.isEmpty {
                    index = spanning.end + 1
                } else {
                    index = spanning.end
                    items[index] = .text(spanning.after)
                }
                continue
            }
            switch items[index] {
            case .text(let text): result += finishText(text, locator: &locator)
            case .emphasis(let children): result.append(.emphasis(finish(children, locator: &locator)))
            case .strong(let children): result.append(.strong(finish(children, locator: &locator)))
            case .strikethrough(let children): result.append(.strikethrough(finish(children, locator: &locator)))
            case .link(let destination, let children, let at):
                // Link text keeps its formatting but gets no links of its own; its footnotes count.
                result.append(.link(destination: destination, children: numberingFootnotes(children), position: at))
            case .footnote(let footnote): result.append(.footnote(numbered(footnote)))
            case .math(let tex), .displayMath(let tex):
                // Past the TeX in the source, so that what follows is not looked for inside it:
                // its last line, which a quote's `>` does not interrupt.
                let last = tex.split(separator: "\n", omittingEmptySubsequences: false).last.map(String.init) ?? tex
                _ = locator.locate(last, prefix: "$")
                result.append(items[index])
            case let inline: result.append(inline)
            }
            index += 1
        }
        return ObsidianInlines.highlights(result)
    }

    /// One text with Obsidian's syntax applied: wikilinks, embeds and tags; a footnote
    /// reference cmark left as text has no definition, and is reported.
    private mutating func finishText(_ text: String, locator: inout SourceLocator) -> [Inline] {
        let collapsed = Self.collapseSpaces(text)
        guard ObsidianInlines.mayHoldSyntax(collapsed) else { return collapsed.isEmpty ? [] : [.text(collapsed)] }
        if collapsed.containsBytes("[^") { reportUndefinedFootnotes(in: collapsed, locator: locator) }
        let scanned = ObsidianInlines.scan(collapsed, locator: &locator)
        for case .tag(let tag) in scanned where !tags.contains(tag) { tags.append(tag) }
        return scanned
    }

    /// The wikilink, embed or inline footnote that `spanning` found, located in the source.
    private mutating func joined(_ spanning: SpanningInline, locator: inout SourceLocator) -> Inline {
        switch spanning.kind {
        case .footnote:
            // Only the opening is looked for: what the footnote holds is located in turn.
            let position = locator.locate("^[", prefix: "^[")
            let key = nextInlineFootnote
            nextInlineFootnote -= 1
            let number = number(ofFootnote: key)
            var inner = unescaped(finish(spanning.inner, locator: &locator))
            Self.trimBlank(&inner)
            let blocks = inner.isEmpty ? [] : [ParsedBlock(content: .paragraph(inner), position: position)]
            return .footnote(ParsedFootnote(key: key, number: number, blocks: blocks))
        case .wikiLink, .embed:
            let isEmbed = spanning.kind == .embed
            let position = locator.locate(spanning.opening, prefix: isEmbed ? "![[" : "[[")
            // The target is what comes before the first `|` in the link's own text.
            var target: [Inline] = []
            var display: [Inline]?
            for inline in spanning.inner {
                if display != nil {
                    display?.append(inline)
                } else if case .text(let text) = inline, let bar = text.firstIndex(of: "|") {
                    if bar > text.startIndex { target.append(.text(String(text[..<bar]))) }
                    let rest = String(text[text.index(after: bar)...])
                    display = rest.isEmpty ? [] : [.text(rest)]
                } else {
                    target.append(inline)
                }
            }
            // A target cmark formatted (`[[a _b_ c]]`) is read from the source as written.
            let targetText =
                target.allSatisfy({ if case .text = $0 { true } else { false } })
                ? target.plainText
                : (locator.linkText()?.split(separator: "|").first.map(String.init) ?? target.plainText)
            var link = ObsidianInlines.parse(inner: targetText[...], isEmbed: isEmbed)
            link.target = EscapedPunctuation.restored(link.target)
            link.position = position
            if var display {
                display = ObsidianInlines.highlights(unescaped(display))
                Self.trimBlank(&display)
                let plain = display.plainText.trimmingWhitespace
                link.display = plain.isEmpty ? nil : plain
                if !plain.isEmpty, !display.allSatisfy({ if case .text = $0 { true } else { false } }) {
                    link.formattedDisplay = display
                }
            }
            return isEmbed ? .embed(link) : .wikiLink(link)
        }
    }

    /// The footnote numbered, with its definition's blocks at the note's first reference to it
    /// only: later references carry the number alone. Copying a definition to every reference
    /// would let a few lines of definitions that refer to each other grow without bound.
    private mutating func numbered(_ footnote: ParsedFootnote) -> ParsedFootnote {
        var footnote = footnote
        let isFirst = footnoteNumbers[footnote.key] == nil
        footnote.number = number(ofFootnote: footnote.key)
        footnote.blocks = isFirst ? definition(footnote.key) : []
        return footnote
    }

    /// Footnotes inside link text numbered, at any depth of formatting.
    private mutating func numberingFootnotes(_ inlines: [Inline]) -> [Inline] {
        inlines.map { inline in
            switch inline {
            case .footnote(let footnote): .footnote(numbered(footnote))
            case .emphasis(let children): .emphasis(numberingFootnotes(children))
            case .strong(let children): .strong(numberingFootnotes(children))
            case .strikethrough(let children): .strikethrough(numberingFootnotes(children))
            default: inline
            }
        }
    }

    /// The number of the footnote `key`, given when the note first refers to it.
    private mutating func number(ofFootnote key: Int) -> Int {
        if let number = footnoteNumbers[key] { return number }
        let number = footnoteNumbers.count + 1
        footnoteNumbers[key] = number
        return number
    }

    /// The blocks of the definition cmark numbered `key`: converted at its first reference only.
    private mutating func definition(_ key: Int) -> [ParsedBlock] {
        guard let node = definitions[key], enter(node) else { return [] }
        defer { depth -= 1 }
        return blocks(node.children)
    }

    /// Reports each `[^label]` in `text`: cmark leaves a reference as text when its note has no definition.
    private mutating func reportUndefinedFootnotes(in text: String, locator: SourceLocator) {
        var locator = locator
        var rest = text[...]
        while let open = rest.range(of: "[^") {
            let after = rest[open.upperBound...]
            guard let close = after.firstIndex(of: "]") else { return }
            let label = after[..<close]
            rest = after[close...]
            guard !label.isEmpty, !label.contains(where: { $0.isWhitespace || $0 == "[" }) else { continue }
            let written = EscapedPunctuation.restored("[^\(label)]")
            diagnostics.append(
                Diagnostic(
                    .warning, .footnoteUndefined, "footnote '\(written)' has no definition in this note; shown as text",
                    file: file, at: locator.locate(written, prefix: "[^"),
                    hint: "define it on a line of its own: '\(written): text'"))
        }
    }

    /// Leading and trailing line breaks and spaces removed.
    private static func trimBlank(_ inlines: inout [Inline]) {
        while let first = inlines.first, isBlank(first) { inlines.removeFirst() }
        while let last = inlines.last, isBlank(last) { inlines.removeLast() }
        if case .text(let text)? = inlines.first { inlines[0] = .text(String(text.drop(while: \.isWhitespace))) }
        if case .text(let text)? = inlines.last { inlines[inlines.count - 1] = .text(text.trimmingTrailingWhitespace) }
        inlines.removeAll { $0 == .text("") }
    }

    /// The inlines with escaped syntax characters turned back from their stand-ins: done once
    /// Obsidian's syntax and block IDs are read, which the stand-ins keep from seeing them.
    private func unescaped(_ inlines: [Inline]) -> [Inline] {
        guard standIns else { return inlines }
        return inlines.map(Self.unescaped)
    }

    private static func unescaped(_ inline: Inline) -> Inline {
        func text(_ string: String) -> String { EscapedPunctuation.restored(string) }
        func link(_ link: WikiLink) -> WikiLink {
            var link = link
            link.target = text(link.target)
            link.fragment = link.fragment.map(text)
            link.display = link.display.map(text)
            link.formattedDisplay = link.formattedDisplay?.map(unescaped)
            return link
        }
        switch inline {
        case .text(let string): return .text(text(string))
        case .emphasis(let children): return .emphasis(children.map(unescaped))
        case .strong(let children): return .strong(children.map(unescaped))
        case .strikethrough(let children): return .strikethrough(children.map(unescaped))
        case .highlight(let children): return .highlight(children.map(unescaped))
        case .link(let destination, let children, let position):
            return .link(destination: destination, children: children.map(unescaped), position: position)
        case .wikiLink(let wikiLink): return .wikiLink(link(wikiLink))
        case .embed(let wikiLink): return .embed(link(wikiLink))
        case .image(let source, let alt, let position):
            return .image(source: source, alt: text(alt), position: position)
        case .code, .math, .displayMath, .tag, .softBreak, .lineBreak, .footnote: return inline
        }
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
        guard
            inlines.contains(where: {
                switch $0 {
                case .embed, .image, .displayMath: true
                default: false
                }
            })
        else {
            return [ParsedBlock(content: .paragraph(inlines), blockID: blockID, position: at)]
        }
        var result: [ParsedBlock] = []
        var pending: [Inline] = []
        // The line each piece of text starts on, so that text after an image on a line of its
        // own (a card below its drawing) is placed where it is written; past display math,
        // which may span lines, the paragraph's start.
        var line: Int? = at.line
        var pendingLine: Int?
        func flush() {
            Self.trimBlank(&pending)
            if !pending.isEmpty {
                let start = pendingLine.map { SourcePosition(line: $0, column: $0 == at.line ? at.column : 1) }
                result.append(ParsedBlock(content: .paragraph(pending), position: start ?? at))
            }
            pending = []
            pendingLine = nil
        }
        for inline in inlines {
            if inline == .softBreak || inline == .lineBreak {
                line = line.map { $0 + 1 }
            } else if case .displayMath = inline {
                line = nil
            } else if pending.allSatisfy(Self.isBlank), !Self.isBlank(inline) {
                pendingLine = line
            }
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
            case .displayMath(let tex):
                // `$$…$$` is shown as a block, as Obsidian shows it, in the middle of text too.
                flush()
                result.append(ParsedBlock(content: .math(tex), position: at))
            case .image(let source, let alt, let position):
                flush()
                var altText = alt
                var size: (width: Int, height: Int?)?
                if let bar = alt.lastIndex(of: "|"), let parsed = Self.size(String(alt[alt.index(after: bar)...])) {
                    size = parsed
                    altText = String(alt[..<bar]).trimmingWhitespace
                } else if let parsed = Self.size(alt) {
                    // `![250](image.png)`: a size alone, as Obsidian reads it.
                    size = parsed
                    altText = ""
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

    /// Whether a list item cmark read as plain starts with a box holding one character other
    /// than a space or `x` (`[?] `, `[-] `), read from cmark's text, where an escaped `\[` is a
    /// stand-in and so no box.
    private static func hasOtherTaskBox(_ item: MarkdownNode) -> Bool {
        guard let paragraph = item.firstChild, case .paragraph = paragraph.kind, let text = paragraph.firstChild,
            case .text = text.kind
        else { return false }
        // `[`, one character (of one to four UTF-8 bytes), `]` and a space.
        let bytes = text.literalPrefix(7)
        guard bytes.first == UInt8(ascii: "["), bytes.count >= 4, bytes[1] != 0x20, bytes[1] != 0x09 else {
            return false
        }
        let length = bytes[1] < 0x80 ? 1 : bytes[1] >= 0xF0 ? 4 : bytes[1] >= 0xE0 ? 3 : 2
        return bytes.count >= length + 3 && bytes[1 + length] == UInt8(ascii: "]") && bytes[2 + length] == 0x20
    }

    /// Removes the `[?] ` that ``hasOtherTaskBox(_:)`` found from the item's first paragraph.
    private static func dropTaskBox(_ blocks: inout [ParsedBlock]) {
        guard case .paragraph(var inlines)? = blocks.first?.content, case .text(let text)? = inlines.first else {
            return
        }
        let rest = String(text.dropFirst(4))
        if rest.isEmpty { inlines.removeFirst() } else { inlines[0] = .text(rest) }
        blocks[0].content = .paragraph(inlines)
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
