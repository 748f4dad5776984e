import Foundation
import LockerKit
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `locker review`, `stats`, `charter` and `checklist`, run as the built binary on a bundle it built.
@Suite struct RuntimeCommandTests {
    static let vault: [String: String] = [
        "Flags.md":
            "---\ntype: deck\nid: flags\n---\n\nAlpha::Diver down ^alpha\nBravo::Dangerous cargo ^bravo\nCharlie::Yes ^charlie\n",
        "CheckIn.md": """
        ---
        type: checklist
        id: check-in
        ---
        ## Deck
        ### Ropes
        - [ ] Sheets ^sheets
        - [ ] Halyards ^halyards
        ## Engine
        - [ ] Oil level ^oil

        """,
    ]

    /// A workspace with the vault built into `build/`.
    static func built(_ files: [String: String] = vault) throws -> Workspace {
        let workspace = try Workspace(files)
        let build = try LockerRun(["build", "vault", "--out", "build"], in: workspace.root)
        #expect(build.status == 0, "\(build.stderr)")
        return workspace
    }

    static func lines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func scriptedReviewPrintsOneLinePerSavedCardAndFollowsTheSchedule() throws {
        let workspace = try Self.built()
        defer { workspace.remove() }
        let common = ["--bundle", "build/bundles/v1", "--progress", "progress.sqlite"]
        // SM-2 alone, without learning steps: the database keeps the choice.
        let first = try LockerRun(
            ["review", "flags"] + common + ["--today", "2026-06-01", "--steps", "none", "--relearning-steps", "none"],
            in: workspace.root, stdin: "good\n4\n\nagain\n")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("scheduling with SM-2, steps none, relearning none"), "\(first.stderr)")
        let day1 = try Self.lines(first.stdout)
        #expect(day1.map { $0["card"] as? String } == ["alpha", "bravo", "charlie"])
        #expect(day1.map { $0["grade"] as? String } == ["good", "easy", "again"])
        #expect(day1.map { $0["ease"] as? Int } == [2500, 2600, 2180])
        #expect(day1.map { $0["interval"] as? Int } == [1, 1, 1])
        #expect(day1.map { $0["due"] as? String } == ["2026-06-02", "2026-06-02", "2026-06-02"])
        #expect(day1.allSatisfy { ($0["event"] as? String).flatMap(UUID.init(uuidString:)) != nil })

        // Nothing is due the same day: no new cards are left and the reviewed ones wait a day.
        let again = try LockerRun(
            ["review", "flags"] + common + ["--today", "2026-06-01"], in: workspace.root, stdin: "good\n")
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again.stdout)")

        // The next day all three are due; a second success gives 6 days; undo puts the card back.
        let second = try LockerRun(
            ["review"] + common + ["--today", "2026-06-02"], in: workspace.root, stdin: "good\nu\neasy\nq\ngood\n")
        #expect(second.status == 0, "\(second.stderr)")
        let day2 = try Self.lines(second.stdout)
        #expect(day2.map { $0["card"] as? String } == ["alpha", "alpha", "alpha"])
        #expect(day2.map { $0["undo"] as? Bool } == [nil, true, nil])
        #expect(day2.map { $0["interval"] as? Int } == [6, 1, 6])
        #expect(day2.last?["ease"] as? Int == 2600)
        #expect(day2.last?["due"] as? String == "2026-06-08")

        // After the last card only an undo is read; it takes the last review back.
        let last = try LockerRun(
            [
                "review", "flags", "--progress", "other.sqlite", "--today", "2026-06-01", "--new-limit", "1", "--steps",
                "none",
            ],
            in: workspace.root,
            stdin: "good\nu\n")
        #expect(try Self.lines(last.stdout).map { $0["undo"] as? Bool } == [nil, true], "\(last.stdout)")

        let stats = try LockerRun(
            ["stats", "--format", "json"] + common + ["--today", "2026-06-02"], in: workspace.root)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        let total = try #require(report["total"] as? [String: Any])
        #expect(total["due"] as? Int == 2)
        #expect(total["learning"] as? Int == 3)
        #expect(total["new"] as? Int == 0)
        #expect(total["total"] as? Int == 3)

        let store = try ProgressStore(path: workspace.root.appendingPathComponent("progress.sqlite").path)
        #expect(try store.reviewEvents().count == 6)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func stepsBringCardsBackInTheSittingAndFSRSIsOneOptionAway() throws {
        let workspace = try Self.built()
        defer { workspace.remove() }
        let common = ["--bundle", "build/bundles/v1", "--progress", "steps.sqlite"]
        // The default: SM-2 with steps of 1 and 10 minutes. again sends alpha back a minute; once
        // the queue is empty, cards due within 20 minutes come early, soonest first.
        let first = try LockerRun(
            ["review", "flags"] + common + ["--today", "2026-06-01"], in: workspace.root,
            stdin: "again\ngood\ngood\ngood\ngood\n")
        #expect(first.status == 0, "\(first.stderr)")
        let day1 = try Self.lines(first.stdout)
        #expect(day1.map { $0["card"] as? String } == ["alpha", "bravo", "charlie", "alpha", "bravo"])
        #expect(day1.map { $0["phase"] as? String } == ["learning", "learning", "learning", "learning", "review"])
        #expect(day1.map { $0["step"] as? Int } == [0, 1, 1, 1, nil])
        // --today stamps at noon local time: alpha is due a minute later.
        let noon = try #require(
            Calendar.current.date(from: DateComponents(year: 2026, month: 6, day: 1, hour: 12, minute: 1)))
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(day1[0]["dueTime"] as? String == iso.string(from: noon))
        #expect(day1.last?["due"] as? String == "2026-06-02")
        #expect(day1.allSatisfy { $0["stability"] == nil })
        let store = try ProgressStore(path: workspace.root.appendingPathComponent("steps.sqlite").path)
        let sm2 = try store.cardStates()

        // FSRS: the log is replayed, and the lines carry stability and difficulty.
        let second = try LockerRun(
            ["review", "flags"] + common + ["--today", "2026-06-02", "--scheduler", "fsrs"], in: workspace.root,
            stdin: "good\n")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            second.stderr.contains(
                "scheduling with FSRS (retention 0.9), steps 1m 10m, relearning 10m from now on; replayed the reviews of 3 cards"
            ), "\(second.stderr)")
        let line = try #require(try Self.lines(second.stdout).first)
        #expect(line["card"] as? String == "charlie", "still in its steps from yesterday: first")
        #expect((line["stability"] as? Double).map { $0 > 0 } == true, "\(line)")
        #expect((line["difficulty"] as? Double).map { (1...10).contains($0) } == true, "\(line)")
        #expect(try store.scheduling().algorithm == .fsrs)

        // And back: SM-2's states are what they were, with the day-2 review on top.
        let back = try LockerRun(
            ["review", "flags"] + common + ["--today", "2026-06-02", "--scheduler", "sm2"], in: workspace.root,
            stdin: "q\n")
        #expect(back.stderr.contains("scheduling with SM-2, steps 1m 10m, relearning 10m"), "\(back.stderr)")
        let states = try store.cardStates()
        #expect(states.values.allSatisfy { $0.stability == nil })
        let untouched = sm2.keys.filter { states[$0]?.reviews == sm2[$0]?.reviews }
        #expect(untouched.count == 2)
        for key in untouched { #expect(states[key] == sm2[key]) }

        let bad = try LockerRun(
            ["review", "flags"] + common + ["--retention", "0.5", "--scheduler", "fsrs"], in: workspace.root, stdin: "")
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("the desired retention is 0.5, not from 0.7 to 0.99"), "\(bad.stderr)")
        #expect(try store.scheduling().algorithm == .sm2, "a refused setting changes nothing")
        let huge = try LockerRun(
            ["review", "flags"] + common + ["--steps", "999999999999999999d"], in: workspace.root, stdin: "")
        #expect(huge.status == 2, "\(huge.stderr)")
    }

    @Test func aLineThatIsNotAGradeStopsWithItsLineNumber() throws {
        let workspace = try Self.built()
        defer { workspace.remove() }
        let run = try LockerRun(
            ["review", "--progress", "p.sqlite", "--today", "2026-06-01"], in: workspace.root,
            stdin: "good\n\nperfect\ngood\n")
        #expect(run.status == 1)
        #expect(try Self.lines(run.stdout).count == 1, "the first review is saved and reported")
        #expect(run.stderr.contains("stdin:3: 'perfect' is not a grade"), "\(run.stderr)")
    }

    @Test func aTamperedBundleIsRefusedWithTheFileNamed() throws {
        let workspace = try Self.built()
        defer { workspace.remove() }
        let folder = workspace.root.appendingPathComponent("build/bundles/v1/deck/en")
        let deckFile = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).first { !$0.hasPrefix("index.") })
        let url = folder.appendingPathComponent(deckFile)
        var data = try Data(contentsOf: url)
        let position = try #require(data.firstRange(of: Data("Diver".utf8))).lowerBound
        data[position] = UInt8(ascii: "F")
        try data.write(to: url)
        let run = try LockerRun(["review", "flags", "--progress", "p.sqlite"], in: workspace.root, stdin: "good\n")
        #expect(run.status == 3)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("deck/en/\(deckFile)"), "\(run.stderr)")
        #expect(run.stderr.contains("tampered"), "\(run.stderr)")
    }

    @Test func chartersAreCreatedValidatedListedAndArchived() throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        let db = ["--progress", "p.sqlite", "--today", "2026-06-03"]
        let bad = try LockerRun(
            ["charter", "create", " ", "--start", "2026-06-05", "--end", "2026-06-01"] + db, in: workspace.root)
        #expect(bad.status == 1)
        #expect(
            bad.stderr == """
                locker: <name>: a name is required
                locker: --end: the end date 2026-06-01 is before the start date 2026-06-05

                """)
        let noStart = try LockerRun(["charter", "create", "Split"] + db, in: workspace.root)
        #expect(noStart.status == 1)
        #expect(noStart.stderr == "locker: --start: a start date is required\n")

        let created = try LockerRun(
            [
                "charter", "create", "Split, June", "--start", "2026-06-01", "--end", "2026-06-08", "--yacht", "Lara",
                "--format", "json",
            ] + db,
            in: workspace.root)
        #expect(created.status == 0, "\(created.stderr)")
        let charter = try #require(try Self.lines(created.stdout).first)
        #expect(charter["name"] as? String == "Split, June")
        #expect(charter["active"] as? Bool == true)
        _ = try LockerRun(["charter", "create", "Later", "--start", "2026-07-01"] + db, in: workspace.root)

        let list = try LockerRun(["charter", "list"] + db, in: workspace.root)
        let rows = list.stdout.split(separator: "\n")
        #expect(rows.count == 3)
        #expect(
            rows.first?.hasPrefix("* ") == true && rows.first?.hasSuffix("Split, June  (Lara)") == true,
            "\(list.stdout)")

        let archived = try LockerRun(["charter", "archive", "split, june"] + db, in: workspace.root)
        #expect(archived.status == 0, "\(archived.stderr)")
        let after = try LockerRun(["charter", "list", "--format", "json"] + db, in: workspace.root)
        #expect(
            try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [[String: Any]]).map {
                $0["name"] as? String
            } == ["Later"])
        let unknown = try LockerRun(["charter", "show", "Nowhere"] + db, in: workspace.root)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no charter 'Nowhere'"))
    }

    @Test func checklistCommandsAreSavedAndExportedAsAReport() throws {
        let workspace = try Self.built()
        defer { workspace.remove() }
        let db = ["--progress", "p.sqlite", "--today", "2026-06-03"]
        _ = try LockerRun(
            ["charter", "create", "Split", "--start", "2026-06-01", "--end", "2026-06-08", "--yacht", "Lara"] + db,
            in: workspace.root)
        let run = try LockerRun(
            ["checklist", "check-in"] + db + ["--export", "report.md"], in: workspace.root,
            stdin: "check sheets\nna oil\nnote halyards Chafed at the mast head\n")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try Self.lines(run.stdout)
        #expect(lines.map { $0["item"] as? String } == ["sheets", "oil", "halyards"])
        #expect(lines.map { $0["done"] as? Int } == [1, 2, 2])
        #expect(lines.last?["note"] as? String == "Chafed at the mast head")
        let report = String(decoding: try workspace.read("report.md"), as: UTF8.self)
        #expect(report.hasPrefix("# CheckIn — Split\n") || report.contains("— Split\n"))
        #expect(report.contains("| Yacht | Lara |"))
        #expect(
            report.contains("## Open items (1)\n\n- [ ] Deck › Ropes › Halyards\n  Note: Chafed at the mast head"),
            "\(report)")
        #expect(report.contains("- [-] Oil level — not applicable"))

        let wrong = try LockerRun(["checklist", "check-in"] + db, in: workspace.root, stdin: "check nothing\n")
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("stdin:1: no item 'nothing' in check-in"))
    }

    @Test func aChecklistChangeIsReportedAndStatesFollowItemIDs() throws {
        let workspace = try Self.built()
        defer { workspace.remove() }
        let db = ["--progress", "p.sqlite", "--today", "2026-06-03"]
        _ = try LockerRun(["charter", "create", "Split", "--start", "2026-06-03"] + db, in: workspace.root)
        _ = try LockerRun(["checklist", "check-in"] + db, in: workspace.root, stdin: "check oil\ncheck sheets\n")
        var files = Self.vault
        files["CheckIn.md"] =
            "---\ntype: checklist\nid: check-in\n---\n## Deck\n### Ropes\n- [ ] Sheets ^sheets\n- [ ] Winch handles ^winch\n"
        let edited = try Workspace(files)
        defer { edited.remove() }
        let rebuilt = try LockerRun(
            ["build", "vault", "--out", workspace.root.appendingPathComponent("build").path], in: edited.root)
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        let run = try LockerRun(["checklist", "check-in"] + db + ["--export", "-"], in: workspace.root, stdin: "")
        #expect(
            run.stderr.hasPrefix(
                "locker: the checklist changed since this run was last opened: 1 new item, unchecked (winch); 2 items removed (halyards, oil); the state of oil is kept but no longer counted."
            ),
            "\(run.stderr)")
        #expect(run.stdout.contains("- [x] Sheets"))
        #expect(run.stdout.contains("- [ ] Winch handles"))
        #expect(run.stdout.contains("1 of 2 done"))
        #expect(run.stdout.contains("- [x] `oil`"), "removed items with a state close the report")
    }

    /// Kills `locker review` with SIGKILL while it writes, three times, and checks that every review
    /// it reported as saved is in the log and that the database is sound.
    @Test func everyAcknowledgedReviewSurvivesAKill() throws {
        var files = Self.vault
        files["Big.md"] =
            "---\ntype: deck\nid: big\n---\n\n"
            + (1...1500).map { "Question \($0)::Answer \($0) ^q\($0)" }.joined(separator: "\n") + "\n"
        let workspace = try Self.built(files)
        defer { workspace.remove() }
        let database = workspace.root.appendingPathComponent("p.sqlite").path
        var acknowledged: [String] = []
        for (round, stopAfter) in [37, 120, 211].enumerated() {
            let process = Process()
            process.executableURL = LockerRun.binary
            process.arguments = [
                "review", "big", "--progress", database, "--today", "2026-06-0\(round + 1)", "--new-limit", "100000",
            ]
            process.currentDirectoryURL = workspace.root
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // More grades than it will read before the kill; stdin stays open so it never ends by itself.
            input.fileHandleForWriting.write(Data(String(repeating: "good\n", count: 1000).utf8))
            var buffer = Data()
            var lines: [String] = []
            while lines.count < stopAfter {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "round \(round): killed, not finished")
            #expect(lines.count >= stopAfter, "round \(round)")
            for line in lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                acknowledged.append(try #require(object["event"] as? String))
            }
        }
        let store = try ProgressStore(path: database)
        #expect(try store.integrityCheck() == ["ok"])
        let stored = Set(try store.reviewEvents().map { $0.id.uuidString.lowercased() })
        let missing = acknowledged.filter { !stored.contains($0) }
        #expect(missing.isEmpty, "\(missing.count) of \(acknowledged.count) acknowledged reviews lost")
        #expect(acknowledged.count >= 37 + 120 + 211)
    }

    #if os(Linux)
        /// Runs `locker` on a pseudo-terminal through util-linux `script`, typing `keys`.
        static func onTerminal(_ arguments: [String], keys: String, in folder: URL) throws -> LockerRun {
            let command = ([LockerRun.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            return try LockerRun(
                ["-qfec", command, "/dev/null"], in: folder, stdin: keys, executable: "/usr/bin/script")
        }

        /// The "done when" of the runtime: review a deck and tick a check-in on a terminal.
        @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
        func aPersonCanReviewAndTickAChecklistOnATerminal() throws {
            let workspace = try Self.built()
            defer { workspace.remove() }
            let db = ["--progress", "p.sqlite", "--today", "2026-06-01"]
            // Enter shows the answer, 3 is good; Enter, 4 easy; u undoes it; Enter, 1 again; q quits.
            let review = try Self.onTerminal(["review", "flags"] + db, keys: "\r3\r4u\r1q", in: workspace.root)
            #expect(review.status == 0, "\(review.stdout)")
            #expect(review.stdout.contains("Flags · 1 of 3"))
            #expect(review.stdout.contains("Diver down"))
            // The answer keys show each grade's wait: a new card's learning steps, or days.
            for label in ["again 1m", "hard 6m", "good 10m", "easy 1d"] {
                #expect(review.stdout.contains(label), "\(label): \(review.stdout)")
            }
            #expect(review.stdout.contains("Reviewed 2 cards: again 1, hard 0, good 1, easy 0."), "\(review.stdout)")
            #expect(review.stdout.contains("1 left for today."), "\(review.stdout)")
            #expect(review.stdout.contains("2 cards in learning come back from "), "\(review.stdout)")
            let store = try ProgressStore(path: workspace.root.appendingPathComponent("p.sqlite").path)
            #expect(try store.reviewEvents().map(\.kind) == [.review, .review, .undo, .review])

            _ = try LockerRun(["charter", "create", "Split", "--start", "2026-06-01"] + db, in: workspace.root)
            // x checks Sheets, n marks Halyards not applicable, e adds a note to Oil level, q quits.
            let tick = try Self.onTerminal(
                ["checklist", "check-in"] + db, keys: "xneLow, topped up\rq", in: workspace.root)
            #expect(tick.status == 0, "\(tick.stdout)")
            #expect(tick.stdout.contains("2 of 3 done (1 checked, 1 not applicable), 1 open. Saved."), "\(tick.stdout)")
            let charter = try #require(try store.charters().first)
            let records = try store.itemRecords(charterID: charter.id, checklistID: "check-in")
            #expect(records["sheets"]?.state == .checked)
            #expect(records["halyards"]?.state == .notApplicable)
            #expect(records["oil"]?.state == .unchecked)
            #expect(records["oil"]?.note == "Low, topped up")
        }
    #endif
}
