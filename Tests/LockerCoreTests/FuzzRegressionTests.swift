import Foundation
import Testing

@_spi(Fuzzing) @testable import LockerCore

/// Every input a fuzzer found a crash with, kept under `Fixtures/fuzz/<target>/` and run through
/// its target again; each also has a test of its own for what it now gives. A target no fuzzer
/// has found a crash in yet keeps a few inputs of its own kind (`vault`: notes linking and
/// embedding each other, deep nesting, broken frontmatter and settings, duplicate IDs).
@Suite struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz")

    /// The kept inputs of `target`; throws when its folder is missing.
    static func inputs(_ target: FuzzTarget) throws -> [URL] {
        let folder = Self.folder.appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyKeptInputRunsThroughItsTarget(target: FuzzTarget) throws {
        let inputs = try Self.inputs(target)
        try #require(!inputs.isEmpty, "no kept inputs in Fixtures/fuzz/\(target.rawValue): the test would run nothing")
        for input in inputs {
            // A crash here stops the test process, as it stopped the fuzzer.
            target.run(Array(try Data(contentsOf: input)))
        }
    }

    /// The kept vault inputs are vaults of several files, the settings among them: not one file
    /// placed by the first byte of its text.
    @Test func everyKeptVaultInputIsAVaultOfSeveralFiles() throws {
        let inputs = try Self.inputs(.vault)
        try #require(!inputs.isEmpty, "no kept inputs in Fixtures/fuzz/vault")
        for input in inputs {
            let files = FuzzTarget.files(of: Array(try Data(contentsOf: input)))
            #expect(files.keys.contains(VaultConfig.fileName), "\(input.lastPathComponent)")
            #expect(files.count >= 4, "\(input.lastPathComponent): \(files.keys.sorted())")
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
