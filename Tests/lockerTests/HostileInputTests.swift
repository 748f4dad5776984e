import Foundation
import Testing

/// Hostile vaults: content of any size or shape gives diagnostics and exit 1, never a signal.
@Suite struct HostileInputTests {
    static let levels = 100_000

    /// Notes nested 100,000 levels deep in every way markdown and YAML nest, with the line and
    /// column of each one's diagnostic.
    static let notes: [(path: String, text: String, expected: String)] = [
        ("quotes.md", "# Q\n\n" + String(repeating: "> ", count: levels) + "deep\n", "quotes.md:3:41: error"),
        ("lists.md", "# L\n\n" + String(repeating: "- ", count: levels) + "deep\n", "lists.md:3:41: error"),
        ("ordered.md", "# O\n\n" + String(repeating: "1. ", count: levels) + "deep\n", "ordered.md:3:61: error"),
        (
            "callouts.md",
            "# C\n\n" + String(repeating: "> [!note]\n", count: 1) + String(repeating: "> ", count: levels) + "x\n",
            "callouts.md:4:41: error"
        ),
        (
            "emphasis.md",
            "# E\n\n" + String(repeating: "*", count: levels) + "a" + String(repeating: "*", count: levels) + "\n",
            "emphasis.md:3:1: error"
        ),
        (
            "images.md",
            "# I\n\n" + String(repeating: "![", count: levels) + "a" + String(repeating: "](x.png)", count: levels)
                + "\n",
            "images.md:3:41: error"
        ),
        (
            "flow.md",
            "---\nx: " + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "\n---\n# F\n",
            "flow.md:2:"
        ),
        (
            "mapping.md",
            "---\nx: " + String(repeating: "{a: ", count: levels) + "1" + String(repeating: "}", count: levels)
                + "\n---\n# M\n", "mapping.md:2:"
        ),
    ]

    @Test func deepNestingIsADiagnosticForCheckAndBuild() throws {
        var files = Dictionary(uniqueKeysWithValues: Self.notes.map { ($0.path, $0.text) })
        // A 50 MB note: refused by its size before it is parsed.
        files["large.md"] = String(repeating: "Fifty megabytes of text. ", count: 2_000_000)
        let workspace = try Workspace(files)
        defer { workspace.remove() }
        for arguments in [["check", "vault"], ["build", "vault", "--out", "out"]] {
            let run = try LockerRun(arguments, in: workspace.root)
            #expect(run.status == 1, "\(arguments[0]): \(run.stdout)\(run.stderr)")
            let lines = (run.stdout + run.stderr).split(separator: "\n").map(String.init)
            for note in Self.notes {
                #expect(lines.contains { $0.hasPrefix("vault/" + note.expected) }, "\(arguments[0]) \(note.path)")
            }
            #expect(lines.contains { $0.hasPrefix("vault/large.md:") && $0.hasSuffix("[file.too-large]") })
        }
        #expect(!FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("out").path))
    }

    @Test func deepOrLargeSettingsAreAConfigurationError() throws {
        for (settings, expected) in [
            (
                "title: " + String(repeating: "[", count: Self.levels) + "\n",
                "vault/locker.yml:1:9: error: invalid YAML"
            ),
            (
                "title: x\n" + String(repeating: "# padding\n", count: 120_000),
                "vault/locker.yml:1:1: error: file is 1200009 bytes"
            ),
        ] {
            let workspace = try Workspace(["locker.yml": settings, "a.md": "# A\n\nText.\n"])
            defer { workspace.remove() }
            let run = try LockerRun(["build", "vault", "--out", "out"], in: workspace.root)
            #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
            #expect((run.stdout + run.stderr).contains(expected), "\(run.stdout)\(run.stderr)")
        }
    }

    @Test func inputsThatOnceTookQuadraticTimeFinish() throws {
        // 100,000 headings with one title (each numbered after the last), a million `==`
        // markers and 200,000 unmatched `*`: once minutes each, now seconds even in a debug build.
        let note =
            "# T\n\n" + String(repeating: "## a\n", count: 100_000) + "\n" + String(repeating: "==", count: 500_000)
            + "\n\n" + String(repeating: "*a", count: 200_000) + "\n"
        let workspace = try Workspace(["note.md": note, "other.md": "# O\n\n[[note#a-100000]] [[note#a-100001]]\n"])
        defer { workspace.remove() }
        let run = try LockerRun(["check", "vault"], in: workspace.root, timeLimit: 60)
        #expect(!run.timedOut, "locker check was stopped after 60 s")
        // The last heading is `a-100000`; there is no `a-100001`.
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(
            run.stdout.contains("vault/other.md:3:19: warning: 'note.md' has no heading 'a-100001'"), "\(run.stdout)")
    }
}
