import Foundation
import LockerKit
import Testing

/// `locker check --changed-since REV` in a real git repository: the problems of the files
/// changed since REV, and those the changes caused in other files; no other.
@Suite struct ChangedSinceTests {
    /// A vault in `content/` of the repository, with an old warning and an old error.
    static let vault: [String: String] = [
        "content/guides/anchoring.md": "# Anchoring\n\n## Letting go\n\nPay out the chain.\n",
        "content/guides/knots.md": "# Knots\n\nBefore anchoring, read [[anchoring#Letting go]].\n",
        "content/guides/harbour.md": "# Harbour\n\nSee [[mooring]].\n",
        "content/guides/mooring.md": "# Mooring\n\nLines fore and aft.\n",
        "content/guides/old.md": "# Old\n\nA link to [[nowhere]].\n",
        "content/guides/wrong.md": "---\ncategory: sailing\n---\n# Wrong\n",
        "README.md": "The crew's notes.\n",
    ]

    static func check(_ repository: GitRepository, _ arguments: [String]) throws -> LockerRun {
        try LockerRun(
            ["check"] + arguments, in: repository.root,
            environment: GitRepository.environment.merging(["SOURCE_DATE_EPOCH": "0"]) { $1 })
    }

    /// The report's lines without hints.
    static func lines(_ run: LockerRun) -> [String] {
        run.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("  ") }
    }

    @Test func aChangedNoteReportsOnlyItsOwnProblems() throws {
        let repository = try GitRepository(Self.vault)
        defer { repository.remove() }
        let base = try repository.git("rev-parse", "HEAD").trimmingCharacters(in: .newlines)
        try repository.write("content/guides/mooring.md", "# Mooring\n\nLines fore and aft, see [[springs]].\n")
        try repository.commit("Springs")

        let run = try Self.check(repository, ["content", "--changed-since", base])
        #expect(run.status == 0, "a warning alone: \(run.stdout)\(run.stderr)")
        #expect(
            Self.lines(run) == [
                "content/guides/mooring.md:3:25: warning: no note named 'springs' [link.broken]",
                "6 notes checked: 0 errors, 1 warning (2 problems in unchanged files not shown).",
            ])
        // The whole vault, for comparison: the old warning and error are still there.
        let all = try Self.check(repository, ["content"])
        #expect(all.status == 1)
        #expect(all.stdout.hasSuffix("6 notes checked: 1 error, 2 warnings.\n"), "\(all.stdout)")

        let strict = try Self.check(repository, ["content", "--changed-since", base, "--strict"])
        #expect(strict.status == 1, "the warning reported fails under --strict")
        #expect(
            Self.lines(strict).first == "content/guides/mooring.md:3:25: error: no note named 'springs' [link.broken]")
    }

    @Test func theExitStatusFollowsTheProblemsReported() throws {
        let repository = try GitRepository(Self.vault)
        defer { repository.remove() }
        // No change: the old error is not reported and does not fail.
        let unchanged = try Self.check(repository, ["content", "--changed-since", "HEAD"])
        #expect(unchanged.status == 0, "\(unchanged.stdout)\(unchanged.stderr)")
        #expect(
            Self.lines(unchanged) == [
                "6 notes checked: 0 errors, 0 warnings (2 problems in unchanged files not shown)."
            ])

        try repository.write("content/guides/mooring.md", "---\ncategory: rowing\n---\n# Mooring\n")
        let failing = try Self.check(repository, ["content", "--changed-since", "HEAD"])
        #expect(failing.status == 1)
        #expect(
            Self.lines(failing) == [
                "content/guides/mooring.md:2:11: error: 'rowing' is not a valid category [frontmatter.invalid-value]",
                "6 notes checked: 1 error, 0 warnings (2 problems in unchanged files not shown).",
            ])
    }

    @Test func aRenamedNoteReportsTheLinksItBrokeInUnchangedNotes() throws {
        let repository = try GitRepository(Self.vault)
        defer { repository.remove() }
        let base = try repository.git("rev-parse", "HEAD").trimmingCharacters(in: .newlines)
        try repository.git("mv", "content/guides/mooring.md", "content/guides/berthing.md")
        try repository.commit("Mooring is berthing now")

        let run = try Self.check(repository, ["content", "--changed-since", base])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(
            Self.lines(run) == [
                "content/guides/harbour.md:3:5: warning: no note named 'mooring' [link.broken]",
                "6 notes checked: 0 errors, 1 warning (2 problems in unchanged files not shown).",
            ])
    }

    @Test func aRemovedHeadingReportsTheLinksToItInUnchangedNotes() throws {
        let repository = try GitRepository(Self.vault)
        defer { repository.remove() }
        // Not committed, not staged.
        try repository.write("content/guides/anchoring.md", "# Anchoring\n\nPay out the chain.\n")

        let run = try Self.check(repository, ["content", "--changed-since", "HEAD", "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let document = try JSONDecoder().decode(JSONValue.self, from: Data(run.stdout.utf8))
        guard case .object(let root) = document, case .array(let items)? = root["diagnostics"] else {
            Issue.record("unexpected JSON: \(run.stdout)")
            return
        }
        #expect(
            items == [
                .object([
                    "severity": .string("warning"), "code": .string("link.broken-heading"),
                    "message": .string("'guides/anchoring.md' has no heading 'Letting go'"),
                    "file": .string("content/guides/knots.md"), "line": .int(3), "column": .int(24),
                ])
            ], "\(run.stdout)")
        let head = try repository.git("rev-parse", "HEAD").trimmingCharacters(in: .newlines)
        #expect(
            root["summary"]
                == .object([
                    "notes": .int(6), "errors": .int(0), "warnings": .int(1), "changedSince": .string(head),
                    "notShown": .int(2),
                ]))
    }

    /// A vault that is the repository's top folder: committed, staged, unstaged and untracked
    /// changes all count; a new note that takes an unchanged one's ID makes a problem in the
    /// unchanged one (where the vault reports it), which is reported too.
    @Test func everyKindOfChangeCountsInAVaultAtTheRepositoryRoot() throws {
        let repository = try GitRepository([
            "a.md": "# A\n", "b.md": "# B\n", "c.md": "# C\n", "knots.md": "---\nid: knots\n---\n# Knots\n",
            "old.md": "# Old\n\n[[nowhere]]\n",
        ])
        defer { repository.remove() }
        let base = try repository.git("rev-parse", "HEAD").trimmingCharacters(in: .newlines)
        try repository.write("a.md", "# A\n\n[[one]]\n")
        try repository.commit("A")
        try repository.write("b.md", "# B\n\n[[two]]\n")
        try repository.git("add", "b.md")
        try repository.write("c.md", "# C\n\n[[three]]\n")
        try repository.write("d.md", "---\nid: knots\n---\n# D\n\n[[four]]\n")

        let run = try Self.check(repository, [".", "--changed-since", base])
        #expect(run.status == 1, "the duplicate ID is an error: \(run.stdout)\(run.stderr)")
        #expect(
            Self.lines(run) == [
                "a.md:3:1: warning: no note named 'one' [link.broken]",
                "b.md:3:1: warning: no note named 'two' [link.broken]",
                "c.md:3:1: warning: no note named 'three' [link.broken]",
                "d.md:6:1: warning: no note named 'four' [link.broken]",
                "knots.md:2:5: error: guide id 'knots' (en) is already used by d.md [id.duplicate]",
                "6 notes checked: 1 error, 4 warnings (1 problem in unchanged files not shown).",
            ])
    }

    @Test func aRevisionThatIsNoCommitOrAVaultOutsideARepositoryExitsWithTwo() throws {
        let repository = try GitRepository(Self.vault)
        defer { repository.remove() }
        let unknown = try Self.check(repository, ["content", "--changed-since", "no-such-branch"])
        #expect(unknown.status == 2)
        #expect(unknown.stdout == "")
        #expect(
            unknown.stderr.hasPrefix(
                "locker: --changed-since: 'no-such-branch' is not a commit of the vault's repository"),
            "\(unknown.stderr)")
        let option = try Self.check(repository, ["content", "--changed-since=--output=x"])
        #expect(option.status == 2, "a revision is never taken for an option of git's: \(option.stderr)")

        let workspace = try Workspace(["note.md": "# Note\n"])
        defer { workspace.remove() }
        let outside = try LockerRun(
            ["check", "vault", "--changed-since", "HEAD"], in: workspace.root,
            environment: GitRepository.environment.merging(["GIT_CEILING_DIRECTORIES": workspace.root.path]) { $1 })
        #expect(outside.status == 2)
        #expect(outside.stderr.contains("is not in a git repository"), "\(outside.stderr)")

        let missing = try Self.check(repository, ["nosuch", "--changed-since", "HEAD"])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("locker: no vault folder at "), "not a missing git: \(missing.stderr)")
    }

    /// A shallow clone that has the base commit but not the history between: the message says
    /// to fetch the history, not that there is none in common.
    @Test func aShallowCloneIsToldToFetchTheHistory() throws {
        let repository = try GitRepository(Self.vault)
        defer { repository.remove() }
        let base = try repository.git("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)
        for message in ["Second", "Third"] {
            try Data("---\ntitle: \(message)\n---\nText.\n".utf8)
                .write(to: repository.root.appendingPathComponent("content/\(message).md"))
            _ = try repository.commit(message)
        }
        // A branch at the base: a clone of depth 1 of every branch has both tips, nothing between.
        _ = try repository.git("branch", "old", base)
        let clone = repository.root.deletingLastPathComponent().appendingPathComponent("shallow-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: clone) }
        let cloned = try LockerRun(
            ["clone", "-q", "--depth", "1", "--no-single-branch", "file://" + repository.root.path, clone.path],
            in: repository.root, environment: GitRepository.environment, executable: "/usr/bin/git")
        try #require(cloned.status == 0, "\(cloned.stderr)")
        let run = try LockerRun(
            ["check", "content", "--changed-since", base], in: clone, environment: GitRepository.environment)
        #expect(run.status == 2)
        #expect(run.stderr.contains("the clone is shallow"), "\(run.stderr)")
    }
}
