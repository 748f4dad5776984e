import Foundation
import LockerKit
import Testing

/// `locker progress export` and `merge`, run as the built binary: two progress files, a phone's
/// and a tablet's, used apart and then brought together.
@Suite struct ProgressCommandTests {
    @Test func twoDevicesExchangeEventsAndHoldTheSameProgress() throws {
        let workspace = try RuntimeCommandTests.built()
        defer { workspace.remove() }
        let bundle = ["--bundle", "build/bundles/v1"]
        func run(_ arguments: [String], stdin: String = "") throws -> LockerRun {
            let run = try LockerRun(arguments, in: workspace.root, stdin: stdin)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            return run
        }
        // Offline apart: the phone reviews two cards and makes a charter; the tablet reviews one.
        _ = try run(
            ["review", "flags", "--progress", "phone.sqlite", "--today", "2026-06-01"] + bundle, stdin: "easy\ngood\n")
        _ = try run([
            "charter", "create", "Split", "--start", "2026-06-01", "--progress", "phone.sqlite", "--today",
            "2026-06-01",
        ])
        _ = try run(
            ["review", "flags", "--progress", "tablet.sqlite", "--today", "2026-06-02"] + bundle, stdin: "hard\n")

        // The phone sends what is new; the cursor remembers, so a second export sends nothing.
        let first = try run([
            "progress", "export", "--progress", "phone.sqlite", "--cursor", "phone.cursor", "--out", "phone.jsonl",
        ])
        #expect(first.stderr.contains("3 events"), "\(first.stderr)")
        let again = try run(["progress", "export", "--progress", "phone.sqlite", "--cursor", "phone.cursor"])
        #expect(again.stdout.isEmpty && again.stderr.contains("0 events"), "\(again.stderr)")
        let merged = try run(["progress", "merge", "phone.jsonl", "--progress", "tablet.sqlite"])
        #expect(merged.stdout == "Merged 3 new events (0 known).\n")
        #expect(
            try run(["progress", "merge", "phone.jsonl", "--progress", "tablet.sqlite"]).stdout
                == "Merged 0 new events (3 known).\n")

        // The tablet sends everything, the phone's events too (merged from standard input).
        let tablet = try run(["progress", "export", "--progress", "tablet.sqlite"])
        let back = try run(["progress", "merge", "-", "--progress", "phone.sqlite"], stdin: tablet.stdout)
        #expect(back.stdout == "Merged 1 new event (3 known).\n")

        let phone = try ProgressStore(path: workspace.root.appendingPathComponent("phone.sqlite").path)
        let pad = try ProgressStore(path: workspace.root.appendingPathComponent("tablet.sqlite").path)
        #expect(try phone.cardStates() == pad.cardStates())
        #expect(try phone.cardStates().count == 2)
        #expect(try phone.charters().map(\.name) == ["Split"])
        #expect(try pad.charters() == phone.charters())
        // alpha: easy on the phone on day 1, then hard on the tablet on day 2.
        let alpha = try #require(try phone.cardStates().values.first { $0.reviews == 2 })
        #expect(alpha.phase == .relearning && alpha.lapses == 1)

        // Lines that are not events, and events that cannot be right, stop with where they are.
        try Data("\n{\"type\":\"review\"}\n".utf8).write(to: workspace.root.appendingPathComponent("bad.jsonl"))
        let bad = try LockerRun(["progress", "merge", "bad.jsonl", "--progress", "tablet.sqlite"], in: workspace.root)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("bad.jsonl:2: not a progress event"), "\(bad.stderr)")
        let hostile = tablet.stdout.replacingOccurrences(of: "\"cardKey\":\"", with: "\"cardKey\":\"\",\"x\":\"")
        let refused = try LockerRun(
            ["progress", "merge", "-", "--progress", "fresh.sqlite"], in: workspace.root, stdin: hostile)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("-:") && refused.stderr.contains("its card key is empty; nothing was merged"),
            "\(refused.stderr)")
        #expect(
            try ProgressStore(path: workspace.root.appendingPathComponent("fresh.sqlite").path).events().events.isEmpty)
    }
}
