import Foundation
import LockerKit
import Testing

/// Progress kept in one language and read in another, on the bundle of `content/`: a Russian and
/// English app that switches language must find the reader's ticks, notes and reviews.
@Suite struct LanguageSwitchTests {
    @Test func ticksAndReviewsMadeInRussianAreReadInEnglish() throws {
        let bundle = try BuiltContent.bundle()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-switch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try ProgressStore(path: folder.appendingPathComponent("progress.sqlite").path)
        let day = try #require(LocalDay("2026-06-01"))
        let boundary = DayBoundary(timeZone: try #require(TimeZone(identifier: "UTC")))
        let time = boundary.start(of: day).addingTimeInterval(3600)
        let charter = try store.createCharter(CharterDraft(name: "Adriatic", startDate: day), at: time)

        // In Russian: every checklist opened, its first three items ticked, one with a note.
        var ticked: [String: [String]] = [:]
        for checklist in try bundle.checklists(locale: "ru") {
            #expect(checklist.locale == "ru")
            _ = try store.openRun(charterID: charter.id, checklist: checklist)
            for item in checklist.items.prefix(3) {
                try store.setItem(item.id, to: .checked, charterID: charter.id, checklistID: checklist.id, at: time)
            }
            if let item = checklist.items.last {
                try store.setNote(
                    "Проверить ещё раз", on: item.id, charterID: charter.id, checklistID: checklist.id, at: time)
            }
            ticked[checklist.id] = checklist.items.prefix(3).map(\.id)
        }
        // And the first two cards of every deck reviewed.
        var reviewed: [String] = []
        for deck in try bundle.decks(locale: "ru") {
            for card in deck.cards.prefix(2) {
                try store.review(ReviewCard(deckID: deck.id, card: card), grade: .easy, at: time, boundary: boundary)
                reviewed.append(card.uuid)
            }
        }
        #expect(ticked.count == 4 && reviewed.count == 8)

        // In English: the same runs, unchanged, with the same progress; the same cards reviewed.
        for checklist in try bundle.checklists(locale: "en") {
            #expect(checklist.locale == "en")
            let (run, changes) = try store.openRun(charterID: charter.id, checklist: checklist)
            #expect(changes.isEmpty, "\(checklist.id): \(changes)")
            #expect(run.progress.done == 3, "\(checklist.id)")
            #expect(checklist.items.prefix(3).map(\.id) == ticked[checklist.id])
            #expect(run.orphans.isEmpty)
            #expect(run.record(of: try #require(checklist.items.last).id).note == "Проверить ещё раз")
        }
        let english = try bundle.decks(locale: "en")
        #expect(english.allSatisfy { $0.locale == "en" })
        let queue = try store.queue(for: english, on: day)
        let states = try store.cardStates()
        for deck in english {
            for card in deck.cards.prefix(2) {
                #expect(states[card.uuid]?.reviews == 1, "\(deck.id) \(card.id)")
                #expect(!queue.cards.contains { $0.key == card.uuid })
            }
        }
    }
}
