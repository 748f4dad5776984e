import Foundation
import Testing

/// The fuzzers' executable built plainly, as `swift build` builds it: it replays inputs through a
/// target, named first or by `LOCKER_FUZZ_TARGET` (how libFuzzer's `-fork` and `-jobs` workers,
/// started without the target's name, learn it).
@Suite struct FuzzReplayTests {
    static var binary: String {
        LockerRun.binary.deletingLastPathComponent().appendingPathComponent("locker-fuzz").path
    }

    static func folder(with note: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(note.utf8).write(to: folder.appendingPathComponent("input"))
        return folder
    }

    @Test func aTargetNamedFirstReplaysEachFile() throws {
        let folder = try Self.folder(with: "---\ntitle: T\n---\n# T\n\n> [!note]\n> [[x#y]]\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try LockerRun(["markdown", "input"], in: folder, executable: Self.binary)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "1 inputs ran through markdown.\n")
    }

    @Test func aTargetNamedByTheEnvironmentReplaysEachFile() throws {
        let folder = try Self.folder(with: "title: [")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try LockerRun(
            ["input", "input"], in: folder, environment: ["LOCKER_FUZZ_TARGET": "frontmatter"], executable: Self.binary)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "2 inputs ran through frontmatter.\n")
    }

    @Test func withoutATargetItSaysHowToNameOne() throws {
        let folder = try Self.folder(with: "")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try LockerRun(["input"], in: folder, environment: ["LOCKER_FUZZ_TARGET": ""], executable: Self.binary)
        #expect(run.status == 2)
        #expect(run.stderr == "usage: locker-fuzz frontmatter|markdown|config|vault [libFuzzer options | files…]\n")
    }
}
