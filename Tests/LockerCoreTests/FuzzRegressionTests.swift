import Foundation
import Testing

@_spi(Fuzzing) @testable import LockerCore

/// Every input a fuzzer found a crash with, kept under `Fixtures/fuzz/<target>/` and run through
/// its target again; each also has a test of its own below for what it now gives.
@Suite struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz")

    static func inputs(_ target: FuzzTarget) -> [URL] {
        let folder = Self.folder.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyKeptInputRunsThroughItsTarget(target: FuzzTarget) throws {
        for input in Self.inputs(target) {
            // A crash here stops the test process, as it stopped the fuzzer.
            target.run(Array(try Data(contentsOf: input)))
        }
    }

    @Test func aVaultInputIsSplitAtNULBytesAndPlacedByItsFirstByte() {
        let bytes: [UInt8] = [1] + Array("A".utf8) + [0, 0, 13] + Array("B".utf8) + [0, 3] + Array("C".utf8)
        let files = FuzzTarget.files(of: bytes)
        // 13 is 1 past the twelve places: `B` replaces `A`.
        #expect(files == ["guides/a.md": Array("B".utf8), "guides/b.md": Array("C".utf8)])
    }

    /// One diagnostic at `line`:`column` of a file whose text is `text`, checked as the fuzz
    /// targets check every diagnostic.
    static func check(_ line: Int, _ column: Int, in text: String) {
        let position = SourcePosition(line: line, column: column)
        FuzzTarget.expectInside(
            [Diagnostic(.error, .linkBroken, "m", file: "n.md", at: position)], Array(text.utf8))
    }

    @Test func aDiagnosticOutsideItsFileStopsTheFuzzer() async {
        Self.check(3, 6, in: "one\r\ntwo\rthree")
        Self.check(1, 1, in: "")
        // Exit tests: each runs in a process of its own, which must stop.
        await #expect(processExitsWith: .failure) { FuzzRegressionTests.check(4, 1, in: "one\r\ntwo\rthree") }
        await #expect(processExitsWith: .failure) { FuzzRegressionTests.check(3, 7, in: "one\r\ntwo\rthree") }
        await #expect(processExitsWith: .failure) { FuzzRegressionTests.check(0, 1, in: "one") }
        await #expect(processExitsWith: .failure) { FuzzRegressionTests.check(1, 0, in: "one") }
    }
}
