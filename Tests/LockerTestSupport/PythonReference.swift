import Foundation

/// A reference implementation from PyPI, run in `python3` from the tools venv (`make tools`;
/// `make test` puts `.build/tools/bin` first on PATH): an inline script, or one shipped under
/// `Tests/`.
public enum PythonReference {
    /// Why a script did not succeed: its output, and how to get the pinned package.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes `input` to a file, runs `script` with that file and an output file as its two
    /// arguments, and returns what it wrote.
    ///
    /// - Parameter package: the pinned package, named in the failure when python3 cannot run it.
    public static func run(_ script: String, input: Data, package: String) throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-reference-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputFile = folder.appendingPathComponent("input")
        let outputFile = folder.appendingPathComponent("output")
        try input.write(to: inputFile)
        try run(script, arguments: [inputFile.path, outputFile.path], package: package)
        return try Data(contentsOf: outputFile)
    }

    /// Runs `script` with `arguments`, and requires it to succeed.
    public static func run(_ script: String, arguments: [String], package: String) throws {
        try run(["-c", script] + arguments, package: package)
    }

    /// Runs the script file at `file` with `arguments`, and requires it to succeed.
    public static func run(file: URL, arguments: [String], package: String) throws {
        try run([file.path] + arguments, package: package)
    }

    private static func run(_ arguments: [String], package: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let messages = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: """
                    python3 could not run the reference (\(package)): run `make tools`, and the tests with \
                    .build/tools/bin first on PATH, as `make test` does.
                    \(messages)
                    """)
        }
    }
}
