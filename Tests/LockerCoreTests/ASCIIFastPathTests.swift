import LockerTestSupport
import Testing

@testable import LockerCore

/// Slugs and heading keys of ASCII text are made on bytes, the rest by characters: both ways
/// must agree, since slugs become anchors and IDs that must never change.
@Suite struct ASCIIFastPathTests {
    /// Random ASCII text, every byte 0–127 likely, with runs of separators and `\r\n` pairs.
    private static func samples() -> [String] {
        var random = SplitMix64(seed: 12)
        let pieces = ["\r\n", "  ", "-", "Anchor", "x", "\t", "9"]
        return (0..<2000).map { _ in
            (0..<Int(random.next() % 12)).map { _ -> String in
                random.next() % 3 == 0
                    ? pieces[Int(random.next() % UInt64(pieces.count))]
                    : String(UnicodeScalar(UInt8(random.next() % 128)))
            }.joined()
        } + ["", " ", "Section 1", "  Lazy   line\tpick-up ", "A_B.C/D", "\u{0B}\u{0C}x"]
    }

    @Test func slugsOfASCIITextAreWhatCharactersGive() throws {
        for text in Self.samples() {
            let fast = try #require(Slug.asciiSlug(text))
            #expect(fast == Slug.characterSlug(text), "\(Array(text.utf8))")
        }
    }

    @Test func headingKeysOfASCIITextAreWhatCharactersGive() throws {
        for text in Self.samples() {
            let fast = try #require(NoteParser.asciiHeadingKey(text))
            #expect(fast == NoteParser.characterHeadingKey(text), "\(Array(text.utf8))")
        }
    }

    @Test func textBeyondASCIIGoesByCharacters() {
        #expect(Slug.asciiSlug("Якорь") == nil)
        #expect(Slug.make("Отдать  Якорь!") == "отдать-якорь")
        #expect(NoteParser.asciiHeadingKey("café") == nil)
        #expect(NoteParser.headingKey("  Отдать\u{00A0}ЯКОРЬ ") == "отдать якорь")
    }

    /// The character rule a trailing `^block-id` followed before it was read on bytes from the end.
    private static func characterBlockID(_ text: String) -> (id: String, remaining: String)? {
        guard let caret = text.lastIndex(of: "^") else { return nil }
        let id = text[text.index(after: caret)...]
        guard !id.isEmpty, id.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" }) else {
            return nil
        }
        let before = text[..<caret]
        guard before.isEmpty || before.last?.isWhitespace == true else { return nil }
        return (String(id), String(before).trimmingTrailingWhitespace)
    }

    @Test func blockIDsAreWhatTheCharacterRuleFinds() {
        var random = SplitMix64(seed: 31)
        let pieces = ["^", "^id", " ^a-1", "x", " ", "Якорь", "-", "é", "e\u{301}", "_", "Z9", "\t", "^^"]
        var taken = 0
        for _ in 0..<4000 {
            let text = (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined()
            var inlines: [Inline] = [.strong([.text("b")]), .text(text)]
            let id = BlockConverter.takeBlockID(&inlines)
            let expected = Self.characterBlockID(text)
            #expect(id == expected?.id, "\(Array(text.utf8))")
            if let expected {
                taken += 1
                let rest: [Inline] =
                    expected.remaining.isEmpty
                    ? [.strong([.text("b")])] : [.strong([.text("b")]), .text(expected.remaining)]
                #expect(inlines == rest, "\(Array(text.utf8))")
            }
        }
        #expect(taken > 300)
    }
}
