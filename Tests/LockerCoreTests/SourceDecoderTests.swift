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
}
