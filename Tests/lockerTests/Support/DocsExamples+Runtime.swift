import Foundation

/// docs/runtime.md: the runtime commands on the bundle of `content/`: one session on one
/// progress file (`demo.sqlite`), reviews, a charter and its check-in, as The terminal commands
/// tell it; then the exchange with a second file, search, links, a damaged bundle and
/// `locker sync`.
extension DocsExamples {
    /// `--progress demo.sqlite --today DAY`, as every command of the session takes them.
    private static var session: [String] { ["--progress", "demo.sqlite", "--today", today] }

    mutating func makeRuntimeExamples() throws {
        try makeReviewExamples()
        try makeCharterSessionExamples()
        try makeProgressExamples()
        try makeLookupExamples()
        try makeExportExamples()
    }

    private mutating func makeReviewExamples() throws {
        let review = ["review", "sound-signals"] + Self.session
        regions["review"] = Self.fenced(
            numberingUUIDs(
                try shown(review, stdin: "good\neasy\nagain\nu\nhard\n")
                    + shown(
                        review + ["--new-limit", "3", "--scheduler", "fsrs"], stdin: "good\ngood\n", errorFirst: true)))

        let stats = ["stats", "sound-signals", "--locale", "en", "--progress", "demo.sqlite", "--today"]
        regions["stats"] = Self.fenced(
            try shown(stats + [Self.today]) + shown(stats + ["2026-11-23", "--format", "json"]))

        let query = "SELECT kind, card_id, grade, day FROM review_event ORDER BY seq"
        let sqlite = try program("sqlite3", ["-readonly", "demo.sqlite", query])
        regions["sqlite"] = Self.fenced(Self.transcript("sqlite3 -readonly demo.sqlite '\(query)'", sqlite))
    }

    private mutating func makeCharterSessionExamples() throws {
        let create = [
            "charter", "create", "Split, November", "--start", "2026-11-21", "--end", "2026-11-28", "--yacht", "Lara",
            "--company", "Adriatic Charter", "--location", "ACI Marina Split",
        ]
        regions["charter"] = Self.fenced(
            numberingUUIDs(try shown(create + Self.session) + shown(["charter", "list"] + Self.session)))

        let script =
            "check registration\ncheck insurance\nna generator\nnote hull-damage Scratch on the port bow, photographed\n"
            + "check hull-damage\n"
        regions["checklist-script"] = Self.fenced(
            try shown(
                ["checklist", "check-in", "--locale", "en"] + Self.session + ["--export", "check-in.md"], stdin: script)
        )
        regions["report"] = Self.fenced(Self.abridgedReport(try read("check-in.md")), "markdown")
    }

    /// The report's head, its first open item, its notes, and the first three items of its
    /// first section.
    static func abridgedReport(_ report: String) -> String {
        var kept: [Substring] = []
        var section: Substring = ""
        var listed = 0
        var checklistItems = 0
        var skipping = false
        for line in report.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                section = line
                listed = 0
            }
            let openItems = section.hasPrefix("## Open items")
            let inChecklist = section.hasPrefix("## ") && !openItems && !section.hasPrefix("## Notes")
            if line.hasPrefix("- [") {
                listed += 1
                skipping = openItems && listed > 1
                if skipping {
                    if listed == 2 { kept.append("…") }
                    continue
                }
                if inChecklist {
                    checklistItems += 1
                    if checklistItems > 3 {
                        kept.append("…")
                        break
                    }
                }
            } else if skipping, line.hasPrefix("  ") {
                continue  // an item left out goes with its note
            } else {
                skipping = false
            }
            kept.append(line)
        }
        return kept.joined(separator: "\n")
    }

    private mutating func makeProgressExamples() throws {
        let exported = try locker(["progress", "export", "--progress", "demo.sqlite", "--cursor", "phone.cursor"])
        try write(exported.stdout, to: work.appendingPathComponent("new.jsonl"))
        let merged = try shown(["progress", "merge", "new.jsonl", "--progress", "tablet.sqlite"])
        regions["progress-exchange"] = Self.fenced(
            "$ locker progress export --progress demo.sqlite --cursor phone.cursor > new.jsonl\n"
                + Self.lines(exported.stderr) + merged)

        // One event of each kind: a charter's creation, an item's state, an item's note alone,
        // a review, an undo.
        let events = exported.stdout.split(separator: "\n").map(String.init)
        var shown: [String] = []
        for kind: (String) -> Bool in [
            { $0.contains(#""type":"charter""#) }, { $0.contains(#""type":"item""#) && $0.contains(#""state":"#) },
            { $0.contains(#""type":"item""#) && !$0.contains(#""state":"#) }, { $0.contains(#""type":"review""#) },
            { $0.contains(#""type":"undo""#) },
        ] {
            guard let event = events.first(where: kind) else {
                throw Failure(message: "the exported events lack a kind the doc shows:\n\(exported.stdout)")
            }
            shown.append(event)
        }
        regions["progress-events"] = Self.fenced(numberingUUIDs(shown.joined(separator: "\n")), "json")
    }

    private mutating func makeLookupExamples() throws {
        regions["search"] = Self.fenced(try shown(["search", "якорной", "вахты", "--limit", "1"]))
        regions["open"] = Self.fenced(
            try shown(["open", "https://captainslocker.example/decks/sound-signals/#card-one-short", "--locale", "en"]))

        // A damaged copy: two bytes added to the first English deck file of the manifest.
        let manifest = try bundleJSON("manifest.json")
        guard
            let path = try manifest.member("files").elements.first(where: {
                $0["kind"]?.text == "deck" && $0["locale"]?.text == "en"
            })?["path"]?.text
        else { throw Failure(message: "content/ has no English deck") }
        _ = try copy(work.appendingPathComponent("build/bundles/v1"), to: "tampered")
        let damaged = work.appendingPathComponent("tampered/\(path)")
        let handle = try FileHandle(forWritingTo: damaged)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("  ".utf8))
        try handle.close()
        regions["tamper"] = try Self.fenced(
            "$ cp -r build/bundles/v1 tampered && printf '  ' >> tampered/\(path)\n"
                + shown(["stats", "--bundle", "tampered"], status: 3) + "$ echo $?\n3\n")

        // The signed build served by nginx, synced as an app's updater does.
        let nginx = try Nginx(serving: work.appendingPathComponent("build"), in: work.appendingPathComponent("nginx"))
        defer { nginx.stop() }
        let synced = try locker([
            "sync", "http://127.0.0.1:\(nginx.port)/bundles/v1/", "--into", "synced", "--key",
            "keys/locker-signing.pub",
        ])
        regions["sync"] = Self.fenced(
            Self.transcript(
                "locker sync http://127.0.0.1:8080/bundles/v1/ --into synced --key keys/locker-signing.pub", synced))
    }

    /// `locker export anki`: every deck in the default language, then two decks in both.
    private mutating func makeExportExamples() throws {
        regions["export-anki"] = Self.fenced(
            try shown(["export", "anki", "--out", "locker.apkg"])
                + shown([
                    "export", "anki", "sound-signals", "Дневные знаки", "--locale", "all", "--out", "signals.apkg",
                ]))
    }
}
