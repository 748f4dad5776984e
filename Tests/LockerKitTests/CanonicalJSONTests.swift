import Foundation
import LockerTestSupport
import Testing

@testable import LockerKit

@Suite struct CanonicalJSONTests {
    @Test func ordersKeysByUTF8Bytes() {
        let value = JSONValue.object([
            "b": .int(1), "B": .int(2), "é": .int(3), "a": .int(4), "aa": .int(5), "_": .int(6),
        ])
        let text = String(decoding: CanonicalJSON.data(for: value), as: UTF8.self)
        #expect(text == "{\n  \"B\": 2,\n  \"_\": 6,\n  \"a\": 4,\n  \"aa\": 5,\n  \"b\": 1,\n  \"é\": 3\n}\n")
    }

    @Test func escapesOnlyWhatJSONRequires() {
        let value = JSONValue.array([.string("a/b \"q\" \\ \n\t\u{01} Якорь ⚓︎")])
        let text = String(decoding: CanonicalJSON.data(for: value), as: UTF8.self)
        #expect(text == "[\n  \"a/b \\\"q\\\" \\\\ \\n\\t\\u0001 Якорь ⚓︎\"\n]\n")
    }

    /// Escapes at a string's start and end, side by side, alone, and none: each run between them
    /// is copied whole, so each edge is where a wrong offset would show.
    @Test func escapesAtEveryPlaceInAString() {
        let value = JSONValue.array([
            .string("\"sha256-ab\""), .string("\r\u{1F}\u{7F}"), .string("\u{7F}"), .string(""), .string("x\\"),
            .string("\u{00}y"), .string("Ω\tΩ"),
        ])
        let text = String(decoding: CanonicalJSON.data(for: value, layout: .compact), as: UTF8.self)
        #expect(
            text == #"["\"sha256-ab\"","\r\u001f\u007f","\u007f","","x\\","\u0000y","Ω\tΩ"]"# + "\n")
    }

    /// Strings are looked at eight bytes at a time until a word may hold a byte to escape: 20,000
    /// strings of every length up to 40, with every byte JSON escapes (and DEL) among letters,
    /// Cyrillic, an emoji and a combining mark, at every place in a word, are written as byte
    /// by byte.
    @Test func escapesWhereverTheBytesFallInAWord() {
        let palette: [String] =
            (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + [
                "\"", "\\", "\u{7F}", "a", "Z", "0", " ", "/", "Я", "⚓", "😀", "e\u{301}", "~", "\u{80}",
            ]
        /// The escaped string as ``CanonicalJSON`` writes it, a byte at a time.
        func byteByByte(_ text: String) -> [UInt8] {
            var out: [UInt8] = [0x22]
            for byte in text.utf8 {
                switch byte {
                case 0x22: out += Array(#"\""#.utf8)
                case 0x5C: out += Array(#"\\"#.utf8)
                case 0x0A: out += Array(#"\n"#.utf8)
                case 0x0D: out += Array(#"\r"#.utf8)
                case 0x09: out += Array(#"\t"#.utf8)
                case 0..<0x20, 0x7F: out += Array(String(format: "\\u%04x", byte).utf8)
                default: out.append(byte)
                }
            }
            return out + [0x22]
        }
        let letters = "abcdefgh".map(String.init)
        var generator = SplitMix64(seed: 8)
        var strings: [String] = []
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            // Mostly plain letters, so that whole words are skipped and escapes stand alone.
            let pieces = (0..<length).map { _ in
                let from = Int.random(in: 0..<4, using: &generator) == 0 ? palette : letters
                return from.randomElement(using: &generator) ?? ""
            }
            strings.append(pieces.joined())
        }
        let written = CanonicalJSON.data(for: .array(strings.map(JSONValue.string)), layout: .compact)
        let expected = [0x5B] + strings.map(byteByByte).joined(separator: [0x2C]) + [0x5D, 0x0A]
        #expect(Array(written) == expected)
        let decoded = try? JSONSerialization.jsonObject(with: written) as? [String]
        #expect(decoded == strings)
    }

    /// The word test that lets eight bytes be copied without a look at each: true for every
    /// word that holds a byte to escape, whatever the other seven, and false for words of
    /// bytes that need none.
    @Test func aWordMayNeedAnEscapeExactlyWhenOneOfItsBytesDoes() {
        let fillers: [UInt8] = [0x20, 0x41, 0x7E, 0x80, 0xD0, 0xFF, 0x21, 0x5B]
        for byte in 0...255 {
            let escaped = byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F
            for place in 0..<8 {
                for filler in fillers {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[place] = UInt8(byte)
                    let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    #expect(CanonicalJSON.mayNeedEscape(word) == escaped, "\(byte) at \(place) among \(filler)")
                }
            }
        }
    }

    @Test func writesNumbersInOneFixedForm() {
        let value = JSONValue.array([.int(-3), .double(2.0), .double(0.1), .double(1e21), .bool(true), .null])
        let text = String(decoding: CanonicalJSON.data(for: value), as: UTF8.self)
        #expect(text == "[\n  -3,\n  2,\n  0.1,\n  1e+21,\n  true,\n  null\n]\n")
    }

    @Test func encodesSchemaValuesAndDecodesThemBack() throws {
        let guide = Guide(
            id: "anchoring", uuid: ContentIdentity.uuid(kind: .guide, id: "anchoring").uuidString.lowercased(),
            locale: "ru", title: "Якорь", subtitle: nil, category: "mooring", type: "document", tags: ["a"],
            aliases: [],
            order: 2, source: "anchoring.ru.md", extra: ["created": .string("November 16"), "n": .int(3)],
            blocks: [
                Block(
                    .paragraph([.text("x"), .link(.url("https://example.org/a/b"), [.bold([.text("y")])]), .lineBreak])),
                Block(
                    .list(.init(style: .task, items: [.init(checked: true, blocks: [], blockID: "k")])), blockID: "list"
                ),
                Block(
                    .callout(
                        .init(calloutType: "warning", title: [.highlight([.text("t")])], fold: .closed, blocks: []))),
                Block(
                    .table(
                        .init(align: [.left, .none], header: [[.text("h")], []], rows: [[[.code("c")], [.tag("t")]]]))),
                Block(.code(language: nil, text: "a\nb")), Block(.rule),
                Block(.image(.init(src: "assets/x.png", alt: "", width: 3))),
            ],
            sections: [
                Section(
                    anchor: "s", level: 2, title: "S", titleSpans: [.italic([.text("S")])], blocks: [], sections: [])
            ])
        let data = try CanonicalJSON.encode(guide)
        #expect(String(decoding: data, as: UTF8.self).contains("https://example.org/a/b"), "slashes are not escaped")
        #expect(try JSONDecoder().decode(Guide.self, from: data) == guide)
        #expect(try CanonicalJSON.encode(guide) == data)
    }
}

@Suite struct ContentIdentityTests {
    @Test func derivesRFC4122Version5UUIDs() {
        // The RFC 4122 DNS namespace and a well-known vector (Python's uuid.uuid5).
        let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8") ?? UUID()
        #expect(
            ContentIdentity.uuidV5(namespace: dns, name: "python.org").uuidString.lowercased()
                == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
    }

    @Test func namespaceIsTheUUIDOfContentLocker() {
        let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8") ?? UUID()
        #expect(ContentIdentity.namespace == ContentIdentity.uuidV5(namespace: dns, name: "content.locker"))
    }

    @Test func sameKindAndIDGiveTheSameUUID() {
        #expect(ContentIdentity.uuid(kind: .guide, id: "a") == ContentIdentity.uuid(kind: .guide, id: "a"))
        #expect(ContentIdentity.uuid(kind: .guide, id: "a") != ContentIdentity.uuid(kind: .guide, id: "b"))
        #expect(
            ContentIdentity.uuid(kind: .guide, id: "a")
                != ContentIdentity.uuid(kind: ContentKind(rawValue: "deck"), id: "a"))
    }

    /// The UUID text bundles write is Foundation's, lowercased: for the published one, all
    /// zeros, all ones, and 1,000 random ones.
    @Test func uuidsAreWrittenAsFoundationWritesThemLowercased() {
        let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        let ones = UUID(
            uuid: (0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF))
        #expect(ContentIdentity.lowercaseString(zero) == "00000000-0000-0000-0000-000000000000")
        #expect(ContentIdentity.uuidString(kind: .guide, id: "anchoring") == "66f6f032-5930-57ea-bdd2-54de8fd0a29c")
        for uuid in [zero, ones, ContentIdentity.namespace] + (0..<1_000).map({ _ in UUID() }) {
            #expect(ContentIdentity.lowercaseString(uuid) == uuid.uuidString.lowercased())
        }
    }

    @Test func decodesUnknownBlockAndSpanTypesWithoutFailing() throws {
        let json = #"[{"type":"paragraph","spans":[{"type":"sparkle","text":"hi"}]},{"type":"hologram"}]"#
        let blocks = try JSONDecoder().decode([Block].self, from: Data(json.utf8))
        #expect(blocks == [Block(.paragraph([.text("hi")])), Block(.paragraph([]))])
    }
}

@Suite struct PublishedIdentityTests {
    /// Apps and other tools compute these too: the values must never change.
    @Test func namespaceAndADocumentUUIDKeepTheirPublishedValues() {
        #expect(ContentIdentity.namespace.uuidString.lowercased() == "486d1760-afaf-5698-9544-04b484c2cbce")
        #expect(
            ContentIdentity.uuid(kind: .guide, id: "anchoring").uuidString.lowercased()
                == "66f6f032-5930-57ea-bdd2-54de8fd0a29c")
    }
}
