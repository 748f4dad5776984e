import Foundation
import LockerKit

/// The repository's `content/` vault, built once by the `locker` binary for the tests that read
/// its bundle (links, search).
enum BuiltContent {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The bundle folder, or why it could not be built.
    private static let built: Result<URL, BuildFailure> = {
        // One folder in this clone's .build, made anew by each run: none left behind per run.
        let root = repository.appendingPathComponent(".build/test-content")
        try? FileManager.default.removeItem(at: root)
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let run = try LockerRun(
                ["build", repository.appendingPathComponent("content").path, "--out", root.path], in: root)
            guard run.status == 0 else { return .failure(BuildFailure(message: run.stdout + run.stderr)) }
            return .success(root.appendingPathComponent(BundleSchema.folder))
        } catch {
            return .failure(BuildFailure(message: "\(error)"))
        }
    }()

    struct BuildFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { "locker build content failed: \(message)" }
    }

    /// The bundle folder of `content/`.
    static func folder() throws -> URL { try built.get() }

    /// The verified bundle of `content/`.
    static func bundle() throws -> ContentBundle { try ContentBundle(contentsOf: try folder()) }
}
