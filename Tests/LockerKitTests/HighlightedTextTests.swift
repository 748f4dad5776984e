import Testing

@testable import LockerKit

/// `HighlightedText`: the snippets FTS5 marks, read into a text and ranges.
@Suite struct HighlightedTextTests {
    @Test func marksBecomeRangesAndSpacesCollapse() {
        let text = HighlightedText(marked: "…Отдайте \u{2}якорь\u{3}\n\n• и \u{2}цепь\u{3} │ до конца…")
        #expect(text.text == "…Отдайте якорь и цепь до конца…")
        #expect(text.highlights.map { String(text.text[$0]) } == ["якорь", "цепь"])
        #expect(text.marked(open: "[", close: "]") == "…Отдайте [якорь] и [цепь] до конца…")
    }

    @Test func aRangeIsWidenedToWholeCharacters() {
        // "e" then a combining acute: FTS5 may end the match before the accent.
        let text = HighlightedText(marked: "caf\u{2}e\u{3}\u{301} au lait")
        #expect(text.highlights.map { String(text.text[$0]) } == ["e\u{301}"])
        #expect(HighlightedText(marked: "\u{2}\u{3}x\u{2}").highlights.isEmpty)
        #expect(HighlightedText(marked: "").text.isEmpty)
    }
}
