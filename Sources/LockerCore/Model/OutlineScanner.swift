import Foundation

/// What links into a guide need of it (its H1 and its sections' anchors by heading), read from
/// its Markdown line by line rather than parsed: the parse stage holds a guide as this outline,
/// and the documents stage parses it whole when it builds it, so a build holds one guide's tree
/// at a time rather than the vault's.
///
/// Only text whose headings a line tells for certain is read: ATX headings at the start of a
/// line, outside fenced code, with plain words. Anything that could make a line a heading, or
/// hide one, that the scanner does not follow gives nil, and the note is parsed whole: an
/// indented `#` or fence (a list item's), a line that could underline a setext heading, HTML,
/// `%%` comments, `$$` math, any `^` (block IDs), a link reference definition, a heading with
/// markup or a `#`. ``NoteLoader`` checks each outline against the note parsed whole, and the
/// compile parses every note whole when one differs: the scanner can cost time, never output.
enum OutlineScanner {
    /// A note's H1 (the text ``SectionBuilder`` takes for its title) and its heading anchors,
    /// as ``NoteParser`` makes them from the parsed note.
    struct Outline: Equatable {
        var h1: String?
        var headings: [String: String]
    }

    /// The outline of a note's body (its text after the frontmatter, as cmark reads it); nil
    /// when the text holds anything the scanner does not follow.
    static func outline(of body: String) -> Outline? {
        var body = body
        return body.withUTF8 { scan($0) }
    }

    private static func scan(_ text: UnsafeBufferPointer<UInt8>) -> Outline? {
        guard let base = text.baseAddress else { return Outline(h1: nil, headings: [:]) }
        // What reaches past a line or marks a block anywhere: `^`, `%%`, `$$`, `<!`. Looked for
        // in the whole text by the C library's vectorised scan, as most notes hold none.
        if memchr(base, 0x5E, text.count) != nil { return nil }
        for (first, second) in [(UInt8(0x25), UInt8(0x25)), (0x24, 0x24), (0x3C, 0x21)] {
            var from = 0
            while from < text.count, let found = memchr(base + from, Int32(first), text.count - from) {
                let offset = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if offset + 1 < text.count, text[offset + 1] == second { return nil }
                from = offset + 1
            }
        }
        var fence: (mark: UInt8, length: Int)?
        var previousBlank = true
        var sawContent = false
        var h1: String?
        var sections: [(key: String, anchor: String)] = []
        var anchors = IDAllocator()
        var start = 0
        while start < text.count {
            let end =
                memchr(base + start, 0x0A, text.count - start).map {
                    base.distance(to: $0.assumingMemoryBound(to: UInt8.self))
                } ?? text.count
            var line = UnsafeBufferPointer(rebasing: text[start..<end])
            start = end + 1
            if line.last == 0x0D { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
            if let open = fence {
                if closes(line, open) { fence = nil }
                continue
            }
            guard let first = line.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else {
                previousBlank = true
                continue
            }
            defer { previousBlank = false }
            let mark = line[first]
            if isUnderline(line) && !previousBlank { return nil }
            if first > 0 {
                // A heading, fence or HTML block in a list item, or a heading in indented code.
                if mark == 0x23 || mark == 0x60 || mark == 0x7E || mark == 0x3C { return nil }
                if mark == 0x5B && defines(line) { return nil }
                sawContent = true
                continue
            }
            switch mark {
            case 0x60, 0x7E:
                let length = line.prefix { $0 == mark }.count
                if length >= 3, mark == 0x7E || !line.dropFirst(length).contains(0x60) {
                    fence = (mark, length)
                }
            case 0x23:
                let level = line.prefix { $0 == 0x23 }.count
                guard level <= 6, level == line.count || line[level] == 0x20 || line[level] == 0x09 else { break }
                let words = line.dropFirst(level).drop { $0 == 0x20 || $0 == 0x09 }
                let trimmed = words.reversed().drop { $0 == 0x20 || $0 == 0x09 }.count
                let content = UnsafeBufferPointer(rebasing: words.prefix(trimmed))
                guard content.allSatisfy(isPlainWordByte) else { return nil }
                let title = String(decoding: content, as: UTF8.self)
                if level == 1, h1 == nil, !sawContent {
                    h1 = title
                    continue
                }
                sawContent = true
                // An H5 or H6 is bold text, not a section; a second H1 is an H2.
                guard level <= 4 else { continue }
                let slug = Slug.make(title)
                sections.append((NoteParser.headingKey(title), anchors.claim(slug.isEmpty ? "section" : slug)))
                continue
            case 0x3C:
                return nil
            case 0x5B:
                // A definition makes no block: before the H1, one whose label may go on past
                // this line (no `]`, or an escaped one) could leave the H1 the title.
                if defines(line) || (!sawContent && (!line.contains(0x5D) || line.contains(0x5C))) { return nil }
            default:
                break
            }
            sawContent = true
        }
        // As ``NoteParser`` makes them: the H1 first, then the first section of each name.
        var headings: [String: String] = [:]
        if let h1 { headings[NoteParser.headingKey(h1)] = "" }
        for section in sections where headings[section.key] == nil {
            headings[section.key] = section.anchor
        }
        return Outline(h1: h1, headings: headings)
    }

    /// Whether a heading's text byte is one with no meaning in Markdown or Obsidian's syntax:
    /// not one of `` \ ` * _ [ ] < > & ~ = $ % ^ # ``.
    private static func isPlainWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x5C, 0x60, 0x2A, 0x5F, 0x5B, 0x5D, 0x3C, 0x3E, 0x26, 0x7E, 0x3D, 0x24, 0x25, 0x5E, 0x23: false
        default: true
        }
    }

    /// Whether a line could underline a setext heading: `=` or `-` alone, after at most three
    /// spaces, with spaces after.
    private static func isUnderline(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let indent = line.prefix { $0 == 0x20 }.count
        guard indent <= 3, indent < line.count, line[indent] == 0x3D || line[indent] == 0x2D else { return false }
        let mark = line[indent]
        let rest = line.dropFirst(indent).drop { $0 == mark }
        return rest.allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }

    /// Whether a line starting with `[` could start a link reference definition (`[x]: url`).
    private static func defines(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        zip(line, line.dropFirst()).contains { $0 == 0x5D && $1 == 0x3A }
    }

    /// Whether a line closes the fence `open`: at most three spaces, at least as many of its
    /// marks, then spaces.
    private static func closes(_ line: UnsafeBufferPointer<UInt8>, _ open: (mark: UInt8, length: Int)) -> Bool {
        let indent = line.prefix { $0 == 0x20 }.count
        guard indent <= 3 else { return false }
        let marks = line.dropFirst(indent).prefix { $0 == open.mark }.count
        return marks >= open.length
            && line.dropFirst(indent + marks).allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }
}
