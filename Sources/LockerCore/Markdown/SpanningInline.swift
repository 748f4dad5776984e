/// Obsidian syntax that cmark's formatting split across sibling inlines: a wikilink or embed
/// whose text holds formatting (`[[Note|Example **bold** text]]`), and an inline footnote
/// (`^[a note]`), which may hold formatting and links or none.
///
/// cmark reads emphasis before Obsidian's syntax is looked for, so `[[Note|**bold**]]` arrives
/// as the text `[[Note|`, a strong span and the text `]]`; Obsidian reads the link first, and
/// shows its text with the formatting. Found by ``find(in:at:)`` from the text where the syntax
/// opens, up to the text where it closes.
struct SpanningInline {
    enum Kind: Equatable { case wikiLink, embed, footnote }

    let kind: Kind
    /// The text before the opening `[[`, `![[` or `^[`.
    let before: String
    /// The opening as written, up to the end of its text: what the source is searched for.
    let opening: String
    /// What stands between the opening and the closing `]]` or `]`.
    let inner: [Inline]
    /// The text after the closing.
    let after: String
    /// The index of the last inline it takes.
    let end: Int

    /// The syntax opening in the text at `index` and closing in it or a later sibling; nil when
    /// the text opens none, or what it opens does not close among its siblings.
    ///
    /// A wikilink that closes in its own text is ``ObsidianInlines/scan(_:locator:)``'s, and is
    /// not found here; an inline footnote is found here either way.
    static func find(in inlines: [Inline], at index: Int) -> SpanningInline? {
        guard case .text(let text) = inlines[index], let (kind, start) = opening(in: text) else { return nil }
        let openingLength = kind == .footnote ? 2 : (kind == .embed ? 3 : 2)
        let innerStart = text.utf8.index(start, offsetBy: openingLength)
        let before = String(text[..<start])
        let opening = String(text[start...])
        if kind == .footnote, let close = closingBracket(in: text[innerStart...], depth: 1) {
            let inner = String(text[innerStart..<close])
            return SpanningInline(
                kind: kind, before: before, opening: String(text[start...close]),
                inner: inner.isEmpty ? [] : [.text(inner)], after: String(text[text.index(after: close)...]), end: index
            )
        }
        var inner: [Inline] = []
        let head = String(text[innerStart...])
        if !head.isEmpty { inner.append(.text(head)) }
        var depth = 1
        var next = index + 1
        // A link's or footnote's text holds a few spans: looking no further than this keeps a
        // paragraph of many openings that never close linear.
        let last = min(inlines.count, index + 1 + lookahead)
        while next < last {
            let inline = inlines[next]
            switch inline {
            case .text(let later):
                if kind == .footnote {
                    if let close = closingBracket(in: later[...], depth: depth) {
                        let part = String(later[..<close])
                        if !part.isEmpty { inner.append(.text(part)) }
                        return SpanningInline(
                            kind: kind, before: before, opening: opening, inner: inner,
                            after: String(later[later.index(after: close)...]), end: next)
                    }
                    depth = later.utf8.reduce(depth) { depth, byte in
                        byte == UInt8(ascii: "[") ? depth + 1 : (byte == UInt8(ascii: "]") ? depth - 1 : depth)
                    }
                } else if let close = later.utf8.firstRange(of: "]]".utf8) {
                    let part = String(later[..<close.lowerBound])
                    if part.containsBytes("[") || part.containsBytes("]") { return nil }
                    if !part.isEmpty { inner.append(.text(part)) }
                    return SpanningInline(
                        kind: kind, before: before, opening: opening, inner: inner,
                        after: String(later[close.upperBound...]), end: next)
                } else if later.containsBytes("[") || later.containsBytes("]") {
                    // Brackets of another kind inside a link's text: not a link Obsidian would read.
                    return nil
                }
                inner.append(inline)
            case .emphasis, .strong, .strikethrough, .code, .math, .displayMath:
                inner.append(inline)
            case .softBreak, .link, .footnote:
                // A footnote's text may run over lines and hold links; a link's may not.
                guard kind == .footnote else { return nil }
                inner.append(inline)
            default:
                return nil
            }
            next += 1
        }
        return nil
    }

    /// How many inlines after its opening a link or footnote may take.
    static let lookahead = 256

    /// The first opening in `text` that this type finds: `^[`, or `[[` / `![[` not closed in the text.
    private static func opening(in text: String) -> (Kind, String.Index)? {
        // Both openings hold `[`; most text has none, and is passed over at memchr's speed.
        guard text.containsBytes("[") else { return nil }
        let footnote = text.containsBytes("^[")
        let found =
            text.utf8.withContiguousStorageIfAvailable { openingOffset(in: $0, footnote: footnote) }
            ?? Array(text.utf8).withUnsafeBufferPointer { openingOffset(in: $0, footnote: footnote) }
        guard let (kind, offset) = found else { return nil }
        return (kind, text.utf8.index(text.utf8.startIndex, offsetBy: offset))
    }

    /// ``opening(in:)`` in bytes, in one pass each way: a `[[` opens only when no bracket or line
    /// break follows it, so it can only be the text's last bracket.
    private static func openingOffset(in bytes: UnsafeBufferPointer<UInt8>, footnote: Bool) -> (Kind, Int)? {
        let open = UInt8(ascii: "[")
        var caret: Int?
        var index = 0
        while footnote, index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "^"), bytes[index + 1] == open {
                caret = index
                break
            }
            index += 1
        }
        var link: (Kind, Int)?
        if let last = bytes.lastIndex(where: { $0 == open || $0 == UInt8(ascii: "]") || $0 == 0x0A }),
            bytes[last] == open, last > 0, bytes[last - 1] == open
        {
            let start = last - 1
            link = start > 0 && bytes[start - 1] == UInt8(ascii: "!") ? (.embed, start - 1) : (.wikiLink, start)
        }
        switch (caret, link) {
        case (let caret?, let link?): return caret < link.1 ? (.footnote, caret) : link
        case (let caret?, nil): return (.footnote, caret)
        case (nil, let link): return link
        }
    }

    /// The `]` that brings `depth` open brackets to none in `text`, counting `[` and `]` on the way.
    private static func closingBracket(in text: Substring, depth: Int) -> String.Index? {
        var depth = depth
        var index = text.utf8.startIndex
        while index < text.utf8.endIndex {
            switch text.utf8[index] {
            case UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index = text.utf8.index(after: index)
        }
        return nil
    }
}
