import Testing

@testable import LockerCore

/// A note's decoded text and the bytes positions are counted in must be the same text, whatever
/// the file's byte order mark and line endings were.
@Suite struct SourceDecoderTests {
    @Test(arguments: [
        [0xEF, 0xBB, 0xBF] + Array("---\r\ntitle: Якорь\r\n---\r\n# Отдать\r\nтекст".utf8),
        Array("one\rtwo\r\rthree".utf8),
        Array("---\ntitle: x\n---".utf8),
        Array("".utf8),
        Array("\n\n".utf8),
    ])
    func bytesAreTheTextsAndLinesStartAfterEachNewline(_ raw: [UInt8]) throws {
        let (decoded, _) = SourceDecoder(maxBytes: 1 << 20).decode(raw, file: "n.md")
        let source = try #require(decoded)
        #expect(source.bytes == Array(source.text.utf8))
        let expected = [0] + source.bytes.indices.filter { source.bytes[$0] == 0x0A }.map { $0 + 1 }
        #expect(source.lineStarts == expected)
        for start in source.lineStarts {
            #expect(source.text(fromLineStartOffset: start) == String(decoding: source.bytes[start...], as: UTF8.self))
        }
    }

    /// Every kind of bad UTF-8 is refused, at its first bad byte; valid text of every width is
    /// kept as it is. A cut 4-byte sequence is three bytes, as long as its replacement character.
    @Test(arguments: [
        ([0x61, 0xFF, 0x62], 1),  // a byte UTF-8 never has
        ([0x61, 0x80], 1),  // a continuation alone
        ([0xC0, 0xAF], 0),  // an overlong `/`
        ([0x61, 0xED, 0xA0, 0x80], 1),  // a surrogate
        ([0xF4, 0x90, 0x80, 0x80], 0),  // past U+10FFFF
        ([0x61, 0xF0, 0x9F, 0x98, 0x61], 1),  // four bytes cut to three
        ([0xD0, 0xAF, 0xD0], 2),  // cut at the end
    ] as [([UInt8], Int)])
    func badUTF8IsRefused(_ raw: [UInt8], at offset: Int) {
        let (decoded, diagnostics) = SourceDecoder(maxBytes: 1 << 20).decode(raw, file: "n.md")
        #expect(decoded == nil)
        #expect(diagnostics.map(\.code) == [.fileInvalidUTF8])
        #expect(diagnostics.first?.position.column == offset + 1 - raw[..<offset].filter { $0 & 0xC0 == 0x80 }.count)
    }

    @Test func textOfEveryWidthIsKept() throws {
        let text = "a Я ⚓ 🧭 end"
        let (decoded, diagnostics) = SourceDecoder(maxBytes: 1 << 20).decode(Array(text.utf8), file: "n.md")
        #expect(try #require(decoded).text == text)
        #expect(diagnostics.isEmpty)
    }
}
