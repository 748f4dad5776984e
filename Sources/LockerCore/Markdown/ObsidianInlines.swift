import Foundation

/// Obsidian's inline syntax inside text that cmark left alone: `[[wikilinks]]`, `![[embeds]]`,
/// `#tags` and `==highlights==`.
enum ObsidianInlines {
    /// Splits one run of text into text, wikilinks, embeds and tags.
    static func scan(_ text: String, locator: inout SourceLocator) -> [Inline] {
        var result: [Inline] = []
        var pending = ""
        var index = text.startIndex
        func flush() {
            if !pending.isEmpty { result.append(.text(pending)) }
            pending = ""
        }
        while index < text.endIndex {
            let character = text[index]
            let rest = text[index...]
            if character == "!" || character == "[", let link = wikiLink(in: rest) {
                flush()
                let raw = String(rest[..<link.end])
                let isEmbed = character == "!"
                var parsed = parse(inner: link.inner, isEmbed: isEmbed)
                parsed.position = locator.locate(raw, prefix: isEmbed ? "![[" : "[[")
                result.append(isEmbed ? .embed(parsed) : .wikiLink(parsed))
                index = link.end
                continue
            }
            if character == "#", isTagBoundary(text, before: index), let tag = tag(in: text[text.index(after: index)...]) {
                flush()
                result.append(.tag(String(tag)))
                index = tag.endIndex
                continue
            }
            pending.append(character)
            index = text.index(after: index)
        }
        flush()
        return result
    }

    /// `[[inner]]` or `![[inner]]` at the start of `text`: the inner text and where the link ends.
    private static func wikiLink(in text: Substring) -> (inner: Substring, end: String.Index)? {
        var opening = text
        if opening.hasPrefix("!") { opening = opening.dropFirst() }
        guard opening.hasPrefix("[[") else { return nil }
        let innerStart = opening.index(opening.startIndex, offsetBy: 2)
        var index = innerStart
        while index < opening.endIndex {
            let character = opening[index]
            if character == "\n" || character == "[" { return nil }
            if character == "]" {
                let next = opening.index(after: index)
                guard next < opening.endIndex, opening[next] == "]" else { return nil }
                return (opening[innerStart..<index], opening.index(after: next))
            }
            index = opening.index(after: index)
        }
        return nil
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
            guard case .text(let text) = inline, text.contains("==") else {
                items.append((inline, false))
                continue
            }
            let parts = text.components(separatedBy: "==")
            for (index, part) in parts.enumerated() {
                if index > 0 { items.append((.text("=="), true)) }
                if !part.isEmpty { items.append((.text(part), false)) }
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
        var result: [Inline] = []
        for inline in inlines {
            if case .text(let next) = inline, case .text(let previous)? = result.last {
                result[result.count - 1] = .text(previous + next)
            } else {
                result.append(inline)
            }
        }
        return result
    }
}
