import Foundation
import LockerKit
import Testing

/// Events from another device are hostile until checked: out-of-range moments and days, and
/// JSON that is not an event, are refused without a trap and without a change.
@Suite struct ProgressEventTests {
    static func event(_ json: String) throws -> ProgressEvent {
        try JSONDecoder().decode(ProgressEvent.self, from: Data(json.utf8))
    }

    static let review =
        #"{"cardID":"c0","cardKey":"k0","day":"2026-06-01","deckID":"flags","grade":"good","id":"0F5C59A0-1A8F-4F34-9B0A-3E1C7C7A8B10","timeMs":TIME,"type":"review"}"#

    @Test(arguments: [
        ("9223372036854775807", "its time is not from 1970 to 2999"),
        ("-9223372036854775808", "its time is not from 1970 to 2999"),
        ("32503680000000", "its time is not from 1970 to 2999"),
    ])
    func momentsOutOfRangeAreRefused(time: String, reason: String) throws {
        let store = try ProgressStore.inMemory()
        let event = try Self.event(Self.review.replacingOccurrences(of: "TIME", with: time))
        #expect(throws: ProgressStoreError.invalidEvent(id: event.id.uuidString, reason: reason)) {
            try store.merge([event])
        }
        #expect(try store.events().events.isEmpty)
    }

    @Test func aDayTooFarIsRefusedAndTheStoreStaysReadable() throws {
        let store = try ProgressStore.inMemory()
        let far = try Self.event(
            Self.review.replacingOccurrences(of: "TIME", with: "1780000000000").replacingOccurrences(
                of: "2026-06-01", with: "9999-12-31"))
        #expect(
            throws: ProgressStoreError.invalidEvent(
                id: far.id.uuidString, reason: "its day 9999-12-31 is not from 1970 to 2999")
        ) {
            try store.merge([far])
        }
        let near = try Self.event(Self.review.replacingOccurrences(of: "TIME", with: "1780000000000"))
        #expect(try store.merge([near]) == MergeReport(added: 1, known: 0))
        #expect(try store.cardStates()["k0"]?.reviews == 1)
    }

    @Test(arguments: [
        #"{}"#,
        #"{"id":"x","timeMs":0,"type":"review"}"#,
        #"{"id":"0F5C59A0-1A8F-4F34-9B0A-3E1C7C7A8B10","timeMs":0,"type":"teleport"}"#,
        #"{"id":"0F5C59A0-1A8F-4F34-9B0A-3E1C7C7A8B10","timeMs":0,"type":"charter","charterID":"0F5C59A0-1A8F-4F34-9B0A-3E1C7C7A8B10","action":"create"}"#,
        #"{"id":"0F5C59A0-1A8F-4F34-9B0A-3E1C7C7A8B10","timeMs":0,"type":"charter","charterID":"0F5C59A0-1A8F-4F34-9B0A-3E1C7C7A8B10","action":"delete","charter":{"name":"x"}}"#,
        #"{"cardID":"c","cardKey":"k","day":"2026-02-30","deckID":"d","grade":"good","id":"0F5C59A0-1A8F-4F34-9B0A-3E1C7C7A8B10","timeMs":0,"type":"review"}"#,
        #"{"cardID":"c","cardKey":"k","day":"2026-02-03","deckID":"d","grade":"perfect","id":"0F5C59A0-1A8F-4F34-9B0A-3E1C7C7A8B10","timeMs":0,"type":"review"}"#,
    ])
    func jsonThatIsNotAnEventDoesNotDecode(json: String) {
        #expect(throws: DecodingError.self) { try Self.event(json) }
    }

    @Test func undoingTheLastReviewTakesBackThisDevicesOwnNotOneMerged() throws {
        typealias F = ReviewFixtures
        let phone = try ProgressStore.inMemory()
        let tablet = try ProgressStore.inMemory()
        let cards = ReviewCard.all(in: [F.deck("flags", count: 2)])
        let own = try phone.review(cards[0], grade: .good, at: F.time(F.day0), boundary: F.utc)
        try tablet.review(cards[1], grade: .easy, at: F.time(F.day0, hour: 13), boundary: F.utc)
        try phone.merge(try tablet.events().events)
        let undo = try #require(try phone.undoLastReview(at: F.time(F.day0, hour: 14), boundary: F.utc))
        #expect(undo.undoes == own.id)
        #expect(try phone.cardStates().keys.sorted() == [cards[1].key])
        #expect(try phone.undoLastReview(at: F.time(F.day0, hour: 15), boundary: F.utc) == nil)
    }

    @Test func aCharterChangeRetriedWithItsEventIDIsLoggedOnce() throws {
        typealias F = ReviewFixtures
        let store = try ProgressStore.inMemory()
        let charter = try store.createCharter(CharterDraft(name: "Split", startDate: F.day0), at: F.time(F.day0))
        let edit = UUID()
        var draft = charter.draft
        draft.name = "Split, June"
        try store.updateCharter(id: charter.id, with: draft, at: F.time(F.day0, hour: 13), eventID: edit)
        draft.name = "Split, July"
        let retried = try store.updateCharter(id: charter.id, with: draft, at: F.time(F.day0, hour: 14), eventID: edit)
        #expect(retried.name == "Split, June", "the retry changes nothing")
        let delete = UUID()
        try store.deleteCharter(id: charter.id, eventID: delete)
        try store.deleteCharter(id: charter.id, eventID: delete)
        #expect(try store.events().events.count == 3)
        #expect(throws: ProgressStoreError.noCharter(id: charter.id.uuidString)) {
            try store.deleteCharter(id: charter.id)
        }
    }

    @Test func aMergedNoteIsTrimmedAsALocalOneIs() throws {
        typealias F = ReviewFixtures
        let store = try ProgressStore.inMemory()
        let charter = try store.createCharter(CharterDraft(name: "Split", startDate: F.day0), at: F.time(F.day0))
        let note = ProgressEvent(
            id: UUID(), time: F.time(F.day0, hour: 13),
            change: .item(
                .init(
                    charterID: charter.id, checklistID: "check-in", itemID: "oil", state: nil, setsNote: true,
                    note: "  Low  ")))
        let blank = ProgressEvent(
            id: UUID(), time: F.time(F.day0, hour: 14),
            change: .item(
                .init(
                    charterID: charter.id, checklistID: "check-in", itemID: "belt", state: .checked, setsNote: true,
                    note: " ")))
        try store.merge([note, blank])
        let records = try store.itemRecords(charterID: charter.id, checklistID: "check-in")
        #expect(records["oil"]?.note == "Low")
        #expect(records["belt"] == ItemRecord(state: .checked, changedAt: F.time(F.day0, hour: 14), note: nil))
    }

    @Test func aNoteTooLongForOtherDevicesIsRefusedHere() throws {
        typealias F = ReviewFixtures
        let store = try ProgressStore.inMemory()
        let charter = try store.createCharter(CharterDraft(name: "Split", startDate: F.day0), at: F.time(F.day0))
        let long = String(repeating: "n", count: CharterDraft.maximumNotesLength + 1)
        #expect(throws: ProgressStoreError.noteTooLong(limit: CharterDraft.maximumNotesLength)) {
            try store.setNote(long, on: "oil", charterID: charter.id, checklistID: "daily", at: F.time(F.day0))
        }
        #expect(try store.events().events.count == 1, "only the charter")
    }
}
