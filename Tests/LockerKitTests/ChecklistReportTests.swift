import Foundation
import LockerKit
import Testing

/// `ChecklistReport.markdown` against golden files under `Fixtures/report/`.
///
/// Run with `LOCKER_RECORD=1` to rewrite the golden files from the current output; a recording
/// run fails, so recording is always deliberate. A missing golden file is recorded the same way.
@Suite struct ChecklistReportTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent("report")
    static let recording = ProcessInfo.processInfo.environment["LOCKER_RECORD"] == "1"
    static let utc = TimeZone(identifier: "UTC")!

    /// 2026-07-04 08:00 UTC plus `minutes`.
    static func time(minutes: Int) -> Date { Date(timeIntervalSince1970: 1_783_152_000 + Double(minutes) * 60) }
    static let exportedAt = time(minutes: 90)

    static func charter(name: String, notes: String? = nil) -> Charter {
        Charter(
            id: UUID(uuidString: "3F2504E0-4F89-41D3-9A0C-0305E82C3301")!, name: name,
            startDate: LocalDay(year: 2026, month: 7, day: 4)!, endDate: LocalDay(year: 2026, month: 7, day: 11)!,
            location: "Split, ACI Marina", yachtName: "Sirocco", charterCompany: "Adriatic Sail Co", notes: notes,
            createdAt: time(minutes: -60), archivedAt: nil)
    }

    static var englishRun: ChecklistRun {
        let checklist = ChecklistFixtures.checklist(
            title: "Yacht check-in",
            sections: [
                (
                    "Deck",
                    [
                        .init(
                            title: "Ropes",
                            items: [("sheets", "Sheets"), ("halyards", "Halyards"), ("lines", "Mooring lines")]),
                        .init(title: "Sails", items: [("main", "Mainsail"), ("genoa", "Genoa")]),
                    ]
                ),
                (
                    "Engine",
                    [
                        .init(
                            title: nil, items: [("oil", "Oil level"), ("coolant", "Coolant"), ("impeller", "Impeller")])
                    ]
                ),
            ])
        let records: [String: ItemRecord] = [
            "sheets": ItemRecord(state: .checked, changedAt: time(minutes: 1)),
            "halyards": ItemRecord(state: .notApplicable, changedAt: time(minutes: 2)),
            "lines": ItemRecord(state: .unchecked, changedAt: nil, note: "Stern line chafed\nReplace before leaving"),
            "main": ItemRecord(
                state: .checked, changedAt: time(minutes: 4),
                note: "Tear at the *leech*, see [photo 3] <ask> `base` #2 \\ snake_case | pipe"),
            "genoa": ItemRecord(state: .checked, changedAt: time(minutes: 5)),
            "oil": ItemRecord(state: .checked, changedAt: time(minutes: 6)),
            "impeller": ItemRecord(state: .checked, changedAt: time(minutes: 607)),
            // No longer in the checklist: one checked (reported), one untouched (left out).
            "dinghy": ItemRecord(state: .checked, changedAt: time(minutes: 8)),
            "old-item": ItemRecord(state: .unchecked, changedAt: time(minutes: 9)),
        ]
        return ChecklistRun(
            charter: charter(name: "Adriatic 2026", notes: "Deposit 1500 EUR | card"), checklist: checklist,
            records: records)
    }

    static var russianRun: ChecklistRun {
        let checklist = ChecklistFixtures.checklist(
            locale: "ru", title: "Приёмка яхты",
            sections: [
                (
                    "Палуба",
                    [
                        .init(title: "Концы", items: [("sheets", "Шкоты"), ("halyards", "Фалы")]),
                        .init(title: "Паруса", items: [("main", "Грот")]),
                    ]
                ),
                (
                    "Двигатель",
                    [.init(title: nil, items: [("oil", "Уровень масла"), ("coolant", "Охлаждающая жидкость")])]
                ),
            ])
        let records: [String: ItemRecord] = [
            "sheets": ItemRecord(state: .checked, changedAt: time(minutes: 1)),
            "halyards": ItemRecord(state: .notApplicable, changedAt: time(minutes: 2), note: "Фалы заменены\nв мае"),
            "oil": ItemRecord(state: .checked, changedAt: time(minutes: 3)),
            "anchor": ItemRecord(state: .notApplicable, changedAt: time(minutes: 4)),
        ]
        return ChecklistRun(charter: charter(name: "Адриатика"), checklist: checklist, records: records)
    }

    static func expectMatchesGolden(_ text: String, _ name: String) throws {
        let url = fixtures.appendingPathComponent(name)
        if recording || !FileManager.default.fileExists(atPath: url.path) {
            try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            Issue.record("recorded the golden file report/\(name); review it and run again without LOCKER_RECORD")
            return
        }
        let expected = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        #expect(text == expected, "report/\(name) differs; re-record with LOCKER_RECORD=1 if intended:\n\(text)")
    }

    @Test func englishReportMatchesTheGoldenFile() throws {
        let report = ChecklistReport(run: Self.englishRun, timeZone: Self.utc, exportedAt: Self.exportedAt)
        try Self.expectMatchesGolden(report.markdown, "check-in.en.md")
    }

    @Test func russianReportMatchesTheGoldenFile() throws {
        let report = ChecklistReport(run: Self.russianRun, timeZone: Self.utc, exportedAt: Self.exportedAt)
        try Self.expectMatchesGolden(report.markdown, "check-in.ru.md")
    }

    @Test func openItemsComeBeforeTheSections() throws {
        let markdown = ChecklistReport(run: Self.englishRun, timeZone: Self.utc, exportedAt: Self.exportedAt).markdown
        let lines = markdown.components(separatedBy: "\n")
        let open = try #require(lines.firstIndex(of: "## Open items (2)"))
        let notes = try #require(lines.firstIndex(of: "## Notes (2)"))
        let deck = try #require(lines.firstIndex { $0.hasPrefix("## Deck — ") })
        let engine = try #require(lines.firstIndex { $0.hasPrefix("## Engine — ") })
        let removed = try #require(lines.firstIndex(of: "## No longer in the checklist (1)"))
        #expect(lines.first == "# Yacht check-in — Adriatic 2026")
        #expect(open < notes && notes < deck && deck < engine && engine < removed)
        // The open items, with where they are.
        #expect(lines[open + 2] == "- [ ] Deck › Ropes › Mooring lines")
        #expect(lines.contains("- [ ] Engine › Coolant"))
        #expect(lines.contains("## Deck — 4/5"))
        #expect(lines.contains("### Ropes — 2/3"))
        #expect(lines.contains("## Engine — 2/3"))
        #expect(lines.contains("- [-] Halyards — not applicable — 2026-07-04 08:02"))
        #expect(lines.contains("- [x] Impeller — 2026-07-04 18:07"))
        #expect(lines.contains("- [x] `dinghy` — 2026-07-04 08:08"))
        #expect(!markdown.contains("old-item"), "an untouched removed item is not reported")
        #expect(lines.contains("Exported 2026-07-04 09:30"))
        #expect(lines.contains("| Progress | 6 of 8 done (5 checked, 1 not applicable), 2 open |"))
        #expect(markdown.hasSuffix("\n") && !markdown.hasSuffix("\n\n"))
    }

    @Test func markdownInNotesIsEscaped() {
        let markdown = ChecklistReport(run: Self.englishRun, timeZone: Self.utc).markdown
        #expect(
            markdown.contains(
                ##"  Note: Tear at the \*leech\*, see \[photo 3\] \<ask\> \`base\` \#2 \\ snake\_case | pipe"##))
        #expect(!markdown.contains("*leech*"))
        // A multi-line note keeps its lines, with hard breaks, inside the item.
        #expect(markdown.contains("  Note: Stern line chafed  \n  Replace before leaving\n"))
        // In the table a pipe is escaped too.
        #expect(markdown.contains(#"| Notes | Deposit 1500 EUR \| card |"#))
        // Without an export time there is no "Exported" line.
        #expect(!markdown.contains("Exported"))
    }

    @Test func timesAreWrittenInTheReportsTimeZone() throws {
        let auckland = try #require(TimeZone(identifier: "Pacific/Auckland"))
        let markdown = ChecklistReport(run: Self.englishRun, timeZone: auckland).markdown
        // 08:01 UTC is 20:01 in Auckland (NZST, +12); 18:07 UTC is 06:07 the next day.
        #expect(markdown.contains("- [x] Sheets — 2026-07-04 20:01"))
        #expect(markdown.contains("- [x] Impeller — 2026-07-05 06:07"))
    }

    @Test func aCompleteRunSaysSo() {
        var run = Self.russianRun
        for item in run.checklist.items where !run.state(of: item.id).isDone {
            run.records[item.id] = ItemRecord(state: .checked, changedAt: Self.time(minutes: 30))
        }
        let markdown = ChecklistReport(run: run, timeZone: Self.utc).markdown
        #expect(markdown.contains("## Открытые пункты (0)\n\nНет: все пункты отмечены или неприменимы.\n"))
        var english = Self.englishRun
        english.records = [:]
        #expect(ChecklistReport(run: english, timeZone: Self.utc).markdown.contains("## Notes (0)\n\nNo notes.\n"))
    }
}
