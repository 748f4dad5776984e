import LockerKit
import LockerTestSupport
import Testing

@testable import LockerCore

/// The byte searches the markdown and site code use instead of Foundation's string search.
@Suite struct ByteSearchTests {
    /// The byte offsets of the first match, or nil.
    private func offsets(of needle: String, in text: String, from start: Int = 0) -> Range<Int>? {
        let from = text.utf8.index(text.utf8.startIndex, offsetBy: start)
        return text.firstByteRange(of: needle, from: from).map {
            text.utf8.distance(
                from: text.utf8.startIndex, to: $0.lowerBound)..<text.utf8.distance(
                    from: text.utf8.startIndex, to: $0.upperBound)
        }
    }

    /// Byte equality and byte prefixes, not `==`'s canonical equivalence: `é` composed and
    /// decomposed are equal strings with different bytes. Substrings, empty texts and small
    /// (inline) strings beside heap ones.
    @Test func sameBytesAndPrefixesAreByteComparisons() {
        let composed = "caf\u{E9}/note"
        let decomposed = "cafe\u{301}/note"
        #expect(composed == decomposed)
        #expect(!composed.hasSameBytes(as: decomposed) && composed.hasSameBytes(as: "caf\u{E9}/note"))
        #expect(!composed.hasPrefixBytes("cafe") && decomposed.hasPrefixBytes("cafe"))
        let long = String(repeating: "guides/", count: 10) + "a.json"
        #expect(long.hasSameBytes(as: long.dropFirst(0)) && !long.hasSameBytes(as: long.dropLast()))
        #expect(
            long.hasPrefixBytes(long.dropLast()) && long.hasPrefixBytes(long) && !long.dropLast().hasPrefixBytes(long))
        #expect(long.hasPrefixBytes("") && "".hasPrefixBytes("") && !"".hasPrefixBytes("g"))
        #expect("".hasSameBytes(as: "") && !"".hasSameBytes(as: "a") && !"ab".hasSameBytes(as: "ac"))
        #expect(!"guides/".hasPrefixBytes("guidez") && "guides/a".dropFirst(7).hasSameBytes(as: "a"))
    }

    @Test func utf8IsValidatedPastTheASCIIWords() {
        // Every length around the eight-byte words, the odd byte at each place.
        for length in 0...19 {
            let ascii = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(ascii.isValidUTF8)
            for place in 0..<length {
                var stray = ascii
                stray[place] = 0xFF
                #expect(!stray.isValidUTF8, "0xFF at \(place) of \(length)")
                var cut = ascii
                cut[place] = 0xD0  // a Cyrillic letter's first byte, an ASCII byte or nothing after it
                #expect(!cut.isValidUTF8, "a cut letter at \(place) of \(length)")
            }
        }
        #expect(Array("Шкотовый узел/note.md".utf8).isValidUTF8)
        #expect(Array("caf\u{E9}".utf8).isValidUTF8)
        #expect(![0xC0, 0x80].isValidUTF8)  // an overlong NUL
        #expect(![0xED, 0xA0, 0x80].isValidUTF8)  // a surrogate
    }

    @Test func findsTheFirstMatchWherePrefixesRepeat() {
        #expect(offsets(of: "==", in: "==x") == 0..<2)
        #expect(offsets(of: "==", in: "x==") == 1..<3)
        #expect(offsets(of: "[[", in: "a [ b [[c]]") == 6..<8)
        #expect(offsets(of: "aab", in: "aaaab") == 2..<5)
        #expect(offsets(of: "  ", in: "one two  three") == 7..<9)
    }

    @Test func findsNothingWhenAbsentOrLonger() {
        #expect(offsets(of: "[[", in: "no links [ here ]") == nil)
        #expect(offsets(of: "abc", in: "ab") == nil)
        #expect(offsets(of: "b", in: "") == nil)
        #expect(offsets(of: "", in: "text") == nil)
        #expect(offsets(of: "ab", in: "xxa") == nil)
    }

    @Test func comparesBytesInNonASCIIText() {
        #expect(offsets(of: "==", in: "Якорь ==важно==") == 11..<13)
        #expect(offsets(of: "ь", in: "Якорь") == 8..<10)
        #expect("Швартовка кормой".containsBytes("кормой"))
        #expect(!"Швартовка".containsBytes("корм"))
    }

    @Test func searchesFromAnIndexAndInSubstrings() {
        #expect(offsets(of: "==", in: "==a==", from: 1) == 3..<5)
        let text = "[[a]] and [[b]]"
        let tail = text[text.index(text.startIndex, offsetBy: 5)...]
        #expect(tail.containsBytes("[["))
        #expect(!tail.containsBytes("[[a"))
        #expect("a||b|c".splitBytes("|").map(String.init) == ["a", "", "b", "c"])
    }

    /// One- and two-byte needles take a direct scan: it must agree with the general search,
    /// at the edges of the text and in substrings.
    @Test func shortNeedlesAgreeWithTheGeneralSearch() {
        let texts = ["", "=", "==", "a=", "=a=", "a==", "x  y", " ", "  ", "#", "a#", "Якорь ==", "%%", "%x%", "[x]"]
        for text in texts {
            for needle in ["=", "==", "  ", " ", "#", "%%", "["] {
                #expect(text.containsBytes(needle) == (offsets(of: needle, in: text) != nil), "\(needle) in \(text)")
                let tail = text.dropFirst()
                #expect(tail.containsBytes(needle) == (tail.firstByteRange(of: needle) != nil), "\(needle) in \(tail)")
            }
        }
    }

    /// Two-byte needles are looked for eight bytes at a time: random texts long enough for
    /// several words, with the pair at every offset and split across word boundaries.
    @Test func pairSearchAgreesWithTheGeneralSearchInLongTexts() {
        var random = SplitMix64(seed: 7)
        let pieces = [" ", "=", "a", "я", "==", "  ", "= ", " ="]
        var found = 0
        for _ in 0..<3000 {
            let length = Int(random.next() % 30)
            let text = (0..<length).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            for needle in ["==", "  ", "= "] {
                let expected = offsets(of: needle, in: text) != nil
                if expected { found += 1 }
                #expect(text.containsBytes(needle) == expected, "\(needle) in \(Array(text.utf8))")
            }
        }
        #expect(found > 1000 && found < 8000)
        for offset in 0..<24 {
            let text = String(repeating: "a", count: offset) + "==" + String(repeating: "b", count: 20 - offset % 20)
            #expect(text.containsBytes("=="), "at \(offset)")
            let broken = String(repeating: "a", count: offset) + "=a=" + String(repeating: "b", count: 20 - offset % 20)
            #expect(!broken.containsBytes("=="), "at \(offset)")
        }
    }

    @Test func byteOrderIsTheOrderOfTheUTF8Bytes() {
        var random = SplitMix64(seed: 11)
        // Prefixes of each other, small and large strings, non-ASCII, and é in both normalisations.
        let pieces = [
            "", "a", "b", "/", "я", "é", "e\u{301}", "folder-01/", "note-0999.md", String(repeating: "x", count: 20),
        ]
        var before = 0
        for _ in 0..<4000 {
            func text() -> String {
                (0..<Int(random.next() % 5)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            }
            let left = text()
            let right = text()
            let expected = left.utf8.lexicographicallyPrecedes(right.utf8)
            if expected { before += 1 }
            #expect(left.utf8Precedes(right) == expected, "\(Array(left.utf8)) < \(Array(right.utf8))")
        }
        #expect(before > 1000 && before < 3000)
        #expect("e\u{301}".utf8Precedes("\u{E9}") && !"\u{E9}".utf8Precedes("e\u{301}"))
    }

    @Test func sortedOffsetsFollowTheBytesPastTheFirstSixteen() {
        var random = SplitMix64(seed: 12)
        // Long shared prefixes (the first 16 bytes alike), strings ending where others go on
        // with a zero byte, non-ASCII split across the 16th byte, and é in both normalisations.
        let pieces = [
            "", "a", "\u{0}", "/", "я", "é", "e\u{301}", "guide/en/", "guides/note-0000", "0a1b2c3d4e5f6a7b",
        ]
        for round in 0..<200 {
            let texts = (0..<Int(random.next() % 60)).map { _ in
                (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            }
            let expected = texts.indices.sorted { texts[$0].utf8.lexicographicallyPrecedes(texts[$1].utf8) }
                .map { Array(texts[$0].utf8) }
            #expect(texts.utf8SortedOffsets().map { Array(texts[$0].utf8) } == expected, "round \(round)")
            #expect(texts.utf8SortedOffsets().sorted() == Array(texts.indices), "each offset once")
        }
    }

    @Test func indexOrderComparesTitlesByTheirBytesInEveryInputOrder() {
        // "Été" composed and decomposed are equal as Swift strings: compared that way, the order
        // depended on the order the entries came in.
        func entry(_ id: String, _ title: String) -> ContentIndex.Entry {
            ContentIndex.Entry(
                id: id, uuid: id, title: title, subtitle: nil, category: nil, type: nil, tags: [], order: nil,
                locale: "fr")
        }
        // Composed "a" before decomposed "z" by ID, "z" before "Foo" and "Foo" before "a" by bytes:
        // a cycle, unless equal titles are told apart by their bytes too.
        let entries = [entry("a", "\u{C9}t\u{E9}"), entry("z", "E\u{301}te\u{301}"), entry("m", "Foo")]
        for permutation in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            let input = permutation.map { entries[$0] }
            let sorted = BundleWriter.indexPermutation(input).map { input[$0].id }
            #expect(sorted == ["z", "m", "a"], "from \(permutation)")
        }
    }
}
