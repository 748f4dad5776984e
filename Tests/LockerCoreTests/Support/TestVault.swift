import Foundation
import LockerKit

@testable import LockerCore

/// A vault in a temporary folder, written from a dictionary of paths and texts.
struct TestVault {
    let root: URL

    init(_ files: [String: String], config: String? = nil) throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("locker-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (path, text) in files { try write(path, Data(text.utf8)) }
        if let config { try write("locker.yml", Data(config.utf8)) }
    }

    func write(_ path: String, _ data: Data) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    func compile(strict: Bool = false, environment: [String: String] = [:]) throws -> Compilation {
        try Compiler(
            vault: root, strict: strict, environment: environment.merging(["SOURCE_DATE_EPOCH": "0"]) { $1 }
        ).compile()
    }

    /// Every diagnostic, printed as `locker check` prints them, for failure messages.
    func diagnostics(strict: Bool = false) throws -> [Diagnostic] {
        try compile(strict: strict).diagnostics
    }

    /// A compilation's bundle, written into this folder and opened with ``ContentBundle``, as
    /// the apps read it (with Foundation's JSON reader).
    func openBundle(of compilation: Compilation) throws -> ContentBundle {
        for file in compilation.files where file.path.hasPrefix("bundles/") { try write(file.path, file.data) }
        return try ContentBundle(contentsOf: root.appendingPathComponent("bundles/v1"))
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

/// Text with position markers `1️⃣`, `2️⃣`, … as in swift-format's tests: the markers are removed
/// and their positions (1-based line, column in Unicode scalars) remembered.
struct MarkedText {
    let text: String
    let markers: [String: SourcePosition]

    init(_ marked: String) {
        var clean = ""
        var markers: [String: SourcePosition] = [:]
        var line = 1
        var column = 1
        var scalars = Array(marked.unicodeScalars)[...]
        while let scalar = scalars.first {
            // A keycap emoji: digit, U+FE0F, U+20E3.
            if ("1"..."9").contains(scalar), scalars.count >= 3,
                scalars[scalars.startIndex + 1] == "\u{FE0F}", scalars[scalars.startIndex + 2] == "\u{20E3}"
            {
                markers[String(scalar)] = SourcePosition(line: line, column: column)
                scalars = scalars.dropFirst(3)
                continue
            }
            clean.unicodeScalars.append(scalar)
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            scalars = scalars.dropFirst()
        }
        text = clean
        self.markers = markers
    }

    subscript(_ marker: String) -> SourcePosition { markers[marker] ?? SourcePosition(line: 0, column: 0) }
}

extension Array where Element == Diagnostic {
    /// The diagnostics as `locker check` prints them, for failure messages.
    var rendered: String {
        map {
            "\($0.file):\($0.position.line):\($0.position.column): \($0.severity.rawValue): \($0.message) [\($0.code)]"
        }
        .joined(separator: "\n")
    }

    func with(_ code: DiagnosticCode) -> [Diagnostic] { filter { $0.code == code } }
}

/// Removes a build's output folder and the lock file a build keeps beside it (``OutputLock``).
func removeOutput(_ output: URL) {
    try? FileManager.default.removeItem(at: output)
    try? FileManager.default.removeItem(at: OutputLock.file(for: output))
}
