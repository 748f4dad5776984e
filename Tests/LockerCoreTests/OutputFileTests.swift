import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// A file of the output in pieces is the file of its bytes joined: equal, hashed and written
/// the same.
@Suite struct OutputFileTests {
    /// Cyrillic text, a line break and a zero byte, cut at every place into two and three pieces.
    static let bytes = Array("Якорь\nchain\u{0}".utf8)

    static func cuts() -> [[ArraySlice<UInt8>]] {
        var cuts: [[ArraySlice<UInt8>]] = []
        for first in 0...bytes.count {
            cuts.append([bytes[..<first], bytes[first...]])
            for second in first...bytes.count {
                cuts.append([bytes[..<first], bytes[first..<second], bytes[second...]])
            }
        }
        // No pieces, and empty pieces around the bytes.
        return cuts + [[[], bytes[...], []]]
    }

    @Test func piecesAreTheirBytesJoined() {
        let whole = OutputFile(path: "a.json", data: Data(Self.bytes))
        for pieces in Self.cuts() {
            let file = OutputFile(path: "a.json", pieces: pieces)
            #expect(file.data == Data(Self.bytes))
            #expect(file.count == Self.bytes.count)
            #expect(file.sha256Hex == ContentHash.sha256Hex(Data(Self.bytes)))
            #expect(file == whole && whole == file)
            #expect(file.hashValue == whole.hashValue)
            var seen: [UInt8] = []
            file.forEachPiece { seen += $0 }
            #expect(seen == Self.bytes)
        }
        let none = OutputFile(path: "a.json", pieces: [[UInt8]]())
        #expect(none.data.isEmpty && none.count == 0)
        #expect(none.sha256Hex == ContentHash.sha256Hex(Data()))
        #expect(none != whole)
        #expect(OutputFile(path: "b.json", pieces: [Self.bytes]) != whole)
        #expect(OutputFile(path: "a.json", pieces: [Array(Self.bytes.dropLast())]) != whole)
        // Setting the bytes replaces the pieces.
        var replaced = OutputFile(path: "a.json", pieces: [[1], [2]])
        replaced.data = Data([3])
        #expect(replaced.data == Data([3]) && replaced.count == 1)
    }

    /// Thousands of small pieces around a few large ones: the file is their bytes in order.
    @Test func manySmallPiecesAreWrittenInOrder() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("locker-pieces-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let gathered = 64 << 10
        var pieces: [[UInt8]] = []
        for index in 0..<20_000 {
            pieces.append((0..<(index % 200)).map { UInt8(truncatingIfNeeded: index &+ $0) })
            if index == 700 { pieces.append([UInt8](repeating: 1, count: gathered)) }
            if index == 900 { pieces.append([UInt8](repeating: 2, count: gathered - 1)) }
            if index == 5_000 { pieces.append([UInt8](repeating: 3, count: 3 * gathered + 5)) }
        }
        let path = folder.appendingPathComponent("marker").path
        try OutputWriter.writeFile(OutputFile(path: "x", pieces: pieces), to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(pieces.joined()))
    }

    @Test func piecesAreWrittenOneAfterTheOther() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("locker-pieces-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (number, pieces) in Self.cuts().enumerated() {
            let path = folder.appendingPathComponent("\(number).json").path
            let stamp = try OutputWriter.writeFile(OutputFile(path: "x", pieces: pieces), to: path)
            #expect(stamp == FileStamp(regularFileAt: path)?.contentText)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(Self.bytes))
            // A file that exists already is not written over.
            #expect(throws: LockerError.self) {
                try OutputWriter.writeFile(OutputFile(path: "x", pieces: pieces), to: path)
            }
        }
    }
}
