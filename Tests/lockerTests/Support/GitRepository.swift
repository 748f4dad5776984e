import Foundation
import Testing

/// A git repository in a temporary folder, made and changed with the real `git`, for the
/// commands that read a vault's history (`locker check --changed-since`).
struct GitRepository {
    let root: URL

    /// A new repository holding `files` (paths from its root), committed as its first commit.
    init(_ files: [String: String]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("locker-git-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try git("init", "-q")
        for (path, text) in files { try write(path, text) }
        try commit("First")
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    func write(_ path: String, _ text: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Commits everything in the working tree; returns the new commit.
    @discardableResult
    func commit(_ message: String) throws -> String {
        try git("add", "-A")
        try git("commit", "-q", "--allow-empty", "-m", message)
        return try git("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `git` in the repository, untouched by the user's own settings; requires it to succeed.
    @discardableResult
    func git(_ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["git", "-C", root.path, "-c", "user.name=Crew", "-c", "user.email=crew@example.org"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(Self.environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(
            process.terminationStatus == 0,
            "git \(arguments.joined(separator: " ")): \(String(decoding: errors, as: UTF8.self))")
        return String(decoding: output, as: UTF8.self)
    }

    /// What `git`, here and in the `locker` runs, reads instead of the machine's settings.
    static let environment = [
        "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "GIT_COMMITTER_DATE": "@1700000000 +0000",
        "GIT_AUTHOR_DATE": "@1700000000 +0000",
    ]
}
