import Foundation
import LockerKit
import Testing

/// Runs the built `locker` binary, as a user or CI would.
struct LockerRun {
    var status: Int32
    var stdout: String
    var stderr: String
    /// Whether the run was stopped for taking longer than its time limit.
    var timedOut = false

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["LOCKER_BIN"] { return URL(fileURLWithPath: path) }
        // The test bundle sits next to the executables SwiftPM built.
        var folder = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("locker")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/locker")
    }

    @discardableResult
    init(
        _ arguments: [String], in folder: URL, environment: [String: String] = ["SOURCE_DATE_EPOCH": "0"],
        stdin: String? = nil, executable: String? = nil, timeLimit: TimeInterval? = nil
    ) throws {
        let process = Process()
        process.executableURL = executable.map { URL(fileURLWithPath: $0) } ?? Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            // From another thread, so a large input cannot block while the output fills up.
            let writer = input.fileHandleForWriting
            Thread.detachNewThread {
                writer.write(Data(stdin.utf8))
                try? writer.close()
            }
        }
        // A run that must not hang is stopped at its limit, and says so.
        let stopped = Locked(false)
        if let timeLimit {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit) {
                if process.isRunning {
                    stopped.value = true
                    process.terminate()
                }
            }
        }
        // Both streams at once: a command that fills one pipe while the other is read would wait
        // for ever (it did, under AddressSanitizer, with pages of reports on standard error).
        let errors = Locked(Data())
        let reader = err.fileHandleForReading
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            errors.value = reader.readDataToEndOfFile()
            done.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        let errData = errors.value
        process.waitUntilExit()
        timedOut = stopped.value
        status = process.terminationStatus
        stdout = String(decoding: outData, as: UTF8.self)
        stderr = String(decoding: errData, as: UTF8.self)
    }
}

/// A value set on one thread and read on another: the run's time limit and the standard error
/// read beside standard output.
private final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}

/// A working folder holding a vault at `vault/`.
struct Workspace {
    let root: URL

    init(_ files: [String: String]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("locker-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (path, text) in files {
            let url = root.appendingPathComponent("vault").appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    func read(_ path: String) throws -> Data { try Data(contentsOf: root.appendingPathComponent(path)) }
}

@Suite struct CommandLineTests {
    static let broken: [String: String] = [
        "guides/a.md": "---\ncategory: sailing\n---\n## Part\n\nSee [[nowhere]].\n",
        "guides/b.md": "![[c]]\n", "guides/c.md": "![[b]]\n",
    ]

    @Test func checkListsEveryProblemWithItsPositionAndFails() throws {
        let workspace = try Workspace(Self.broken)
        defer { workspace.remove() }
        let run = try LockerRun(["check", "vault"], in: workspace.root)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.filter { !$0.hasPrefix("  ") } == [
                "vault/guides/a.md:2:11: error: 'sailing' is not a valid category [frontmatter.invalid-value]",
                "vault/guides/a.md:6:5: warning: no note named 'nowhere' [link.broken]",
                "vault/guides/b.md:1:1: error: embeds form a cycle: guides/b.md → guides/c.md → guides/b.md [embed.cycle]",
                "vault/guides/c.md:1:1: error: embeds form a cycle: guides/c.md → guides/b.md → guides/c.md [embed.cycle]",
                "3 notes checked: 3 errors, 1 warning.",
            ])
        #expect(
            !FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("build").path),
            "check writes nothing")
    }

    @Test func checkPassesWithWarningsAndFailsThemUnderStrict() throws {
        let workspace = try Workspace(["note.md": "[[later]]\n"])
        defer { workspace.remove() }
        #expect(try LockerRun(["check", "vault"], in: workspace.root).status == 0)
        let strict = try LockerRun(["check", "vault", "--strict"], in: workspace.root)
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("vault/note.md:1:1: error: no note named 'later' [link.broken]"))
    }

    /// `check` and `build` print the same document on standard output, and nothing else there.
    @Test(arguments: [["check"], ["build", "--out", "out"]])
    func checkAndBuildWriteJSONForTools(command: [String]) throws {
        let workspace = try Workspace(Self.broken)
        defer { workspace.remove() }
        let run = try LockerRun(command + ["vault", "--format", "json"], in: workspace.root)
        #expect(run.status == 1)
        #expect(run.stderr == (command[0] == "build" ? "locker: nothing written; out is unchanged.\n" : ""))
        let document = try JSONDecoder().decode(JSONValue.self, from: Data(run.stdout.utf8))
        guard case .object(let root) = document, case .array(let items)? = root["diagnostics"],
            case .object(let first)? = items.first
        else {
            Issue.record("unexpected JSON: \(run.stdout)")
            return
        }
        #expect(items.count == 4)
        #expect(first["file"] == .string("vault/guides/a.md"))
        #expect(first["line"] == .int(2))
        #expect(first["column"] == .int(11))
        #expect(first["code"] == .string("frontmatter.invalid-value"))
        #expect(root["summary"] == .object(["notes": .int(3), "errors": .int(3), "warnings": .int(1)]))
    }

    @Test func aBuildInJSONSaysWhatItBuiltOnStandardError() throws {
        let workspace = try Workspace(["a.md": "Hello [[nowhere]].\n"])
        defer { workspace.remove() }
        for attempt in ["built", "up to date"] {
            let run = try LockerRun(["build", "vault", "--out", "out", "--format", "json"], in: workspace.root)
            #expect(run.status == 0, "\(run.stderr)")
            let document = try JSONDecoder().decode(JSONValue.self, from: Data(run.stdout.utf8))
            guard case .object(let root) = document else {
                Issue.record("unexpected JSON: \(run.stdout)")
                continue
            }
            #expect(root["summary"] == .object(["notes": .int(1), "errors": .int(0), "warnings": .int(1)]))
            let said = attempt == "built" ? "Built 1 guide, 0 checklists and 0 decks" : "Up to date. Built 1 guide"
            #expect(run.stderr.hasPrefix(said), "\(attempt): \(run.stderr)")
        }
    }

    @Test func checkWritesGitHubAnnotations() throws {
        let workspace = try Workspace(Self.broken)
        defer { workspace.remove() }
        let run = try LockerRun(["check", "vault", "--format", "github"], in: workspace.root)
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.hasPrefix("::error ") || $0.hasPrefix("::warning ") })
        #expect(
            lines.contains {
                $0.hasPrefix(
                    "::warning file=vault/guides/a.md,line=6,col=5,title=link.broken::no note named 'nowhere'%0A")
            })
    }

    @Test func buildWritesBundlesAndIsByteIdenticalTwice() throws {
        let workspace = try Workspace([
            "locker.yml": "locales: [ru, en]\n", "a.md": "---\nlang: en\n---\nHello [[b]].\n", "b.ru.md": "Привет.\n",
        ])
        defer { workspace.remove() }
        let first = try LockerRun(["build", "vault", "--out", "out"], in: workspace.root)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout.hasPrefix(
                "2 notes checked: 0 errors, 0 warnings.\nBuilt 2 guides, 0 checklists and 0 decks in ru, en into out/bundles/v1"
            ), "\(first.stdout)")
        #expect(first.stderr.isEmpty, "\(first.stderr)")
        let manifest = try JSONDecoder().decode(Manifest.self, from: workspace.read("out/bundles/v1/manifest.json"))
        #expect(manifest.defaultLocale == "ru")
        #expect(manifest.generatedAt == "1970-01-01T00:00:00Z")
        for entry in manifest.files {
            let data = try workspace.read("out/bundles/v1/" + entry.path)
            #expect(ContentHash.sha256Hex(data) == entry.sha256)
        }
        let snapshot = try workspace.read("out/bundles/v1/manifest.json")
        #expect(try LockerRun(["build", "vault", "--out", "out"], in: workspace.root).status == 0)
        #expect(try workspace.read("out/bundles/v1/manifest.json") == snapshot)
    }

    /// The HTML pages of a build's site.
    static func pageCount(_ output: URL) throws -> Int {
        let site = output.appendingPathComponent("site")
        let walker = FileManager.default.enumerator(atPath: site.path)
        var count = 0
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix(".html") { count += 1 }
        }
        return count
    }

    @Test func progressShowsOnATerminalOnlyAndTimingsWhenAskedFor() throws {
        let workspace = try Workspace(["a.md": "Hello [[b]].\n", "b.md": "World.\n"])
        defer { workspace.remove() }
        // Not a terminal: no progress line, nothing but the report and what was built.
        let piped = try LockerRun(["build", "vault", "--out", "out"], in: workspace.root)
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty, "\(piped.stderr)")
        #expect(!piped.stdout.contains("\u{1B}"))
        #expect(piped.stdout.hasPrefix("2 notes checked: 0 errors, 0 warnings.\nBuilt 2 guides"), "\(piped.stdout)")

        let timed = try LockerRun(["build", "vault", "--out", "timed", "--timings"], in: workspace.root)
        let phases = timed.stderr.split(separator: "\n").compactMap { $0.split(separator: " ").first }
        #expect(
            phases == ["scanning", "parsing", "linking", "bundling", "rendering", "finishing", "total", "templates"])
        // The templates' time: the site's pages, the two guides' and the index, home and 404 pages.
        let templates = try #require(timed.stderr.split(separator: "\n").last)
        #expect(
            templates.contains(
                " s of CPU, \(try Self.pageCount(workspace.root.appendingPathComponent("timed"))) pages at "))
        let checked = try LockerRun(["check", "vault", "--timings"], in: workspace.root)
        #expect(
            checked.stderr.split(separator: "\n").compactMap { $0.split(separator: " ").first } == [
                "scanning", "parsing", "linking", "total",
            ])

        // A terminal (script(1) gives the command one): the line is drawn, then cleared before
        // anything else is printed.
        let command = "\(LockerRun.binary.path) build vault --out drawn"
        let terminal = try LockerRun(
            ["-qec", command, "/dev/null"], in: workspace.root, environment: ["TERM": "xterm"],
            executable: "/usr/bin/script")
        #expect(terminal.status == 0, "\(terminal.stdout)")
        let clear = "\r\u{1B}[2K"
        #expect(terminal.stdout.contains(clear + "parsing 0/2 notes…" + clear + "parsing 2/2 notes…"))
        #expect(terminal.stdout.contains(clear + "rendering 2/2 pages…" + clear + "2 notes checked"))
        #expect(terminal.stdout.contains(clear + "finishing…" + clear + "Built 2 guides, 0 checklists and 0 decks"))
        #expect(terminal.stdout.hasSuffix("drawn/site: 4 pages.\r\n"), "\(terminal.stdout)")
    }

    @Test func anUnchangedVaultIsUpToDateAndAnyChangeBuildsAgain() throws {
        let workspace = try Workspace(["a.md": "Hello [[b]].\n", "b.md": "See [[nowhere]].\n"])
        defer { workspace.remove() }
        func build(_ extra: [String] = []) throws -> LockerRun {
            let run = try LockerRun(["build", "vault", "--out", "out"] + extra, in: workspace.root)
            #expect(run.status == 0, "\(run.stderr)")
            return run
        }
        func inode(_ path: String) throws -> Int {
            let attributes = try FileManager.default.attributesOfItem(
                atPath: workspace.root.appendingPathComponent(path).path)
            return try #require(attributes[.systemFileNumber] as? Int)
        }
        let first = try build()
        #expect(!first.stdout.contains("Up to date. "))
        let marker = try inode("out/.locker-build")

        // Nothing changed: the same report, the output untouched.
        let second = try build()
        let report = "2 notes checked: 0 errors, 1 warning.\n"
        #expect(first.stdout.contains(report + "Built 2 guides"), "\(first.stdout)")
        #expect(second.stdout == first.stdout.replacingOccurrences(of: report, with: report + "Up to date. "))
        #expect(second.stdout.contains("no note named 'nowhere'"))
        #expect(second.stderr.isEmpty)
        #expect(try inode("out/.locker-build") == marker)

        // Each of these builds again.
        try Data("Hello again [[b]].\n".utf8).write(to: workspace.root.appendingPathComponent("vault/a.md"))
        #expect(!(try build()).stdout.contains("Up to date. "), "an edited note")
        #expect(try build().stdout.contains("Up to date. "))
        try Data("New.\n".utf8).write(to: workspace.root.appendingPathComponent("vault/c.md"))
        #expect(!(try build()).stdout.contains("Up to date. "), "a new note")
        try FileManager.default.removeItem(at: workspace.root.appendingPathComponent("vault/c.md"))
        #expect(!(try build()).stdout.contains("Up to date. "), "a removed note")
        #expect(
            !(try build(["--base-url", "https://sail.example/"])).stdout.contains("Up to date. "), "another option")
        #expect(try build(["--base-url", "https://sail.example/"]).stdout.contains("Up to date. "))
        try FileManager.default.removeItem(at: workspace.root.appendingPathComponent("out/site/guides/b/index.html"))
        #expect(
            !(try build(["--base-url", "https://sail.example/"])).stdout.contains("Up to date. "),
            "a file of the output removed")
        #expect(
            FileManager.default.fileExists(
                atPath: workspace.root.appendingPathComponent("out/site/guides/b/index.html").path))
        let environment = ["SOURCE_DATE_EPOCH": "86400"]
        let dated = try LockerRun(
            ["build", "vault", "--out", "out", "--base-url", "https://sail.example/"], in: workspace.root,
            environment: environment)
        #expect(!dated.stdout.contains("Up to date. "), "another content date")
    }

    /// A vault of 3,000 linked notes: a build long enough to interrupt.
    private static func interruptibleWorkspace() throws -> Workspace {
        var files: [String: String] = [:]
        for index in 0..<3000 {
            files["notes/n\(index).md"] = "---\ntitle: Note \(index)\n---\n## Part\n\nSee [[n\((index + 1) % 3000)]].\n"
        }
        return try Workspace(files)
    }

    /// Starts `locker build vault --out out`, interrupts it as soon as `started` holds (polled
    /// without a pause: the handlers must be live by then, or the signal is lost or kills the
    /// build), and returns its exit status.
    private static func interruptedBuild(in workspace: Workspace, once started: () -> Bool) throws -> Int32 {
        let process = Process()
        process.executableURL = LockerRun.binary
        process.arguments = ["build", "vault", "--out", "out"]
        process.currentDirectoryURL = workspace.root
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while !started(), process.isRunning, Date() < deadline {}
        #expect(started(), "the build was not caught writing")
        process.interrupt()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Interrupted as soon as the staging folder exists, and once pages are being written into it.
    @Test(arguments: ["", "/site/guides/notes"])
    func anInterruptedFirstBuildLeavesNoStagingFolder(writing folder: String) throws {
        let workspace = try Self.interruptibleWorkspace()
        defer { workspace.remove() }
        func staging() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: workspace.root.path)) ?? [])
                .filter { $0.hasPrefix(".out.") && $0 != ".out.lock" }
        }
        let started = {
            staging().contains { FileManager.default.fileExists(atPath: workspace.root.path + "/" + $0 + folder) }
        }
        #expect(try Self.interruptedBuild(in: workspace, once: started) == 130)
        #expect(staging().isEmpty, "left behind: \(staging())")
        #expect(!FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("out").path))
    }

    /// A rebuild sees a note added to, removed from or renamed in a folder of the vault.
    @Test func aRebuildSeesNotesAddedRemovedAndRenamed() throws {
        let workspace = try Workspace([
            "harbour/a.md": "Hello [[b]].\n", "harbour/b.md": "B.\n", "galley/c.md": "C.\n",
        ])
        defer { workspace.remove() }
        func build() throws -> String {
            let run = try LockerRun(["build", "vault", "--out", "out"], in: workspace.root)
            #expect(run.status == 0, "\(run.stderr)")
            return run.stdout
        }
        func pages() throws -> [String] {
            try FileManager.default.contentsOfDirectory(
                atPath: workspace.root.appendingPathComponent("out/site/guides/harbour").path
            ).sorted()
        }
        func write(_ path: String, _ text: String) throws {
            try Data(text.utf8).write(to: workspace.root.appendingPathComponent("vault/" + path))
        }
        _ = try build()
        try write("harbour/a.md", "Hello again [[b]].\n")
        _ = try build()
        try write("harbour/d.md", "D.\n")
        _ = try build()
        #expect(try pages() == ["a", "b", "d"])
        try FileManager.default.moveItem(
            at: workspace.root.appendingPathComponent("vault/harbour/b.md"),
            to: workspace.root.appendingPathComponent("vault/harbour/e.md"))
        #expect(try build().contains("no note named 'b'"))
        #expect(try pages() == ["a", "d", "e"])
        try FileManager.default.removeItem(at: workspace.root.appendingPathComponent("vault/galley/c.md"))
        _ = try build()
        #expect(
            !FileManager.default.fileExists(
                atPath: workspace.root.appendingPathComponent("out/site/guides/galley/c/index.html").path))
    }

    @Test func anInterruptedRebuildLeavesThePreviousOutputAndNoTemporaryFile() throws {
        let workspace = try Self.interruptibleWorkspace()
        defer { workspace.remove() }
        #expect(try LockerRun(["build", "vault", "--out", "out"], in: workspace.root).status == 0)
        let manifest = try workspace.read("out/bundles/v1/manifest.json")
        let page = try workspace.read("out/site/guides/notes/n0/index.html")
        // A new site title: every page is written again, over the previous build, in place.
        try Data("title: Changed\n".utf8).write(to: workspace.root.appendingPathComponent("vault/locker.yml"))
        // Caught once its scratch folder in the output holds new files.
        func writing() -> Bool {
            let out = workspace.root.path + "/out"
            let scratch = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [])
                .filter { $0.hasPrefix(".locker-tmp-") }
            return scratch.contains {
                ((try? FileManager.default.subpathsOfDirectory(atPath: out + "/" + $0)) ?? []).count > 100
            }
        }
        #expect(try Self.interruptedBuild(in: workspace, once: writing) == 130)
        let everyFile = try FileManager.default.subpathsOfDirectory(atPath: workspace.root.path + "/out")
        let records: Set<String> = [
            ".locker-build", ".locker-notes",
        ]
        #expect(
            everyFile.filter {
                $0.contains(".locker-") && !records.contains($0)
            } == [])
        #expect(try workspace.read("out/bundles/v1/manifest.json") == manifest)
        #expect(try workspace.read("out/site/guides/notes/n0/index.html") == page)
        // The next build finds the previous output whole and builds the new one.
        #expect(try LockerRun(["build", "vault", "--out", "out"], in: workspace.root).status == 0)
        #expect(
            String(decoding: try workspace.read("out/bundles/v1/manifest.json"), as: UTF8.self).contains(
                "\"title\":\"Changed\""))
    }

    @Test func failedBuildWritesNothingAndKeepsThePreviousOutput() throws {
        let workspace = try Workspace(["a.md": "Fine.\n"])
        defer { workspace.remove() }
        #expect(try LockerRun(["build", "vault", "--out", "out"], in: workspace.root).status == 0)
        let before = try workspace.read("out/bundles/v1/manifest.json")
        try Data("---\nid: bad id\n---\n".utf8).write(to: workspace.root.appendingPathComponent("vault/b.md"))
        let failed = try LockerRun(["build", "vault", "--out", "out"], in: workspace.root)
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("vault/b.md:2:5: error: id 'bad id' is not usable [id.invalid]"))
        #expect(!failed.stdout.contains("nothing written"))
        #expect(failed.stderr == "locker: nothing written; out is unchanged.\n")
        #expect(try workspace.read("out/bundles/v1/manifest.json") == before)
    }

    @Test func badUsageAndMissingVaultsExitWithTwo() throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        #expect(try LockerRun(["check", "--no-such-flag"], in: workspace.root).status == 2)
        #expect(try LockerRun(["check", "vault", "--format", "xml"], in: workspace.root).status == 2)
        let missing = try LockerRun(["check", "nowhere"], in: workspace.root)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no vault folder"))
        #expect(try LockerRun(["--help"], in: workspace.root).status == 0)
    }

    @Test func idsListsThenWritesThenHasNothingLeft() throws {
        let original = "---\ntype: checklist\n---\n## Deck\n\n- [ ] Winches\n  Grease them.\n- [ ] Ropes ^ropes\n"
        let workspace = try Workspace([
            "check-in.md": original, "broken.md": "---\ntype: checklist\n---\n## A\n- [ ]\n- Real item\n",
        ])
        defer { workspace.remove() }
        let list = try LockerRun(["ids", "vault"], in: workspace.root)
        #expect(list.status == 1, "broken.md has errors, so it is left alone: \(list.stderr)")
        #expect(list.stdout.contains("vault/check-in.md:6:1: ^winches  Winches\n"), "\(list.stdout)")
        #expect(list.stderr.contains("locker: left vault/broken.md alone: the note has errors"), "\(list.stderr)")
        #expect(try workspace.read("vault/check-in.md") == Data(original.utf8), "listing writes nothing")

        try FileManager.default.removeItem(at: workspace.root.appendingPathComponent("vault/broken.md"))
        let write = try LockerRun(["ids", "vault", "--write"], in: workspace.root)
        #expect(write.status == 0, "\(write.stderr)")
        #expect(write.stdout.hasSuffix("Wrote 1 ID into 1 note.\n"), "\(write.stdout)")
        let stamped = original.replacingOccurrences(of: "- [ ] Winches\n", with: "- [ ] Winches ^winches\n")
        #expect(try workspace.read("vault/check-in.md") == Data(stamped.utf8))

        let again = try LockerRun(["ids", "vault"], in: workspace.root)
        #expect(again.status == 0)
        #expect(again.stdout == "Every checklist item and card has a written ID.\n")
        let strict = try LockerRun(["check", "vault", "--strict"], in: workspace.root)
        #expect(strict.status == 0, "\(strict.stdout)")
    }
}
