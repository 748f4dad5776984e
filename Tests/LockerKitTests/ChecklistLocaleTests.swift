import Foundation
import LockerKit
import Testing

/// Checklist runs across languages: states shared by item ID, changes reported per locale, and
/// a database from before the seen lists were per locale.
@Suite struct ChecklistLocaleTests {
    /// The English check-in has a belt item the Russian translation lacks.
    static let english = ChecklistFixtures.checklist(
        locale: "en", sections: [("Engine", [.init(title: nil, items: [("oil", "Oil"), ("belt", "Belt")])])])
    static let russian = ChecklistFixtures.checklist(
        locale: "ru", title: "Приёмка", sections: [("Двигатель", [.init(title: nil, items: [("oil", "Масло")])])])

    @Test func switchingLanguageReportsNoChangeButAContentUpdateIsReportedInItsLanguage() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let charter = try store.createCharter(
            CharterDraft(name: "Split", startDate: ChecklistRunTests.day), at: ChecklistRunTests.t0)
        let time = ChecklistRunTests.t0

        #expect(try store.openRun(charterID: charter.id, checklist: Self.english).changes.isEmpty)
        try store.setItem("belt", to: .checked, charterID: charter.id, checklistID: "check-in", at: time)
        try store.setItem("oil", to: .checked, charterID: charter.id, checklistID: "check-in", at: time)
        // In Russian: the oil is ticked, and the belt, which this version lacks, is not called removed.
        let (russianRun, russianChanges) = try store.openRun(charterID: charter.id, checklist: Self.russian)
        #expect(russianChanges.isEmpty)
        #expect(russianRun.progress.done == 1 && russianRun.progress.total == 1)
        // Back in English: nothing changed either.
        let (englishRun, englishChanges) = try store.openRun(charterID: charter.id, checklist: Self.english)
        #expect(englishChanges.isEmpty && englishRun.progress.done == 2)

        // The English version loses the belt in an update: reported in English, with its tick.
        let updated = ChecklistFixtures.checklist(
            locale: "en", sections: [("Engine", [.init(title: nil, items: [("oil", "Oil"), ("fuel", "Fuel")])])])
        let changes = try store.openRun(charterID: charter.id, checklist: updated).changes
        #expect(changes.added == ["fuel"] && changes.removed == ["belt"] && changes.removedWithProgress == ["belt"])
        #expect(try store.openRun(charterID: charter.id, checklist: Self.russian).changes.isEmpty)
    }

    @Test func aRunFromBeforeLocalesIsMigratedWithItsProgress() throws {
        // Written by the store of schema v1: a charter "Trip" whose run of `daily` saw oil, belt
        // and impeller, with oil checked and a note on the belt.
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/progress-v1.sqlite")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-v1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("progress.sqlite").path
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)

        let store = try ProgressStore(path: path)
        #expect(try store.integrityCheck() == ["ok"])
        let charter = try #require(try store.charters().first { $0.name == "Trip" })
        let daily = ChecklistFixtures.checklist(
            id: "daily", locale: "en",
            sections: [
                ("Engine", [.init(title: nil, items: [("oil", "Oil"), ("belt", "Belt"), ("filter", "Filter")])])
            ])
        // The list from v1 is compared with the first locale that opens the run.
        let (run, changes) = try store.openRun(charterID: charter.id, checklist: daily)
        #expect(changes.added == ["filter"] && changes.removed == ["impeller"] && changes.removedWithProgress.isEmpty)
        #expect(run.state(of: "oil") == .checked && run.record(of: "belt").note == "Worn, spare aboard")
        // Then it is that locale's: another locale starts its own.
        let russian = ChecklistFixtures.checklist(
            id: "daily", locale: "ru", sections: [("Двигатель", [.init(title: nil, items: [("oil", "Масло")])])])
        #expect(try store.openRun(charterID: charter.id, checklist: russian).changes.isEmpty)
        #expect(try store.openRun(charterID: charter.id, checklist: daily).changes.isEmpty)
    }
}
