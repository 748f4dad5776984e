/// Removes Obsidian `%%comments%%` before cmark reads a note.
///
/// Comment bytes become spaces and newlines stay, so every later position is still true.
/// Fenced code blocks are left alone: `%%` there is code.
enum CommentStripper {
    /// The text without comments, and the byte offset of a comment that never closes.
    static func strip(_ text: String) -> (text: String, unterminatedAt: Int?) {
        var bytes = Array(text.utf8)
        guard bytes.count >= 2, text.contains("%%") else { return (text, nil) }
        var index = 0
        var lineStart = true
        var fence: (byte: UInt8, count: Int)?
        var commentStart: Int?
        while index < bytes.count {
            if lineStart, commentStart == nil {
                // Look for a code fence at the start of the line (up to three spaces of indent).
                var cursor = index
                while cursor < bytes.count, cursor - index < 3, bytes[cursor] == 0x20 { cursor += 1 }
                if cursor < bytes.count, bytes[cursor] == 0x60 || bytes[cursor] == 0x7E {
                    let marker = bytes[cursor]
                    var run = 0
                    while cursor + run < bytes.count, bytes[cursor + run] == marker { run += 1 }
                    if run >= 3 {
                        if let open = fence {
                            if open.byte == marker, run >= open.count { fence = nil }
                        } else {
                            fence = (marker, run)
                        }
                    }
                }
            }
            lineStart = false
            let byte = bytes[index]
            if byte == 0x0A {
                lineStart = true
                index += 1
                continue
            }
            if fence == nil, byte == 0x25, index + 1 < bytes.count, bytes[index + 1] == 0x25 {
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
}
