import Foundation

/// Obsidian's inline syntax inside text that cmark left alone: `[[wikilinks]]`, `![[embeds]]`,
/// `#tags` and `==highlights==`.
enum ObsidianInlines {
    /// Splits one run of text into text, wikilinks, embeds and tags.
    ///
    /// Walks the UTF-8 bytes: only `[`, `!` and `#` can start anything, and text between them is
    /// copied as one slice.
    static func scan(_ text: String, locator: inout SourceLocator) -> [Inline] {
        let bytes = text.utf8
        guard mayHoldSyntax(text) else { return text.isEmpty ? [] : [.text(text)] }
        var result: [Inline] = []
        var pendingStart = text.startIndex
        var index = text.startIndex
        func flush(upTo end: String.Index) {
            if pendingStart < end { result.append(.text(String(text[pendingStart..<end]))) }
        }
        while index < text.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "!") || byte == UInt8(ascii: "["), let link = wikiLink(in: text[index...]) {
                flush(upTo: index)
                let raw = String(text[index..<link.end])
                let isEmbed = byte == UInt8(ascii: "!")
                var parsed = parse(inner: link.inner, isEmbed: isEmbed)
                parsed.position = locator.locate(raw, prefix: isEmbed ? "![[" : "[[")
                result.append(isEmbed ? .embed(parsed) : .wikiLink(parsed))
                index = link.end
                pendingStart = index
                continue
            }
            if byte == UInt8(ascii: "#"), isTagBoundary(text, before: index),
                let tag = tag(in: text[bytes.index(after: index)...])
            {
                flush(upTo: index)
                result.append(.tag(String(tag)))
                index = tag.endIndex
                pendingStart = index
                continue
            }
            index = bytes.index(after: index)
        }
        flush(upTo: text.endIndex)
        return result
    }

    /// Whether `text` has a byte that can start a wikilink, an embed or a tag: without one,
    /// ``scan(_:locator:)`` gives the text back whole.
    static func mayHoldSyntax(_ text: String) -> Bool {
        text.containsBytes("[") || text.containsBytes("#")
    }

    /// `[[inner]]` or `![[inner]]` at the start of `text`: the inner text and where the link ends.
    private static func wikiLink(in text: Substring) -> (inner: Substring, end: String.Index)? {
        var opening = text.utf8[...]
        if opening.first == UInt8(ascii: "!") { opening = opening.dropFirst() }
        guard opening.starts(with: "[[".utf8) else { return nil }
        let inner = opening.dropFirst(2)
        guard let close = inner.firstIndex(where: { $0 == UInt8(ascii: "]") || $0 == UInt8(ascii: "[") || $0 == 0x0A }),
            inner[close] == UInt8(ascii: "]")
        else { return nil }
        let next = inner.index(after: close)
        guard next < inner.endIndex, inner[next] == UInt8(ascii: "]") else { return nil }
        return (text[inner.startIndex..<close], inner.index(after: next))
    }

    /// Splits `target#fragment|display`.
    static func parse(inner: Substring, isEmbed: Bool) -> WikiLink {
        var body = inner
        var display: String?
        if let bar = body.firstIndex(of: "|") {
            display = String(body[body.index(after: bar)...]).trimmingWhitespace
            body = body[..<bar]
            if display?.isEmpty == true { display = nil }
        }
        var fragment: String?
        if let hash = body.firstIndex(of: "#") {
            let raw = String(body[body.index(after: hash)...]).trimmingWhitespace
            fragment = raw.isEmpty ? nil : raw
            body = body[..<hash]
        }
        let target = VaultPath.normalize(String(body).trimmingWhitespace)
        return WikiLink(target: target, fragment: fragment, display: display, isEmbed: isEmbed, position: .start)
    }

    /// A tag starts after whitespace or at the start of the text, as in Obsidian.
    private static func isTagBoundary(_ text: String, before index: String.Index) -> Bool {
        guard index > text.startIndex else { return true }
        let previous = text[text.index(before: index)]
        return previous.isWhitespace || previous == "(" || previous == ","
    }

    /// The tag name after `#`: letters, digits, `_`, `-` and `/`, not only digits.
    private static func tag(in text: Substring) -> Substring? {
        let name = text.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "/" }
        guard !name.isEmpty, !name.allSatisfy(\.isNumber) else { return nil }
        return name
    }

    /// Pairs `==` markers among sibling inlines into highlights. Unpaired markers stay text.
    static func highlights(_ inlines: [Inline]) -> [Inline] {
        // Split text at `==` into marker tokens, remembering which items are markers.
        var items: [(inline: Inline, isMarker: Bool)] = []
        for inline in inlines {
            guard case .text(let text) = inline, text.containsBytes("==") else {
                items.append((inline, false))
                continue
            }
            for (index, part) in text.splitBytes("==").enumerated() {
                if index > 0 { items.append((.text("=="), true)) }
                if !part.isEmpty { items.append((.text(String(part)), false)) }
            }
        }
        guard items.contains(where: \.isMarker) else { return inlines }
        var result: [Inline] = []
        var index = 0
        while index < items.count {
            if items[index].isMarker,
                let close = items[(index + 1)...].firstIndex(where: \.isMarker), close > index + 1
            {
                let inner = items[(index + 1)..<close].map(\.inline)
                let opensAtWordStart: Bool = {
                    if case .text(let text) = inner.first { return !(text.first?.isWhitespace ?? false) }
                    return true
                }()
                if opensAtWordStart {
                    result.append(.highlight(merge(inner)))
                    index = close + 1
                    continue
                }
            }
            result.append(items[index].inline)
            index += 1
        }
        return merge(result)
    }

    /// Joins adjacent text inlines.
    static func merge(_ inlines: [Inline]) -> [Inline] {
        func isText(_ inline: Inline) -> Bool { if case .text = inline { true } else { false } }
        guard inlines.indices.dropFirst().contains(where: { isText(inlines[$0 - 1]) && isText(inlines[$0]) })
        else { return inlines }
        // A run of texts is gathered in one string, appended to in place: joining each text to
        // the run so far would copy the run every time, quadratic in a run of many short texts.
        var result: [Inline] = []
        var run: String?
        for inline in inlines {
            if case .text(let next) = inline {
                if var joined = run {
                    run = nil
                    joined += next
                    run = joined
                } else {
                    run = next
                }
                continue
            }
            if let joined = run {
                result.append(.text(joined))
                run = nil
            }
            result.append(inline)
        }
        if let joined = run { result.append(.text(joined)) }
        return result
    }
}
