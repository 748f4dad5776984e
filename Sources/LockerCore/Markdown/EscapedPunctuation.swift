/// Keeps a backslash escape of Obsidian's syntax characters visible after cmark has read a note.
///
/// cmark resolves `\[` to `[` and joins it with the text around it, so `\[\[not a link\]\]`
/// would reach the Obsidian pass as `[[not a link]]`. Before cmark reads the text, each escaped
/// `[`, `]`, `!`, `#`, `=` and `^` is replaced with a stand-in: a character of the same UTF-8
/// length (two bytes, so every byte column cmark reports is still the source's) that is
/// punctuation to cmark as the escape was (so emphasis delimiters flank it the same way), and
/// that no Obsidian syntax starts with. The Obsidian pass reads stand-ins as plain text; they are
/// turned back into the character, or into the escape in code, which is verbatim.
///
/// The stand-ins are Syriac punctuation marks U+0700–U+0705. A note that contains one of them
/// is read without stand-ins, as before, rather than mistaking its own text for an escape.
enum EscapedPunctuation {
    /// The characters whose escape is kept, in the order of their stand-ins.
    private static let escaped: [UInt8] = Array("[]!#=^".utf8)
    /// UTF-8 of a stand-in: `0xDC`, then `0x80` plus the character's place in ``escaped``.
    private static let lead: UInt8 = 0xDC
    private static let backslash = UInt8(ascii: "\\")

    /// The text with every escaped syntax character replaced by its stand-in; nil when there is
    /// nothing to replace, or when the text already holds a stand-in.
    static func protect(_ text: String) -> String? {
        guard text.containsBytes("\\") else { return nil }
        var bytes = Array(text.utf8)
        var changed = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == lead, index + 1 < bytes.count, isStandInTail(bytes[index + 1]) { return nil }
            guard byte == backslash else {
                index += 1
                continue
            }
            // A run of backslashes: pairs are escaped backslashes; an odd one escapes what follows.
            var end = index
            while end < bytes.count, bytes[end] == backslash { end += 1 }
            if (end - index) % 2 == 1, end < bytes.count, let place = escaped.firstIndex(of: bytes[end]) {
                bytes[end - 1] = lead
                bytes[end] = 0x80 + UInt8(place)
                changed = true
                end += 1
            }
            index = end
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// Whether `text` may hold a stand-in: only then do the restoring functions copy it.
    static func mayHoldStandIn(_ text: String) -> Bool {
        text.utf8.contains(lead)
    }

    /// The text with stand-ins turned back into the characters escaped: for text, URLs and titles.
    static func restored(_ text: String) -> String {
        replacingStandIns(in: text, withBackslash: false)
    }

    /// The text with stand-ins turned back into their escapes: for code and HTML, which are verbatim.
    static func restoredVerbatim(_ text: String) -> String {
        replacingStandIns(in: text, withBackslash: true)
    }

    private static func isStandInTail(_ byte: UInt8) -> Bool {
        byte >= 0x80 && byte < 0x80 + UInt8(escaped.count)
    }

    private static func replacingStandIns(in text: String, withBackslash: Bool) -> String {
        guard mayHoldStandIn(text) else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        var pending: UInt8?
        while let byte = pending ?? iterator.next() {
            pending = nil
            guard byte == lead, let next = iterator.next() else {
                result.append(byte)
                continue
            }
            if isStandInTail(next) {
                if withBackslash { result.append(backslash) }
                result.append(escaped[Int(next - 0x80)])
            } else {
                result.append(byte)
                pending = next
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
