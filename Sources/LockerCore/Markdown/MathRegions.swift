/// Obsidian's math, `$…$` inline and `$$…$$` on lines of its own, found before cmark reads a
/// note: TeX is not markdown (`a_1 * b_2` holds no emphasis, `\{` is no escape).
///
/// Inline math becomes a code span of the same length (`$x$` → `` `x` ``, `$$x$$` →
/// ``` ``x`` ```), which cmark leaves verbatim; a display block becomes a fenced `math` code
/// block, GitHub's form, which Locker reads as math too. Only the lines of a display block's
/// fences change length, so every other position cmark reports is still the source's.
///
/// The rules are Pandoc's, which Obsidian follows: the opening `$` is not followed by a space,
/// the closing one is not preceded by a space nor followed by a digit, so `$5 and $10` is
/// money. Math does not start inside code or after a backslash, holds no backtick, and inline
/// math ends on its line.
struct MathRegions: Sendable {
    /// Inline math by the line it stands on: its TeX, and whether it was written `$$…$$`.
    private(set) var inline: [Int: [(tex: String, display: Bool)]] = [:]
    /// Display math by the line its opening `$$` stands on: its TeX as written.
    private(set) var display: [Int: String] = [:]

    var isEmpty: Bool { inline.isEmpty && display.isEmpty }

    /// The math of a code span cmark read on `line` with `literal`, if it was math.
    func inlineMath(line: Int, literal: String) -> (tex: String, display: Bool)? {
        inline[line]?.first { $0.tex == literal }
    }

    /// The text with its math turned into code, and the math found; nil when there is none.
    static func protect(_ text: String) -> (text: String, math: MathRegions)? {
        guard text.containsBytes("$") else { return nil }
        var bytes = Array(text.utf8)
        var regions = MathRegions()
        var index = 0
        var line = 1
        var lineStart = true
        var fence: (byte: UInt8, count: Int)?
        while index < bytes.count {
            if lineStart {
                lineStart = false
                if let run = CommentStripper.fenceRun(bytes, at: index) {
                    if let open = fence {
                        if open.byte == run.byte, run.count >= open.count { fence = nil }
                    } else {
                        fence = run
                    }
                    index = CommentStripper.endOfLine(bytes, from: index)
                    continue
                }
                if fence == nil, let block = displayBlock(&bytes, lineStart: index, line: line) {
                    regions.display[line] = block.tex
                    line += block.lines - 1
                    index = block.end
                    continue
                }
            }
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                lineStart = true
                index += 1
                continue
            }
            if fence != nil {
                index += 1
                continue
            }
            if byte == 0x60 {
                index = CommentStripper.endOfCodeSpan(bytes, at: index)
                continue
            }
            if byte == UInt8(ascii: "$"), !isEscaped(bytes, index), let span = inlineSpan(bytes, at: index) {
                let tex = String(decoding: bytes[span.texStart..<span.texEnd], as: UTF8.self)
                regions.inline[line, default: []].append((tex, span.delimiter == 2))
                for offset in index..<span.texStart { bytes[offset] = 0x60 }
                for offset in span.texEnd..<span.end { bytes[offset] = 0x60 }
                index = span.end
                continue
            }
            index += 1
        }
        return regions.isEmpty ? nil : (String(decoding: bytes, as: UTF8.self), regions)
    }

    /// Whether an odd run of backslashes stands before `index`.
    private static func isEscaped(_ bytes: [UInt8], _ index: Int) -> Bool {
        var count = 0
        var cursor = index - 1
        while cursor >= 0, bytes[cursor] == UInt8(ascii: "\\") {
            count += 1
            cursor -= 1
        }
        return count % 2 == 1
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A }

    /// `$tex$` or `$$tex$$` at `index`, ending on its line: where the TeX starts and ends, and
    /// where the closing delimiter ends.
    private static func inlineSpan(_ bytes: [UInt8], at index: Int) -> (
        delimiter: Int, texStart: Int, texEnd: Int, end: Int
    )? {
        let delimiter = index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "$") ? 2 : 1
        let texStart = index + delimiter
        guard texStart < bytes.count, !isSpace(bytes[texStart]), bytes[texStart] != UInt8(ascii: "$") else {
            return nil
        }
        var cursor = texStart
        while cursor < bytes.count, bytes[cursor] != 0x0A, bytes[cursor] != 0x60 {
            if bytes[cursor] == UInt8(ascii: "\\") {
                cursor += 2
                continue
            }
            if bytes[cursor] == UInt8(ascii: "$") {
                let closing = cursor + delimiter
                let closes =
                    delimiter == 1 || (cursor + 1 < bytes.count && bytes[cursor + 1] == UInt8(ascii: "$"))
                let after = closing < bytes.count ? bytes[closing] : 0x20
                if closes, !isSpace(bytes[cursor - 1]), !(after >= 0x30 && after <= 0x39) {
                    return (delimiter, texStart, cursor, closing)
                }
                // A `$` that cannot close ends the search: `$5 and $10` is not math.
                if delimiter == 1 { return nil }
            }
            cursor += 1
        }
        return nil
    }

    /// A display block whose opening `$$` starts the line at `lineStart` (after spaces and a
    /// quote's `>` markers) and whose closing `$$` is on a later line of the same paragraph: its
    /// fences rewritten as a `math` code fence, its TeX, how many lines it takes and where the
    /// line after it starts.
    private static func displayBlock(_ bytes: inout [UInt8], lineStart: Int, line: Int) -> (
        tex: String, lines: Int, end: Int
    )? {
        let dollars: [UInt8] = [UInt8(ascii: "$"), UInt8(ascii: "$")]
        var open = lineStart
        while open < bytes.count, bytes[open] == 0x20 || bytes[open] == UInt8(ascii: ">") { open += 1 }
        let prefix = Array(bytes[lineStart..<open])
        guard prefix.count <= 3 || prefix.contains(UInt8(ascii: ">")), bytes[open...].starts(with: dollars) else {
            return nil
        }
        let firstEnd = CommentStripper.endOfLine(bytes, from: open)
        // `$$tex$$` on one line is inline math, written as display.
        guard bytes[(open + 2)..<firstEnd].firstRange(of: dollars) == nil else { return nil }
        var texLines = [bytes[(open + 2)..<firstEnd]]
        var lineEnd = firstEnd
        var count = 1
        while lineEnd < bytes.count {
            let start = lineEnd + 1
            let end = CommentStripper.endOfLine(bytes, from: start)
            count += 1
            // Inside a quote, each line starts with the same markers: they are not TeX.
            var content = start
            while content < end, content - start < prefix.count,
                bytes[content] == 0x20 || bytes[content] == UInt8(ascii: ">")
            {
                content += 1
            }
            // A blank line ends the paragraph, and a `$$` that has not closed with it.
            if bytes[content..<end].allSatisfy(isSpace) { return nil }
            if let close = bytes[content..<end].firstRange(of: dollars) {
                texLines.append(bytes[content..<close.lowerBound])
                let tex = texLines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
                    .trimmingWhitespace
                // The closing line first, so the opening line's offsets still hold.
                let closing = prefix + Array("```".utf8)
                bytes.replaceSubrange(start..<end, with: closing)
                let opening = Array("```math".utf8)
                bytes.replaceSubrange(open..<firstEnd, with: opening)
                let shift = opening.count - (firstEnd - open)
                return (tex, count, start + shift + closing.count)
            }
            texLines.append(bytes[content..<end])
            lineEnd = end
        }
        return nil
    }
}
