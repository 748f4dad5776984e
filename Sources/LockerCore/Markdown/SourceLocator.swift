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
                return source.position(line: found.line, byteColumn: found.byteColumn)
            }
        }
        return fallback
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
