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
                line = found.line
                byteColumn = found.byteColumn + needle.utf8.count
                return source.position(line: found.line, byteColumn: found.byteColumn)
            }
        }
        return fallback
    }
}
