import Foundation
import Testing

@testable import LockerCore

/// The content date without `SOURCE_DATE_EPOCH`: the time of the last commit that touched the
/// vault's folder, from a real `git` in a real repository.
@Suite struct LastCommitTests {
    /// Runs `git` in `folder` with the committer's date fixed, through Foundation (the test's
    /// own way, beside the one under test).
    private static func git(_ arguments: [String], in folder: URL, date: Int = 0) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["git", "-C", folder.path, "-c", "user.name=Crew", "-c", "user.email=crew@example.org"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_COMMITTER_DATE"] = "@\(date) +0000"
        environment["GIT_AUTHOR_DATE"] = "@\(date) +0000"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "git \(arguments.joined(separator: " "))")
    }

    @Test func theVaultIsDatedByTheLastCommitThatTouchedItsFolder() throws {
        let repository = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-git-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: repository) }
        let vault = repository.appendingPathComponent("content")
        try FileManager.default.createDirectory(at: vault, withIntermediateDirectories: true)
        try Self.git(["init", "-q"], in: repository)
        // Not a repository's commit yet: no date.
        #expect(LastCommit.time(of: vault) == nil)

        try Data("## Bowline\n".utf8).write(to: vault.appendingPathComponent("knots.md"))
        try Self.git(["add", "."], in: repository)
        try Self.git(["commit", "-q", "-m", "Knots"], in: repository, date: 1_700_000_000)
        try Data("notes\n".utf8).write(to: repository.appendingPathComponent("README.md"))
        try Self.git(["add", "."], in: repository)
        try Self.git(["commit", "-q", "-m", "Readme"], in: repository, date: 1_700_086_400)

        #expect(LastCommit.time(of: vault) == 1_700_000_000, "the last commit that touched the vault")
        #expect(LastCommit.time(of: repository) == 1_700_086_400)
        let compiler = Compiler(vault: vault, environment: [:])
        #expect(compiler.generatedAt() == "2023-11-14T22:13:20Z")
        #expect(
            Compiler(vault: vault, environment: ["SOURCE_DATE_EPOCH": "86400"]).generatedAt() == "1970-01-02T00:00:00Z")
    }

    @Test func aFolderOutsideARepositoryHasNoDate() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-nogit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(LastCommit.time(of: folder) == nil)
        #expect(Compiler(vault: folder, environment: [:]).generatedAt() == nil)
    }

    @Test func aProgramsOutputIsTakenOnlyWhenItSucceeds() {
        #expect(Subprocess.output(of: ["printf", "a\\nb"]) == Array("a\nb".utf8))
        #expect(Subprocess.output(of: ["sh", "-c", "printf partial; exit 3"]) == nil, "a failing status")
        #expect(Subprocess.output(of: ["sh", "-c", "kill -TERM $$"]) == nil, "ended by a signal")
        #expect(Subprocess.output(of: ["locker-no-such-program"]) == nil)
        // Standard input is empty, not the test's own.
        #expect(Subprocess.output(of: ["cat"]) == [])
        // More than a pipe's buffer: read while the program writes.
        #expect(Subprocess.output(of: ["sh", "-c", "head -c 200000 /dev/zero"])?.count == 200_000)
    }
}
