import Foundation
import LockerKit
import Testing

/// Hand-built checklists: sections of (optionally titled) subsections of items.
enum ChecklistFixtures {
    struct Sub {
        var title: String?
        var items: [(id: String, title: String)]
    }

    static func checklist(
        id: String = "check-in", locale: String = "en", title: String = "Check-in",
        sections: [(title: String, subsections: [Sub])]
    ) -> Checklist {
        func slug(_ text: String) -> String { text.lowercased().replacingOccurrences(of: " ", with: "-") }
        return Checklist(
            id: id, uuid: ContentIdentity.uuidString(kind: .checklist, id: id), locale: locale, title: title,
            subtitle: nil, checklistType: .checkIn, tags: [], aliases: [], order: nil, source: "\(id).md", extra: [:],
            blocks: [],
            sections: sections.map { section in
                let sectionID = slug(section.title)
                return ChecklistSection(
                    id: sectionID,
                    uuid: ContentIdentity.uuidString(kind: .checklist, id: id, part: ["section", sectionID]),
                    anchor: sectionID, title: section.title, titleSpans: [.text(section.title)], note: [],
                    subsections: section.subsections.map { sub in
                        let subID = sub.title.map(slug) ?? sectionID
                        return ChecklistSubsection(
                            id: subID,
                            uuid: ContentIdentity.uuidString(
                                kind: .checklist, id: id, part: ["subsection", sectionID, subID]),
                            anchor: sub.title.map(slug), title: sub.title, titleSpans: sub.title.map { [.text($0)] },
                            note: [],
                            items: sub.items.map { item in
                                ChecklistItem(
                                    id: item.id,
                                    uuid: ContentIdentity.uuidString(
                                        kind: .checklist, id: id, part: ["item", item.id]),
                                    title: item.title, titleSpans: [.text(item.title)], guidance: [], explicitID: true)
                            })
                    })
            })
    }

    /// Deck (Ropes: 3 items, Sails: 2) and Engine (one untitled group of 3).
    static func checkIn(
        ropes: [(id: String, title: String)] = [
            ("sheets", "Sheets"), ("halyards", "Halyards"), ("lines", "Mooring lines"),
        ],
        engine: [(id: String, title: String)] = [
            ("oil", "Oil level"), ("coolant", "Coolant"), ("impeller", "Impeller"),
        ]
    ) -> Checklist {
        checklist(sections: [
            (
                "Deck",
                [
                    Sub(title: "Ropes", items: ropes),
                    Sub(title: "Sails", items: [("main", "Mainsail"), ("genoa", "Genoa")]),
                ]
            ),
            ("Engine", [Sub(title: nil, items: engine)]),
        ])
    }
}

@Suite struct ChecklistRunTests {
    static let day = LocalDay(year: 2026, month: 7, day: 4)!
    static let t0 = Date(timeIntervalSince1970: 1_783_152_000)  // 2026-07-04 08:00 UTC

    static func time(minutes: Int) -> Date { t0.addingTimeInterval(Double(minutes) * 60) }

    /// A store with one charter.
    static func charterStore() throws -> (TemporaryStore, Charter) {
        let temp = try TemporaryStore()
        let charter = try temp.store.createCharter(
            CharterDraft(name: "Adriatic", startDate: day, endDate: day.adding(days: 7)), at: t0)
        return (temp, charter)
    }

    @Test func progressPerSubsectionSectionAndOverall() throws {
        let (temp, charter) = try Self.charterStore()
        defer { temp.remove() }
        let store = temp.store
        let checklist = ChecklistFixtures.checkIn()
        #expect(checklist.itemCount == 8)
        let opened = try store.openRun(charterID: charter.id, checklist: checklist)
        #expect(opened.changes == ChecklistMigration())
        #expect(opened.run.progress == ChecklistProgress(checked: 0, notApplicable: 0, total: 8))
        #expect(opened.run.progress.percent == 0)

        func set(_ item: String, _ state: ItemState, note: String?? = .none, at minutes: Int) throws {
            try store.setItem(
                item, to: state, note: note, charterID: charter.id, checklistID: checklist.id,
                at: Self.time(minutes: minutes))
        }
        try set("sheets", .checked, at: 1)
        try set("halyards", .notApplicable, at: 2)
        try set("lines", .unchecked, note: "Stern line chafed", at: 3)
        try set("main", .checked, note: "Small tear at the leech", at: 4)
        try set("oil", .checked, at: 5)

        let run = try store.openRun(charterID: charter.id, checklist: checklist).run
        let deck = checklist.sections[0]
        let engine = checklist.sections[1]
        let ropes = run.progress(of: deck.subsections[0])
        #expect(ropes == ChecklistProgress(checked: 1, notApplicable: 1, total: 3))
        #expect(ropes.done == 2)
        #expect(ropes.open == 1)
        #expect(ropes.percent == 66)
        #expect(!ropes.isComplete)
        let sails = run.progress(of: deck.subsections[1])
        #expect(sails == ChecklistProgress(checked: 1, notApplicable: 0, total: 2))
        #expect(sails.percent == 50)
        let deckProgress = run.progress(of: deck)
        #expect(deckProgress == ChecklistProgress(checked: 2, notApplicable: 1, total: 5))
        #expect(deckProgress.done == 3 && deckProgress.open == 2 && deckProgress.percent == 60)
        let engineProgress = run.progress(of: engine)
        #expect(engineProgress == ChecklistProgress(checked: 1, notApplicable: 0, total: 3))
        #expect(engineProgress.percent == 33, "rounded down")
        #expect(run.progress == ChecklistProgress(checked: 3, notApplicable: 1, total: 8))
        #expect(run.progress.done == 4 && run.progress.open == 4 && run.progress.percent == 50)
        #expect(abs(run.progress.fraction - 0.5) < 1e-12)

        #expect(run.state(of: "halyards") == .notApplicable)
        #expect(run.record(of: "lines") == ItemRecord(state: .unchecked, changedAt: nil, note: "Stern line chafed"))
        #expect(
            run.record(of: "main")
                == ItemRecord(state: .checked, changedAt: Self.time(minutes: 4), note: "Small tear at the leech"))
        #expect(run.record(of: "genoa") == .untouched)
        #expect(run.orphans.isEmpty)
    }

    @Test func progressEdgeValues() {
        #expect(ChecklistProgress().percent == 100)
        #expect(ChecklistProgress().isComplete)
        #expect(ChecklistProgress().fraction == 1)
        #expect(ChecklistProgress(checked: 199, notApplicable: 0, total: 200).percent == 99, "99.5 % is not 100 %")
        #expect(ChecklistProgress(checked: 1, notApplicable: 1, total: 2).isComplete)
        #expect(ChecklistProgress(checked: 1, notApplicable: 1, total: 2).percent == 100)
    }

    @Test func settingAnItemWithTheSameEventIDTwiceChangesItOnce() throws {
        let (temp, charter) = try Self.charterStore()
        defer { temp.remove() }
        let store = temp.store
        let checklist = ChecklistFixtures.checkIn()
        _ = try store.openRun(charterID: charter.id, checklist: checklist)
        let id = UUID()
        let first = try store.setItem(
            "oil", to: .checked, note: "topped up", charterID: charter.id, checklistID: checklist.id,
            at: Self.time(minutes: 1), eventID: id)
        let retry = try store.setItem(
            "oil", to: .notApplicable, note: "other", charterID: charter.id, checklistID: checklist.id,
            at: Self.time(minutes: 2), eventID: id)
        #expect(first == ItemRecord(state: .checked, changedAt: Self.time(minutes: 1), note: "topped up"))
        #expect(retry == first)
        #expect(try store.itemRecords(charterID: charter.id, checklistID: checklist.id) == ["oil": first])
    }

    @Test func notesAreTrimmedKeptAndRemoved() throws {
        let (temp, charter) = try Self.charterStore()
        defer { temp.remove() }
        let store = temp.store
        let checklist = ChecklistFixtures.checkIn()
        _ = try store.openRun(charterID: charter.id, checklist: checklist)
        func set(_ state: ItemState, note: String?? = .none, at minutes: Int) throws -> ItemRecord {
            try store.setItem(
                "oil", to: state, note: note, charterID: charter.id, checklistID: checklist.id,
                at: Self.time(minutes: minutes))
        }
        #expect(try set(.checked, note: "  topped up \n", at: 1).note == "topped up")
        // Without a note argument the note stays; the same state keeps its time.
        #expect(
            try set(.checked, at: 2) == ItemRecord(state: .checked, changedAt: Self.time(minutes: 1), note: "topped up")
        )
        #expect(
            try set(.unchecked, at: 3)
                == ItemRecord(state: .unchecked, changedAt: Self.time(minutes: 3), note: "topped up"))
        #expect(try set(.unchecked, note: .some(nil), at: 4).note == nil)
        let noted = try store.setNote(
            "dipstick hard to reach", on: "oil", charterID: charter.id, checklistID: checklist.id,
            at: Self.time(minutes: 5))
        #expect(
            noted == ItemRecord(state: .unchecked, changedAt: Self.time(minutes: 3), note: "dipstick hard to reach"))
        #expect(
            try store.setNote(
                "   ", on: "oil", charterID: charter.id, checklistID: checklist.id, at: Self.time(minutes: 6)
            ).note == nil)
    }

    @Test func runsAreKeptPerCharter() throws {
        let (temp, charter) = try Self.charterStore()
        defer { temp.remove() }
        let store = temp.store
        let other = try store.createCharter(
            CharterDraft(name: "Ionian", startDate: Self.day.adding(days: 30)), at: Self.t0)
        let checklist = ChecklistFixtures.checkIn()
        _ = try store.openRun(charterID: charter.id, checklist: checklist)
        _ = try store.openRun(charterID: other.id, checklist: checklist)
        try store.setItem("oil", to: .checked, charterID: charter.id, checklistID: checklist.id, at: Self.t0)
        #expect(try store.openRun(charterID: charter.id, checklist: checklist).run.progress.checked == 1)
        #expect(try store.openRun(charterID: other.id, checklist: checklist).run.progress.checked == 0)
        #expect(try store.itemRecords(charterID: other.id, checklistID: checklist.id).isEmpty)
    }

    @Test func aNewVersionOfTheChecklistMigratesTheRun() throws {
        let (temp, charter) = try Self.charterStore()
        defer { temp.remove() }
        let store = temp.store
        let v1 = ChecklistFixtures.checkIn()
        _ = try store.openRun(charterID: charter.id, checklist: v1)
        try store.setItem("sheets", to: .checked, charterID: charter.id, checklistID: v1.id, at: Self.time(minutes: 1))
        try store.setNote(
            "Stern line chafed", on: "lines", charterID: charter.id, checklistID: v1.id, at: Self.time(minutes: 2))
        try store.setItem("oil", to: .checked, charterID: charter.id, checklistID: v1.id, at: Self.time(minutes: 3))
        let sheets = try #require(try store.itemRecords(charterID: charter.id, checklistID: v1.id)["sheets"])
        let lines = try #require(try store.itemRecords(charterID: charter.id, checklistID: v1.id)["lines"])

        // v2: sheets (checked) and lines (a note) and coolant (untouched) removed; fuel added.
        let v2 = ChecklistFixtures.checkIn(
            ropes: [("halyards", "Halyards")],
            engine: [("oil", "Oil level"), ("fuel", "Fuel filter"), ("impeller", "Impeller")])
        let (run, changes) = try store.openRun(charterID: charter.id, checklist: v2)
        #expect(changes.added == ["fuel"])
        #expect(changes.removed == ["sheets", "lines", "coolant"])
        #expect(changes.removedWithProgress == ["sheets", "lines"])
        #expect(!changes.isEmpty)
        #expect(run.orphans == ["sheets": sheets, "lines": lines])
        #expect(run.state(of: "oil") == .checked, "kept items keep their state")
        #expect(run.state(of: "fuel") == .unchecked)
        #expect(run.progress == ChecklistProgress(checked: 1, notApplicable: 0, total: 6))
        #expect(
            run.progress(of: v2.sections[0].subsections[0]) == ChecklistProgress(checked: 0, notApplicable: 0, total: 1)
        )
        // The orphans' records are still stored.
        #expect(try store.itemRecords(charterID: charter.id, checklistID: v1.id)["sheets"] == sheets)

        // Opening v2 again: nothing changed.
        let unchanged = try store.openRun(charterID: charter.id, checklist: v2)
        #expect(unchanged.changes == ChecklistMigration())
        #expect(unchanged.changes.isEmpty)
        #expect(unchanged.run == run)

        // Back to v1: the removed items return with their state, fuel goes.
        let (back, backChanges) = try store.openRun(charterID: charter.id, checklist: v1)
        #expect(backChanges.added == ["sheets", "lines", "coolant"])
        #expect(backChanges.removed == ["fuel"])
        #expect(backChanges.removedWithProgress == [])
        #expect(back.record(of: "sheets") == sheets)
        #expect(back.record(of: "lines") == lines)
        #expect(back.orphans.isEmpty)
        #expect(back.progress == ChecklistProgress(checked: 2, notApplicable: 0, total: 8))
    }

    @Test func anUnchangedOrReorderedChecklistReportsNoChanges() throws {
        let (temp, charter) = try Self.charterStore()
        defer { temp.remove() }
        let store = temp.store
        let v1 = ChecklistFixtures.checkIn()
        #expect(try store.openRun(charterID: charter.id, checklist: v1).changes.isEmpty)
        try store.setItem("sheets", to: .checked, charterID: charter.id, checklistID: v1.id, at: Self.t0)
        #expect(try store.openRun(charterID: charter.id, checklist: v1).changes == ChecklistMigration())
        let reordered = ChecklistFixtures.checkIn(ropes: [
            ("lines", "Mooring lines"), ("sheets", "Sheets"), ("halyards", "Halyards"),
        ])
        let (run, changes) = try store.openRun(charterID: charter.id, checklist: reordered)
        #expect(changes == ChecklistMigration())
        #expect(run.state(of: "sheets") == .checked)
        // Edited titles with the same IDs are the same items.
        let retitled = ChecklistFixtures.checkIn(ropes: [
            ("sheets", "Jib sheets"), ("halyards", "Halyards"), ("lines", "Lines"),
        ])
        #expect(try store.openRun(charterID: charter.id, checklist: retitled).changes == ChecklistMigration())
    }

    @Test func settingAnItemBeforeTheRunIsOpenedThrows() throws {
        let (temp, charter) = try Self.charterStore()
        defer { temp.remove() }
        let store = temp.store
        #expect(throws: ProgressStoreError.self) {
            try store.setItem("oil", to: .checked, charterID: charter.id, checklistID: "check-in", at: Self.t0)
        }
        #expect(throws: ProgressStoreError.self) {
            try store.setNote("x", on: "oil", charterID: charter.id, checklistID: "check-in", at: Self.t0)
        }
        #expect(try store.itemRecords(charterID: charter.id, checklistID: "check-in").isEmpty)
    }

    @Test func openingARunForAnUnknownCharterThrows() throws {
        let (temp, _) = try Self.charterStore()
        defer { temp.remove() }
        let missing = UUID()
        #expect(throws: ProgressStoreError.noCharter(id: missing.uuidString)) {
            try temp.store.openRun(charterID: missing, checklist: ChecklistFixtures.checkIn())
        }
    }
}
