import LockerKit
import Testing

/// Blocks as plain text, as terminals and screen readers get them.
@Suite struct BlockPlainTextTests {
    @Test func footnotesAreNumbersInTheTextAndTheirTextBelow() {
        let first = Footnote(number: 1, blocks: [Block(.paragraph([.text("Good holding.")]))])
        let block = Block(
            .paragraph([
                .text("Sand"), .footnote(first), .text(", not "), .bold([.text("weed")]),
                .footnote(Footnote(number: 2, blocks: [Block(.paragraph([.text("Fouls "), .math("x^2")]))])),
                .text(", sand again"), .footnote(Footnote(number: 1, blocks: [])),
            ]))
        #expect(block.plainText == "Sand[1], not weed[2], sand again[1]\n[1] Good holding.\n[2] Fouls x^2")
        // Spans alone, for titles and search, leave footnotes out.
        if case .paragraph(let spans) = block.content {
            #expect(spans.plainText == "Sand, not weed, sand again")
        }
    }

    @Test func aSectionIsItsHeadingItsTextAndItsSubsections() {
        func section(_ title: String, _ text: String, _ sections: [Section] = []) -> Section {
            Section(
                anchor: title.lowercased(), level: 2 + sections.count, title: title, titleSpans: [.text(title)],
                blocks: text.isEmpty ? [] : [Block(.paragraph([.text(text)]))], sections: sections)
        }
        let tree = section("Anchoring", "", [section("Letting go", "Pay out the chain."), section("Snubber", "Rig it.")])
        #expect(tree.plainText == "Anchoring\n\nLetting go\n\nPay out the chain.\n\nSnubber\n\nRig it.")
    }

    @Test func mathIsItsTeX() {
        #expect(Block(.math(#"\frac{1}{2}"#)).plainText == #"    \frac{1}{2}"#)
        #expect([Span.text("a "), .math("x_1")].plainText == "a x_1")
    }
}
