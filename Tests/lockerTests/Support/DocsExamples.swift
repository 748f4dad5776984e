import Foundation

/// The examples of README.md and docs/ that show what Locker writes and prints, made by running
/// the built `locker` binary: every generated region of the documents (``DocRegions``), by name.
///
/// It builds `content/` once into a work folder, as `make run` does but with a fixed content time
/// (`SOURCE_DATE_EPOCH`), signed with a fixed example key, and runs the runtime commands there
/// with `--today` and progress files of its own, with `TZ=UTC`, so that the output changes only
/// when the content or the program does. It also builds the charter and site test vaults, a copy
/// of `content/` with problems added, and a small vault of its own for the format's examples.
/// `DocsExamplesTests` compares each region of the documents with what is made here.
struct DocsExamples {
    /// The documents that may hold generated regions, relative to the repository.
    static let documents = [
        "README.md", "docs/architecture.md", "docs/bundle-format.md", "docs/content-format.md", "docs/runtime.md",
        "docs/site.md",
    ]
    /// The content time of every build: 2026-11-22T12:00:00Z.
    static let epoch = 1_795_348_800
    /// The day the runtime commands act on (`--today`).
    static let today = "2026-11-22"
    /// The example signing key: the 32 bytes 1, 2, …, 32, so never a secret; its public half is
    /// what `locker sync` is given.
    static let signingKey = Data((1...32).map { UInt8($0) }).base64EncodedString()
    static let publicKey = "ebVWLo/mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ="

    static let repository = BuiltContent.repository

    /// The regions, made once per test run.
    static let shared: Result<[String: String], Failure> = {
        do {
            return .success(try DocsExamples().regions)
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure(message: "\(error)"))
        }
    }()

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { "making the docs' examples: \(message)" }
    }

    /// Where everything is built and run; each command runs here unless it says otherwise.
    let work: URL
    /// The region texts by name.
    var regions: [String: String] = [:]
    /// The random UUIDs met in the runtime commands' output, in order (see ``numberingUUIDs(_:)``).
    var randomUUIDs: [String] = []

    private init() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("locker-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try buildContent()
        try makeBundleExamples()
        try makeRuntimeExamples()
        try makeCheckExamples()
        try makeSiteExamples()
    }

    /// `content/` built into `work/build`, signed with the example key.
    private mutating func buildContent() throws {
        let keys = work.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        try write(Self.signingKey + "\n", to: keys.appendingPathComponent("locker-signing.key"))
        try write(Self.publicKey + "\n", to: keys.appendingPathComponent("locker-signing.pub"))
        try locker(
            ["build", Self.repository.appendingPathComponent("content").path, "--out", "build"]
                + ["--sign-key", "keys/locker-signing.key"])
    }

    // MARK: - Running

    /// The environment of every command: the fixed content time, UTC, no signing key from the
    /// caller's environment, and progress kept in the work folder unless a command names a file.
    var environment: [String: String] {
        [
            "SOURCE_DATE_EPOCH": String(Self.epoch), "TZ": "UTC", "LOCKER_SIGNING_KEY": "",
            "LOCKER_PROGRESS": work.appendingPathComponent("default-progress.sqlite").path,
            "XDG_DATA_HOME": work.appendingPathComponent("xdg").path, "NO_COLOR": "1",
        ]
    }

    /// Runs `locker arguments` in `folder` (the work folder by default) and checks its exit status.
    @discardableResult
    func locker(_ arguments: [String], in folder: URL? = nil, stdin: String? = nil, status: Int32 = 0) throws
        -> LockerRun
    {
        let run = try LockerRun(
            arguments, in: folder ?? work, environment: environment, stdin: stdin, timeLimit: 120)
        guard run.status == status else {
            throw Failure(
                message: "locker \(arguments.joined(separator: " ")) exited \(run.status), not \(status):\n"
                    + run.stdout + run.stderr)
        }
        return run
    }

    /// Runs another program (`sqlite3`) found on `PATH`.
    func program(_ name: String, _ arguments: [String], in folder: URL? = nil) throws -> LockerRun {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let found = paths.map({ "\($0)/\(name)" }).first(where: FileManager.default.isExecutableFile(atPath:))
        else { throw Failure(message: "\(name) is not installed (make test-deps installs it)") }
        let run = try LockerRun(arguments, in: folder ?? work, environment: environment, executable: found)
        guard run.status == 0 else {
            throw Failure(message: "\(name) \(arguments) exited \(run.status): \(run.stderr)")
        }
        return run
    }

    func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func read(_ path: String, in folder: URL? = nil) throws -> String {
        String(decoding: try Data(contentsOf: (folder ?? work).appendingPathComponent(path)), as: UTF8.self)
    }

    /// A copy of `source` at `work/path`.
    func copy(_ source: URL, to path: String) throws -> URL {
        let target = work.appendingPathComponent(path)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: target)
        return target
    }

    // MARK: - Writing regions

    /// `text` in a fenced code block.
    static func fenced(_ text: String, _ language: String = "") -> String {
        "```\(language)\n" + lines(text) + "```\n"
    }

    /// `text` ending in exactly one newline (none when empty).
    static func lines(_ text: String) -> String {
        var text = text
        while text.hasSuffix("\n") { text.removeLast() }
        return text.isEmpty ? "" : text + "\n"
    }

    /// A command as a doc shows it, then what it printed: standard error before standard output
    /// when the command says something before it starts (`errorFirst`), else after.
    static func transcript(_ shown: String, _ run: LockerRun, errorFirst: Bool = false) -> String {
        "$ \(shown)\n" + (errorFirst ? lines(run.stderr) + lines(run.stdout) : lines(run.stdout) + lines(run.stderr))
    }

    /// Runs `locker arguments` and returns it as a doc shows it: the command line, its input
    /// piped in by `printf` when it reads some, then what it printed (see ``transcript(_:_:errorFirst:)``).
    func shown(
        _ arguments: [String], in folder: URL? = nil, stdin: String? = nil, status: Int32 = 0, errorFirst: Bool = false
    ) throws -> String {
        let run = try locker(arguments, in: folder, stdin: stdin, status: status)
        let input = stdin.map { "printf '\($0.replacingOccurrences(of: "\n", with: "\\n"))' | " } ?? ""
        return Self.transcript(input + "locker " + Self.shell(arguments), run, errorFirst: errorFirst)
    }

    /// Arguments as a shell line: each one that holds anything but letters, digits and
    /// `-_./:=#%,+@^` between single quotes.
    static func shell(_ arguments: [String]) -> String {
        let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./:=#%,+@^"))
        return arguments.map { argument in
            argument.unicodeScalars.allSatisfy(plain.contains) && !argument.isEmpty
                ? argument : "'" + argument.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }.joined(separator: " ")
    }

    /// Replaces each random (version 4) UUID in `text` by one that says which it is in the order
    /// met, `00000001-0000-4000-8000-000000000001` and so on (decimal digits, so the same in
    /// either case), in the case written; the first 8 digits of one (`locker charter list`'s
    /// short IDs) likewise.
    mutating func numberingUUIDs(_ text: String) -> String {
        var result = text
        let pattern = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}/
        for match in text.matches(of: pattern) where !randomUUIDs.contains(match.output.lowercased()) {
            randomUUIDs.append(match.output.lowercased())
        }
        for (index, uuid) in randomUUIDs.enumerated() {
            let number = index + 1
            let digits = String(number)
            let short = String(repeating: "0", count: max(0, 8 - digits.count)) + digits
            let long = String(repeating: "0", count: max(0, 12 - digits.count)) + digits
            let placeholder = "\(short)-0000-4000-8000-\(long)"
            result = result.replacingOccurrences(of: uuid, with: placeholder)
                .replacingOccurrences(of: uuid.uppercased(), with: placeholder.uppercased())
                .replacingOccurrences(of: String(uuid.prefix(8)), with: short)
                .replacingOccurrences(of: String(uuid.prefix(8)).uppercased(), with: short.uppercased())
        }
        return result
    }
}
