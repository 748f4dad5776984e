import Foundation
import LockerKit
import Testing

@Suite struct CharterValidationTests {
    static let start = LocalDay(year: 2026, month: 7, day: 4)!
    static let created = Date(timeIntervalSince1970: 1_780_000_000)

    static func fields(_ draft: CharterDraft) -> [CharterValidationError.Field] { draft.problems.map(\.field) }

    @Test func aCompleteDraftHasNoProblems() throws {
        let draft = CharterDraft(
            name: "Adriatic", startDate: Self.start, endDate: Self.start.adding(days: 7), location: "Split",
            yachtName: "Bavaria 46 Cruiser", charterCompany: "Sail Co", notes: "Deposit paid")
        #expect(draft.problems.isEmpty)
        let charter = try draft.validated(id: UUID(), createdAt: Self.created)
        #expect(charter.name == "Adriatic")
        #expect(charter.startDate == Self.start)
        #expect(charter.endDate == Self.start.adding(days: 7))
        #expect(charter.location == "Split")
        #expect(charter.yachtName == "Bavaria 46 Cruiser")
        #expect(charter.charterCompany == "Sail Co")
        #expect(charter.notes == "Deposit paid")
        #expect(charter.createdAt == Self.created)
        #expect(charter.archivedAt == nil)
        #expect(charter.draft == draft)
    }

    @Test(arguments: ["", " ", "\n\t  "])
    func anEmptyOrBlankNameIsAProblemOfTheName(_ name: String) {
        let draft = CharterDraft(name: name, startDate: Self.start)
        #expect(Self.fields(draft) == [.name])
        #expect(throws: CharterValidationErrors.self) { try draft.validated(id: UUID(), createdAt: Self.created) }
    }

    @Test func aMissingStartIsAProblemOfTheStartDate() {
        #expect(Self.fields(CharterDraft(name: "Adriatic", startDate: nil)) == [.startDate])
        // Without a start, the end cannot be before it.
        #expect(Self.fields(CharterDraft(name: "Adriatic", startDate: nil, endDate: Self.start)) == [.startDate])
    }

    @Test func anEndBeforeTheStartIsAProblemOfTheEndDate() {
        let draft = CharterDraft(name: "Adriatic", startDate: Self.start, endDate: Self.start.adding(days: -1))
        #expect(Self.fields(draft) == [.endDate])
        #expect(draft.problems.first?.message.contains("2026-07-03") == true)
    }

    @Test func anEndOnTheStartDayIsAllowed() throws {
        let draft = CharterDraft(name: "Day sail", startDate: Self.start, endDate: Self.start)
        #expect(draft.problems.isEmpty)
        let charter = try draft.validated(id: UUID(), createdAt: Self.created)
        #expect(charter.lastDay == Self.start)
        #expect(charter.includes(Self.start))
        #expect(!charter.includes(Self.start.adding(days: 1)))
    }

    @Test func severalProblemsAreReportedTogether() {
        let draft = CharterDraft(
            name: "  ", startDate: nil, location: String(repeating: "x", count: 201),
            notes: String(repeating: "n", count: 10_001))
        #expect(Self.fields(draft) == [.name, .startDate, .location, .notes])
        do {
            _ = try draft.validated(id: UUID(), createdAt: Self.created)
            Issue.record("an invalid draft was accepted")
        } catch {
            #expect(error.fields == [.name, .startDate, .location, .notes])
            #expect(error.problems.count == 4)
            #expect(error.description.hasPrefix("name: "))
            #expect(error.description.contains("; startDate: "))
        }
        let other = CharterDraft(name: "", startDate: Self.start, endDate: Self.start.adding(days: -3))
        #expect(Self.fields(other) == [.name, .endDate])
    }

    @Test func textFieldsAreTrimmedAndEmptyOnesBecomeNil() throws {
        let draft = CharterDraft(
            name: "  Adriatic \n", startDate: Self.start, location: "  Split ", yachtName: "   ", charterCompany: "",
            notes: "\n Deposit paid \n")
        let charter = try draft.validated(id: UUID(), createdAt: Self.created)
        #expect(charter.name == "Adriatic")
        #expect(charter.location == "Split")
        #expect(charter.yachtName == nil)
        #expect(charter.charterCompany == nil)
        #expect(charter.notes == "Deposit paid")
        // Inner whitespace is kept.
        #expect(
            try CharterDraft(name: "Adriatic  2026", startDate: Self.start).validated(
                id: UUID(), createdAt: Self.created
            ).name == "Adriatic  2026")
    }

    @Test func tooLongFieldsNameTheirField() {
        let ok = String(repeating: "a", count: CharterDraft.maximumFieldLength)
        let long = ok + "a"
        #expect(CharterDraft.maximumFieldLength == 200)
        #expect(CharterDraft.maximumNotesLength == 10_000)
        #expect(
            Self.fields(CharterDraft(name: ok, startDate: Self.start, location: ok, yachtName: ok, charterCompany: ok))
                .isEmpty)
        #expect(Self.fields(CharterDraft(name: long, startDate: Self.start)) == [.name])
        #expect(Self.fields(CharterDraft(name: "A", startDate: Self.start, location: long)) == [.location])
        #expect(Self.fields(CharterDraft(name: "A", startDate: Self.start, yachtName: long)) == [.yachtName])
        #expect(Self.fields(CharterDraft(name: "A", startDate: Self.start, charterCompany: long)) == [.charterCompany])
        #expect(Self.fields(CharterDraft(name: "A", startDate: Self.start, notes: long)).isEmpty)
        #expect(
            Self.fields(CharterDraft(name: "A", startDate: Self.start, notes: String(repeating: "n", count: 10_000)))
                .isEmpty)
        #expect(
            Self.fields(CharterDraft(name: "A", startDate: Self.start, notes: String(repeating: "n", count: 10_001)))
                == [.notes])
        // Characters, not bytes: 200 Cyrillic letters are 400 bytes of UTF-8.
        #expect(Self.fields(CharterDraft(name: String(repeating: "я", count: 200), startDate: Self.start)).isEmpty)
    }

    @Test func lengthLimitsApplyToTheTrimmedText() {
        // Surrounding whitespace is dropped when saved, so it cannot make a field too long:
        // true for the name, and the same is expected of every limited field.
        let padded = "  " + String(repeating: "a", count: CharterDraft.maximumFieldLength) + "  "
        #expect(Self.fields(CharterDraft(name: padded, startDate: Self.start)).isEmpty)
        #expect(Self.fields(CharterDraft(name: "A", startDate: Self.start, location: padded)).isEmpty)
        #expect(Self.fields(CharterDraft(name: "A", startDate: Self.start, yachtName: padded)).isEmpty)
    }
}

@Suite struct CharterStoreTests {
    static let day = LocalDay(year: 2026, month: 7, day: 4)!
    static let created = Date(timeIntervalSince1970: 1_780_000_000)

    static func draft(_ name: String, from start: LocalDay?, to end: LocalDay? = nil) -> CharterDraft {
        CharterDraft(name: name, startDate: start, endDate: end)
    }

    @Test func createStoresTheValidatedCharter() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let id = UUID()
        let time = Self.created.addingTimeInterval(0.0004)  // rounded to milliseconds when stored
        let charter = try temp.store.createCharter(
            CharterDraft(
                name: " Adriatic ", startDate: Self.day, endDate: Self.day.adding(days: 7), yachtName: "Sirocco"),
            at: time, id: id)
        #expect(charter.id == id)
        #expect(charter.name == "Adriatic")
        #expect(charter.createdAt == Self.created)
        #expect(try temp.store.charter(id: id) == charter)
        #expect(try temp.store.charters() == [charter])
        #expect(try temp.store.charter(id: UUID()) == nil)
    }

    @Test func anInvalidDraftIsNotStored() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        #expect(throws: CharterValidationErrors.self) {
            try temp.store.createCharter(Self.draft("", from: nil), at: Self.created)
        }
        #expect(try temp.store.charters(includingArchived: true).isEmpty)
    }

    @Test func creatingAgainWithTheSameIDChangesNothing() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let id = UUID()
        let first = try temp.store.createCharter(Self.draft("Adriatic", from: Self.day), at: Self.created, id: id)
        let again = try temp.store.createCharter(
            Self.draft("Something else", from: Self.day.adding(days: 3)), at: Self.created.addingTimeInterval(60),
            id: id)
        #expect(again == first)
        #expect(try temp.store.charters() == [first])
    }

    @Test func updateReplacesTheEditableFieldsAndKeepsTheRest() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let charter = try store.createCharter(
            CharterDraft(name: "Adriatic", startDate: Self.day, location: "Split", notes: "n"), at: Self.created)
        var draft = charter.draft
        draft.name = "Adriatic 2026  "
        draft.endDate = Self.day.adding(days: 7)
        draft.location = nil
        draft.yachtName = "Sirocco"
        let updated = try store.updateCharter(id: charter.id, with: draft)
        #expect(updated.name == "Adriatic 2026")
        #expect(updated.endDate == Self.day.adding(days: 7))
        #expect(updated.location == nil)
        #expect(updated.yachtName == "Sirocco")
        #expect(updated.notes == "n")
        #expect(updated.createdAt == charter.createdAt)
        #expect(updated.id == charter.id)
        #expect(try store.charter(id: charter.id) == updated)

        // An invalid update changes nothing; an unknown charter is reported.
        draft.startDate = nil
        #expect(throws: CharterValidationErrors.self) { try store.updateCharter(id: charter.id, with: draft) }
        #expect(try store.charter(id: charter.id) == updated)
        let missing = UUID()
        #expect(throws: ProgressStoreError.noCharter(id: missing.uuidString)) {
            try store.updateCharter(id: missing, with: charter.draft)
        }
    }

    @Test func archivedChartersAreListedOnlyWhenAskedFor() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let a = try store.createCharter(Self.draft("A", from: Self.day), at: Self.created)
        let b = try store.createCharter(Self.draft("B", from: Self.day.adding(days: 10)), at: Self.created)
        let archivedAt = Self.created.addingTimeInterval(3600)
        let archived = try store.archiveCharter(id: a.id, at: archivedAt)
        #expect(archived.archivedAt == archivedAt)
        #expect(archived.isArchived)
        #expect(try store.charters() == [b])
        #expect(try store.charters(includingArchived: true).map(\.id) == [a.id, b.id])
        // Archiving again keeps the first time; an update keeps the archive.
        #expect(try store.archiveCharter(id: a.id, at: archivedAt.addingTimeInterval(60)).archivedAt == archivedAt)
        #expect(try store.updateCharter(id: a.id, with: Self.draft("A2", from: Self.day)).archivedAt == archivedAt)
        #expect(try store.charters() == [b])
        // Brought back, it is listed again.
        #expect(try store.unarchiveCharter(id: a.id).archivedAt == nil)
        #expect(try store.charters().map(\.id) == [a.id, b.id])
        #expect(throws: ProgressStoreError.self) { try store.archiveCharter(id: UUID(), at: archivedAt) }
    }

    @Test func chartersAreListedByStartDate() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let late = try store.createCharter(Self.draft("Late", from: Self.day.adding(days: 30)), at: Self.created)
        let early = try store.createCharter(Self.draft("Early", from: Self.day), at: Self.created.addingTimeInterval(1))
        let sameDayLater = try store.createCharter(
            Self.draft("Same day", from: Self.day), at: Self.created.addingTimeInterval(2))
        #expect(try store.charters().map(\.name) == [early.name, sameDayLater.name, late.name])
    }

    @Test func theActiveCharterIsTheOneWhoseDatesIncludeTheDay() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let july = try store.createCharter(
            Self.draft("July", from: Self.day, to: Self.day.adding(days: 6)), at: Self.created)
        #expect(try store.activeCharter(on: Self.day.adding(days: -1)) == nil)
        #expect(try store.activeCharter(on: Self.day) == july)
        #expect(try store.activeCharter(on: Self.day.adding(days: 3)) == july)
        #expect(try store.activeCharter(on: Self.day.adding(days: 6)) == july)
        #expect(try store.activeCharter(on: Self.day.adding(days: 7)) == nil)
    }

    @Test func whenTwoOverlapTheFirstByStartDateWins() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        // Created first but starting later: the start date decides, not the creation.
        let second = try store.createCharter(
            Self.draft("Second", from: Self.day.adding(days: 3), to: Self.day.adding(days: 10)), at: Self.created)
        let first = try store.createCharter(
            Self.draft("First", from: Self.day, to: Self.day.adding(days: 5)), at: Self.created.addingTimeInterval(10))
        #expect(try store.activeCharter(on: Self.day.adding(days: 4)) == first)
        #expect(try store.activeCharter(on: Self.day.adding(days: 2)) == first)
        #expect(try store.activeCharter(on: Self.day.adding(days: 6)) == second)
        // The same start: the one created first.
        let twin = try store.createCharter(
            Self.draft("Twin", from: Self.day, to: Self.day.adding(days: 5)), at: Self.created.addingTimeInterval(20))
        #expect(try store.activeCharter(on: Self.day.adding(days: 1)) == first)
        // Archived, the first gives way.
        try store.archiveCharter(id: first.id, at: Self.created.addingTimeInterval(30))
        #expect(try store.activeCharter(on: Self.day.adding(days: 1)) == twin)
        #expect(try store.activeCharter(on: Self.day.adding(days: 4)) == twin)
    }

    @Test func anArchivedCharterIsNeverActive() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let charter = try store.createCharter(
            Self.draft("A", from: Self.day, to: Self.day.adding(days: 6)), at: Self.created)
        try store.archiveCharter(id: charter.id, at: Self.created)
        #expect(try store.activeCharter(on: Self.day) == nil)
        // Even among the archived ones given explicitly.
        let all = try store.charters(includingArchived: true)
        #expect(all.count == 1)
        #expect(Charter.active(among: all, on: Self.day) == nil)
    }

    @Test func aCharterWithoutAnEndDateIsActiveOnItsStartDayOnly() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let charter = try store.createCharter(Self.draft("Day sail", from: Self.day), at: Self.created)
        #expect(charter.endDate == nil)
        #expect(charter.lastDay == Self.day)
        #expect(try store.activeCharter(on: Self.day) == charter)
        #expect(try store.activeCharter(on: Self.day.adding(days: 1)) == nil)
        #expect(try store.activeCharter(on: Self.day.adding(days: -1)) == nil)
    }

    @Test func noChartersMeansNoneActive() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        #expect(try temp.store.activeCharter(on: Self.day) == nil)
        #expect(Charter.active(among: [], on: Self.day) == nil)
    }

    @Test func deletingACharterRemovesIt() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let charter = try store.createCharter(Self.draft("A", from: Self.day), at: Self.created)
        try store.deleteCharter(id: charter.id)
        #expect(try store.charter(id: charter.id) == nil)
        #expect(try store.charters(includingArchived: true).isEmpty)
        #expect(throws: ProgressStoreError.noCharter(id: charter.id.uuidString)) {
            try store.deleteCharter(id: charter.id)
        }
    }
}
