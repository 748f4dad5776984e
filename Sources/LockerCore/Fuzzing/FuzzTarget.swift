import Foundation
import LockerKit

/// What the fuzzers feed arbitrary bytes to (`make fuzz`; the `locker-fuzz` executable).
///
/// Each target runs real stages of the pipeline on its input and must return, whatever the
/// bytes: a crash, a hang or a sanitizer report is a bug. Beyond not crashing, a target checks
/// what every input must give: each diagnostic points inside its file.
@_spi(Fuzzing) public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The input is a note's YAML frontmatter, between its `---` fences.
    case frontmatter
    /// The input is a whole note: frontmatter, markdown and Obsidian syntax.
    case markdown
    /// The input is `locker.yml`; a small note is then parsed under the settings it gives.
    case config
    /// The input is a small vault: files separated by NUL bytes, each naming its place with its
    /// first byte (see ``vaultPaths``), compiled into bundles and a site as `locker build` does:
    /// links, embeds, decks, translations, templates.
    case vault

    /// Where a ``vault`` file goes, by its first byte modulo the count.
    public static let vaultPaths = [
        VaultConfig.fileName, "guides/a.md", "guides/a.en.md", "guides/b.md", "x.de.md", "checklists/c.md",
        "checklists/c.en.md", "decks/d/_deck.md", "decks/d/_deck.en.md", "site/p.md", "site/images/i.png",
        "templates/guide.mustache",
    ]

    /// Runs the target on one input.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .frontmatter:
            let note = Array("---\n".utf8) + bytes + Array("\n---\n# Title\n".utf8)
            Self.parse(note, config: VaultConfig())
        case .markdown:
            Self.parse(bytes, config: VaultConfig())
        case .config:
            let (decoded, decodeDiagnostics) = SourceDecoder(maxBytes: 1 << 20).decode(
                bytes, file: VaultConfig.fileName)
            Self.expectInside(decodeDiagnostics, bytes)
            guard let decoded else { return }
            let (config, diagnostics) = VaultConfig.parse(decoded.text)
            Self.expectInside(diagnostics, bytes)
            Self.parse(Self.sampleNote, config: config)
        case .vault:
            Self.compile(Self.files(of: bytes))
        }
    }

    /// A note with a little of everything, parsed under a fuzzed `locker.yml`.
    static let sampleNote = Array(
        """
        ---
        title: Sample
        lang: en
        tags: [a]
        ---
        # Sample

        ## Part ^part
        - [ ] Item [[other#Part]] ^item
        > [!warning] Callout
        > text ![[image.png]]

        """.utf8)

    private static func parse(_ bytes: [UInt8], config: VaultConfig) {
        let path = "guides/note.md"
        let (_, diagnostics) = NoteParser(config: config).parse(path: path, bytes: bytes)
        expectInside(diagnostics.filter { $0.file == path }, bytes)
    }

    /// The files of a ``vault`` input, by their path in the vault; a later file with the same
    /// path replaces an earlier one.
    static func files(of bytes: [UInt8]) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for chunk in bytes.split(separator: 0, omittingEmptySubsequences: true) {
            guard let first = chunk.first else { continue }
            files[vaultPaths[Int(first) % vaultPaths.count]] = Array(chunk.dropFirst())
        }
        return files
    }

    /// Compiles the files as a vault in a folder of its own, into memory.
    private static func compile(_ files: [String: [UInt8]]) {
        let fileManager = FileManager.default
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let root = (fileManager.fileExists(atPath: shm.path) ? shm : fileManager.temporaryDirectory)
            .appendingPathComponent("locker-fuzz-\(UUID().uuidString)", isDirectory: true)
        defer { try? fileManager.removeItem(at: root) }
        do {
            try fileManager.createDirectory(at: root, withIntermediateDirectories: true)
            for (path, bytes) in files {
                let url = root.appendingPathComponent(path)
                try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: url)
            }
        } catch {
            fatalError("cannot write the vault into \(root.path): \(error)")
        }
        // Only an unreadable vault or output may throw, and neither is: any error is a bug.
        let compilation: Compilation
        do {
            compilation = try Compiler.$onOneThread.withValue(true) {
                try Compiler(vault: root, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
            }
        } catch {
            fatalError("the compile threw: \(error)")
        }
        for (path, bytes) in files {
            expectInside(compilation.diagnostics.filter { $0.file == path }, bytes)
        }
    }

    /// Stops the process when a diagnostic points outside its file: before line 1 or column 1,
    /// or past the file's end.
    static func expectInside(_ diagnostics: [Diagnostic], _ bytes: [UInt8]) {
        // Every line ending counts: CR, LF and CRLF, as the decoder reads them.
        var lines = 1
        var longest = 0
        var length = 0
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == 0x0A, previous == 0x0D {
            } else if byte == 0x0A || byte == 0x0D {
                lines += 1
                longest = max(longest, length)
                length = 0
            } else {
                length += 1
            }
            previous = byte
        }
        longest = max(longest, length)
        for diagnostic in diagnostics {
            let position = diagnostic.position
            if position.line < 1 || position.column < 1 || position.line > lines || position.column > longest + 1 {
                fatalError(
                    "\(diagnostic.file):\(position.line):\(position.column) is outside the file "
                        + "(\(lines) lines, the longest \(longest) bytes): \(diagnostic.message) [\(diagnostic.code)]")
            }
        }
    }
}
