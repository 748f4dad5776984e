import Foundation

/// A note's text after decoding, with what it takes to turn byte offsets into positions.
///
/// Byte order marks are removed and CRLF / CR line endings become LF before anything else reads
/// the text, so every later stage sees one kind of newline while positions still match the lines
/// an editor shows.
struct SourceText: Sendable {
    /// The decoded text.
    let text: String
    /// The text's UTF-8 bytes.
    let bytes: [UInt8]
    /// Byte offset at which each line starts; `lineStarts[0] == 0`.
    let lineStarts: [Int]

    /// The text with its bytes, when the caller has them already (`bytes` must be `text.utf8`).
    init(_ text: String, bytes: [UInt8]) {
        self.text = text
        self.bytes = bytes
        var starts = [0]
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count, let newline = memchr(base + offset, 0x0A, buffer.count - offset) {
                offset = base.distance(to: newline.assumingMemoryBound(to: UInt8.self)) + 1
                starts.append(offset)
            }
        }
        lineStarts = starts
    }

    /// The text from a byte offset that starts a line (or ends the text) to the end, copied
    /// without decoding it again.
    func text(fromLineStartOffset offset: Int) -> String {
        let utf8 = text.utf8
        return String(text[utf8.index(utf8.startIndex, offsetBy: offset)...])
    }

    var lineCount: Int { lineStarts.count }

    /// The bytes of a 1-based line, without its newline.
    func lineBytes(_ line: Int) -> ArraySlice<UInt8> {
        guard line >= 1, line <= lineStarts.count else { return [] }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] - 1 : bytes.count
        end = max(start, end)
        return bytes[start..<end]
    }

    /// The text of a 1-based line.
    func line(_ line: Int) -> String { String(decoding: lineBytes(line), as: UTF8.self) }

    /// Converts a 1-based line and UTF-8 byte column into a position counted in Unicode scalars.
    func position(line: Int, byteColumn: Int) -> SourcePosition {
        let slice = lineBytes(line)
        let prefix = slice.prefix(max(0, byteColumn - 1))
        // Count scalar starts: every byte that is not a UTF-8 continuation byte.
        let scalars = prefix.reduce(0) { $0 + (($1 & 0xC0) == 0x80 ? 0 : 1) }
        return SourcePosition(line: max(1, line), column: scalars + 1)
    }

    /// The position of a byte offset into the whole text.
    func position(ofOffset offset: Int) -> SourcePosition {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return position(line: low + 1, byteColumn: offset - lineStarts[low] + 1)
    }

    /// Finds `needle` at or after the given line and byte column, not beyond `lastLine`.
    /// Returns the 1-based line and byte column where it starts.
    func find(_ needle: String, fromLine: Int, byteColumn: Int, lastLine: Int) -> (line: Int, byteColumn: Int)? {
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty, fromLine >= 1, fromLine <= lineStarts.count else { return nil }
        let start = lineStarts[fromLine - 1] + max(0, byteColumn - 1)
        let endLine = min(max(lastLine, fromLine), lineStarts.count)
        let end = endLine < lineStarts.count ? lineStarts[endLine] : bytes.count
        guard start < end, end - start >= pattern.count else { return nil }
        var index = start
        while index + pattern.count <= end {
            if bytes[index] == pattern[0], bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                var line = fromLine
                while line < lineStarts.count, lineStarts[line] <= index { line += 1 }
                return (line, index - lineStarts[line - 1] + 1)
            }
            index += 1
        }
        return nil
    }
}
