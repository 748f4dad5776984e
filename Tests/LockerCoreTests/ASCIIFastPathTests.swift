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
}
