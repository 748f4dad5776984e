/// One result of ``ContentSearch/search(_:locale:kinds:limit:)``.
public struct SearchHit: Hashable, Sendable {
    /// The document and part the hit is: a link to it is
    /// `bundle.linkFormat.appURL(for: hit.target)` (or `webURL`).
    public var target: ContentTarget
    /// A few words around the matches, the matched words highlighted.
    public var snippet: HighlightedText
    /// BM25, lower is better: for ordering hits of one search, not for comparing searches.
    public var score: Double

    public init(target: ContentTarget, snippet: HighlightedText, score: Double) {
        self.target = target
        self.snippet = snippet
        self.score = score
    }
}

/// A text with some ranges of it highlighted.
public struct HighlightedText: Hashable, Sendable {
    public var text: String
    /// In order, not overlapping.
    public var highlights: [Range<String.Index>]

    public init(text: String, highlights: [Range<String.Index>]) {
        self.text = text
        self.highlights = highlights
    }

    /// Reads a text whose highlights are marked by U+0002 before and U+0003 after, with each run
    /// of white space, and the list and quote marks of plain text (`•`, `│`), as one space.
    init(marked: String) {
        var text = ""
        var offsets: [Range<Int>] = []
        var start: Int?
        var space = false
        for scalar in marked.unicodeScalars {
            switch scalar {
            case "\u{3}":
                if let from = start, from < text.utf8.count { offsets.append(from..<text.utf8.count) }
                start = nil
            case "•", "│":
                space = true
            case _ where scalar.properties.isWhitespace:
                space = true
            default:
                // A space held back goes before a highlight's start, not into it.
                if space, !text.isEmpty { text += " " }
                space = false
                if scalar == "\u{2}" {
                    start = text.utf8.count
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        self.text = text
        // By UTF-8 offset while the text grew; as indexes of the text made, widened to whole
        // characters (a match that ends before a combining accent takes the accent).
        var starts: [Int] = []
        var offset = 0
        for character in text {
            starts.append(offset)
            offset += character.utf8.count
        }
        let utf8 = text.utf8
        highlights = offsets.map { range in
            let lower = starts.last { $0 <= range.lowerBound } ?? 0
            let upper = starts.first { $0 >= range.upperBound } ?? offset
            return utf8.index(utf8.startIndex, offsetBy: lower)..<utf8.index(utf8.startIndex, offsetBy: upper)
        }
    }

    /// The text with each highlight between `open` and `close`.
    public func marked(open: String, close: String) -> String {
        var result = ""
        var position = text.startIndex
        for range in highlights {
            result += text[position..<range.lowerBound] + open + text[range] + close
            position = range.upperBound
        }
        return result + text[position...]
    }
}
