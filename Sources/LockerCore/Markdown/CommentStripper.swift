/// Removes Obsidian `%%comments%%` before cmark reads a note.
///
/// Comment bytes become spaces and newlines stay, so every later position is still true.
/// Code is left alone: `%%` in a fenced code block or an inline code span is code.
enum CommentStripper {
    /// The text without comments, and the byte offset of a comment that never closes.
    static func strip(_ text: String) -> (text: String, unterminatedAt: Int?) {
        guard text.containsBytes("%%") else { return (text, nil) }
        var bytes = Array(text.utf8)
        var index = 0
        var lineStart = true
        var fence: (byte: UInt8, count: Int)?
        var commentStart: Int?
        while index < bytes.count {
            if lineStart, commentStart == nil, let run = fenceRun(bytes, at: index) {
                if let open = fence {
                    if open.byte == run.byte, run.count >= open.count { fence = nil }
                } else {
                    fence = run
                }
                index = endOfLine(bytes, from: index)
                continue
            }
            lineStart = false
            let byte = bytes[index]
            if byte == 0x0A {
                lineStart = true
                index += 1
                continue
            }
            if fence != nil {
                index += 1
                continue
            }
            if commentStart == nil, byte == 0x60 {
                index = endOfCodeSpan(bytes, at: index)
                continue
            }
            if byte == 0x25, index + 1 < bytes.count, bytes[index + 1] == 0x25 {
                if let start = commentStart {
                    for offset in start..<(index + 2) where bytes[offset] != 0x0A { bytes[offset] = 0x20 }
                    commentStart = nil
                } else {
                    commentStart = index
                }
                index += 2
                continue
            }
            index += 1
        }
        if let start = commentStart {
            for offset in start..<bytes.count where bytes[offset] != 0x0A { bytes[offset] = 0x20 }
            return (String(decoding: bytes, as: UTF8.self), start)
        }
        return (String(decoding: bytes, as: UTF8.self), nil)
    }

    /// A code fence (three or more backticks or tildes, indented up to three spaces) at `index`.
    private static func fenceRun(_ bytes: [UInt8], at index: Int) -> (byte: UInt8, count: Int)? {
        var cursor = index
        while cursor < bytes.count, cursor - index < 3, bytes[cursor] == 0x20 { cursor += 1 }
        guard cursor < bytes.count, bytes[cursor] == 0x60 || bytes[cursor] == 0x7E else { return nil }
        let marker = bytes[cursor]
        var run = 0
        while cursor + run < bytes.count, bytes[cursor + run] == marker { run += 1 }
        return run >= 3 ? (marker, run) : nil
    }

    private static func endOfLine(_ bytes: [UInt8], from index: Int) -> Int {
        var cursor = index
        while cursor < bytes.count, bytes[cursor] != 0x0A { cursor += 1 }
        return cursor
    }

    /// Past the code span opened by the backticks at `index`: its closing run of as many
    /// backticks, searched no further than the paragraph (a blank line). Past the opening run
    /// when it never closes, since then it is not code.
    private static func endOfCodeSpan(_ bytes: [UInt8], at index: Int) -> Int {
        var run = 0
        while index + run < bytes.count, bytes[index + run] == 0x60 { run += 1 }
        var cursor = index + run
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == 0x0A, cursor + 1 < bytes.count, bytes[cursor + 1] == 0x0A { break }
            if byte == 0x60 {
                var closing = 0
                while cursor + closing < bytes.count, bytes[cursor + closing] == 0x60 { closing += 1 }
                if closing == run { return cursor + closing }
                cursor += closing
            } else {
                cursor += 1
            }
        }
        return index + run
    }
}
