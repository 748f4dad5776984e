/// Finds where inline syntax stands in a block's source lines, moving forward as it goes.
///
/// cmark gives positions for blocks; Obsidian syntax lives inside text nodes, whose content has
/// escapes resolved, so each token is looked up in the block's raw lines instead.
struct SourceLocator {
    let source: SourceText
    var line: Int
    var byteColumn: Int
    let lastLine: Int
    let fallback: SourcePosition
    /// Where the last token located starts: its 1-based line and byte column.
    private var lastFound: (line: Int, byteColumn: Int)?
    /// The last position worked out: its line, byte column and column.
    private var lastPosition: (line: Int, byteColumn: Int, column: Int)?

    init(source: SourceText, firstLine: Int, byteColumn: Int, lastLine: Int) {
        self.source = source
        self.line = max(1, firstLine)
        self.byteColumn = max(1, byteColumn)
        self.lastLine = max(lastLine, firstLine)
        fallback = source.position(line: self.line, byteColumn: self.byteColumn)
    }

    /// The position of the next occurrence of `raw`, or of `prefix` when `raw` is not found as
    /// written; the block's start when neither is.
    mutating func locate(_ raw: String, prefix: String) -> SourcePosition {
        for needle in [raw, prefix] {
            if let found = source.find(needle, fromLine: line, byteColumn: byteColumn, lastLine: lastLine) {
                lastFound = found
                line = found.line
                byteColumn = found.byteColumn + needle.utf8.count
                return position(line: found.line, byteColumn: found.byteColumn)
            }
        }
        lastFound = nil
        return fallback
    }

    /// The position of a byte column, counted on from the last one given on the same line:
    /// counting each from the line's start would make a long line of many links quadratic.
    private mutating func position(line: Int, byteColumn: Int) -> SourcePosition {
        guard let last = lastPosition, last.line == line, last.byteColumn <= byteColumn else {
            let position = source.position(line: line, byteColumn: byteColumn)
            lastPosition = (line, byteColumn, position.column)
            return position
        }
        let bytes = source.lineBytes(line)
        let from = min(bytes.endIndex, bytes.startIndex + last.byteColumn - 1)
        let to = min(bytes.endIndex, bytes.startIndex + byteColumn - 1)
        // Scalars start at every byte that is not a UTF-8 continuation byte.
        let column = last.column + bytes[from..<to].reduce(0) { $0 + (($1 & 0xC0) == 0x80 ? 0 : 1) }
        lastPosition = (line, byteColumn, column)
        return SourcePosition(line: line, column: column)
    }

    /// What stands between `[[` and `]]` in the link last located, as written; nil when that
    /// was not found or does not close on its line.
    func linkText() -> String? {
        guard let found = lastFound else { return nil }
        let bytes = source.lineBytes(found.line)
        let start = bytes.startIndex + found.byteColumn - 1
        guard start < bytes.endIndex, let open = bytes[start...].firstRange(of: "[[".utf8) else { return nil }
        let inner = bytes[open.upperBound...]
        guard let close = inner.firstRange(of: "]]".utf8) else { return nil }
        return String(decoding: inner[..<close.lowerBound], as: UTF8.self)
    }
}
