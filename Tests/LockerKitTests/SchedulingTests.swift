import Foundation
import LockerKit
import LockerTestSupport
import Testing

/// Learning and relearning steps around SM-2 and FSRS, previews, the day's queue with cards in
/// their steps, and switching a store's scheduler.
@Suite struct SchedulingTests {
    typealias F = ReviewFixtures

    static let noon = F.time(F.day0)

    /// Answers `grades` one after another, each `gap` seconds after the last.
    static func answer(
        _ grades: [Grade], with scheduling: Scheduling, from state: CardState = .new, at start: Date = noon,
        gap: TimeInterval = 60
    ) -> CardState {
        var state = state
        for (index, grade) in grades.enumerated() {
            let time = start.addingTimeInterval(Double(index) * gap)
            state = scheduling.review(state, grade: grade, at: time, on: F.utc.day(of: time))
        }
        return state
    }

    // MARK: - Steps

    @Test func aNewCardGoesThroughItsLearningStepsUnderSM2() throws {
        let sm2 = Scheduling()
        #expect(sm2.learningSteps == [60, 600] && sm2.relearningSteps == [600])
        // good: the second step, 10 minutes; SM-2 counts the first success now.
        let first = sm2.review(.new, grade: .good, at: Self.noon, on: F.day0)
        #expect(first.phase == .learning && first.step == 1)
        #expect(first.dueTime == Self.noon.addingTimeInterval(600))
        #expect(first.due == F.day0, "due today: it comes back in this sitting")
        #expect((first.repetitions, first.ease, first.interval) == (1, 2500, 1))
        // again goes back to the first step and leaves SM-2's numbers alone, as SuperMemo's
        // same-day repeats do; good twice graduates it to the interval SM-2 gave.
        let again = sm2.review(first, grade: .again, at: Self.noon.addingTimeInterval(600), on: F.day0)
        #expect(again.phase == .learning && again.step == 0)
        #expect(again.dueTime == Self.noon.addingTimeInterval(660))
        #expect((again.repetitions, again.ease, again.lapses) == (1, 2500, 0))
        let graduated = Self.answer([.good, .good], with: sm2, from: again, at: Self.noon.addingTimeInterval(700))
        #expect(graduated.phase == .review && graduated.step == nil && graduated.dueTime == nil)
        #expect(graduated.due == F.day0.adding(days: 1))
        #expect(graduated.reviews == 4)
        // easy graduates at once.
        let easy = sm2.review(.new, grade: .easy, at: Self.noon, on: F.day0)
        #expect(easy.phase == .review && easy.due == F.day0.adding(days: 1) && easy.ease == 2600)
    }

    @Test func hardWaitsHalfwayToTheSecondStepOrOneAndAHalfTheOnlyOne() {
        let two = Scheduling().review(.new, grade: .hard, at: Self.noon, on: F.day0)
        #expect(two.step == 0 && two.dueTime == Self.noon.addingTimeInterval(330))
        let one = Scheduling(learningSteps: [60]).review(.new, grade: .hard, at: Self.noon, on: F.day0)
        #expect(one.step == 0 && one.dueTime == Self.noon.addingTimeInterval(90))
        let later = Self.answer([.good, .hard], with: Scheduling(learningSteps: [60, 600, 3600]))
        #expect(later.step == 1 && later.dueTime == Self.noon.addingTimeInterval(60 + 600))
    }

    @Test func aForgottenCardRelearnsAndKeepsItsLapse() {
        let sm2 = Scheduling()
        let known = Self.answer([.easy], with: sm2)
        let nextDay = Self.noon.addingTimeInterval(86_400)
        let forgotten = sm2.review(known, grade: .hard, at: nextDay, on: F.day0.adding(days: 1))
        #expect(forgotten.phase == .relearning && forgotten.step == 0)
        #expect(forgotten.dueTime == nextDay.addingTimeInterval(600))
        #expect((forgotten.repetitions, forgotten.interval, forgotten.lapses) == (0, 1, 1))
        let relearnt = sm2.review(
            forgotten, grade: .good, at: nextDay.addingTimeInterval(600), on: F.day0.adding(days: 1))
        #expect(relearnt.phase == .review && relearnt.due == F.day0.adding(days: 2) && relearnt.lapses == 1)
        // Under FSRS hard is a recall: no relearning.
        let fsrs = Scheduling(algorithm: .fsrs)
        let recalled = fsrs.review(
            Self.answer([.easy], with: fsrs), grade: .hard, at: nextDay, on: F.day0.adding(days: 1))
        #expect(recalled.phase == .review && recalled.lapses == 0)
    }

    @Test func withoutStepsSM2IsExactlyTheClassicSchedule() {
        var state = CardState.new
        var classic = CardState.new
        var day = F.day0
        for grade in [Grade.good, .good, .again, .hard, .good, .easy, .good] {
            state = Scheduling.classicSM2.review(state, grade: grade, at: F.time(day), on: day)
            classic = SM2.review(classic, grade: grade, on: day)
            #expect(state == classic)
            day = state.due ?? day
        }
    }

    @Test func aStepLongerThanTheDayIsDueOnTheDayItEnds() {
        let state = Scheduling(learningSteps: [86_400]).review(.new, grade: .again, at: Self.noon, on: F.day0)
        #expect(state.due == F.day0.adding(days: 1))
        #expect(Scheduling(learningSteps: [86_401]).problems == ["learning steps must be from 1 second to 1 day"])
    }

    // MARK: - FSRS

    @Test func fsrsKeepsStabilityAndDifficultyAndFollowsTheRetention() throws {
        let state = Self.answer([.good, .good], with: Scheduling(algorithm: .fsrs), gap: 600)
        #expect(state.phase == .review)
        let stability = try #require(state.stability)
        let difficulty = try #require(state.difficulty)
        #expect((1...10).contains(difficulty))
        #expect(state.interval == FSRS().interval(for: stability))
        // A higher retention gives shorter intervals; the maximum interval caps them.
        #expect(FSRS(desiredRetention: 0.95).interval(for: 30) < FSRS(desiredRetention: 0.8).interval(for: 30))
        #expect(FSRS(maximumInterval: 10).interval(for: 1_000) == 10)
        #expect(FSRS(parameters: [1, 2]).problems == ["FSRS needs 21 parameters, not 2"])
        #expect(FSRS(desiredRetention: 0.5).problems.count == 1)
        // Settings out of range do not trap: the weights fall back, the interval is capped.
        let short = FSRS(parameters: Array(FSRS.defaultParameters.prefix(19)))
        #expect(short.next(nil, grade: .good, elapsedDays: 0) == FSRS().next(nil, grade: .good, elapsedDays: 0))
        #expect(FSRS(maximumInterval: .max).interval(for: 1e30) == 36_500)
        #expect(FSRS(maximumInterval: 0).interval(for: 100) == 1)
    }

    // MARK: - Previews

    @Test func previewsGiveEachGradesWaitInOneCall() {
        let previews = Scheduling().previews(of: .new, at: Self.noon, on: F.day0)
        #expect(previews.map(\.grade) == Grade.allCases)
        #expect(previews.map(\.label) == ["1m", "6m", "10m", "1d"])
        #expect(previews.map(\.wait) == [.time(60), .time(330), .time(600), .days(1)])
        let known = Self.answer([.easy, .good], with: .classicSM2, gap: 86_400)
        let later = Scheduling.classicSM2.previews(
            of: known, at: Self.noon.addingTimeInterval(7 * 86_400), on: F.day0.adding(days: 7))
        #expect(later.map(\.label) == ["1d", "1d", "16d", "17d"], "ceil(6 × 2.6), ceil(6 × 2.7)")
        for preview in later {
            #expect(
                preview.state
                    == Scheduling.classicSM2.review(
                        known, grade: preview.grade, at: Self.noon.addingTimeInterval(7 * 86_400),
                        on: F.day0.adding(days: 7)))
        }
    }

    @Test func labelsRoundToTheUnitAButtonShows() {
        let labels = [
            IntervalPreview.Wait.time(45), .time(90), .time(5_400), .time(86_400), .days(29), .days(45), .days(400),
        ].map { IntervalPreview(grade: .good, wait: $0, state: .new).label }
        #expect(labels == ["45s", "2m", "1.5h", "1d", "29d", "1.5mo", "1.1y"])
    }

    // MARK: - The queue and the store

    @Test func cardsInTheirStepsComeBackWhenTheirMomentComes() throws {
        let temp = try TemporaryStore(scheduling: Scheduling())
        defer { temp.remove() }
        let store = temp.store
        let deck = F.deck("flags", count: 3)
        let cards = ReviewCard.all(in: [deck])
        try store.review(cards[0], grade: .again, at: Self.noon, boundary: F.utc)
        try store.review(cards[1], grade: .good, at: Self.noon, boundary: F.utc)
        let soon = try store.queue(for: [deck], on: F.day0, now: Self.noon.addingTimeInterval(30))
        #expect(soon.cards.map(\.card.id) == ["c2"])
        #expect(soon.later.map(\.card.card.id) == ["c0", "c1"])
        #expect(soon.later.map(\.dueTime) == [Self.noon.addingTimeInterval(60), Self.noon.addingTimeInterval(600)])
        let after = try store.queue(for: [deck], on: F.day0, now: Self.noon.addingTimeInterval(120))
        #expect(after.cards.map(\.card.id) == ["c0", "c2"])
        #expect(after.dueCount == 1 && after.newCount == 1)
        // Without a moment, every card in its steps today is in the queue, soonest first.
        #expect(try store.queue(for: [deck], on: F.day0).cards.map(\.card.id) == ["c0", "c1", "c2"])
        // The next day's boundary: left in their steps, they are due first thing.
        let tomorrow = try store.queue(
            for: [deck], on: F.day0.adding(days: 1), now: F.time(F.day0.adding(days: 1), hour: 5))
        #expect(tomorrow.cards.map(\.card.id) == ["c0", "c1", "c2"])
        let previews = try store.previews(for: cards[0], at: Self.noon.addingTimeInterval(60), boundary: F.utc)
        #expect(previews.map(\.label) == ["1m", "6m", "10m", "1d"])
    }

    @Test func switchingReplaysTheLogAndSwitchingBackGivesTheSameStates() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        #expect(try store.scheduling() == .classicSM2)
        let deck = F.deck("flags", count: 4)
        let cards = ReviewCard.all(in: [deck])
        var random = SplitMix64(seed: 7)
        for day in 0..<40 {
            for card in cards where random.next() % 3 == 0 {
                let grade = Grade(rawValue: Int(random.next() % 4)) ?? .good
                try store.review(card, grade: grade, at: F.time(F.day0.adding(days: day)), boundary: F.utc)
            }
        }
        try store.undoLastReview(at: F.time(F.day0.adding(days: 40)), boundary: F.utc)
        let sm2 = try store.cardStates()
        let events = try store.reviewEvents().count

        #expect(try store.setScheduling(Scheduling(algorithm: .fsrs)) == 4)
        let fsrs = try store.cardStates()
        #expect(fsrs.values.allSatisfy { $0.stability != nil && $0.difficulty != nil })
        // The same as scheduling each card's standing reviews with FSRS from the start.
        let log = try store.reviewEvents()
        let undone = Set(log.compactMap(\.undoes))
        for card in cards {
            let answers = log.filter { $0.cardKey == card.key && $0.kind == .review && !undone.contains($0.id) }
            let replayed = answers.reduce(CardState.new) {
                Scheduling(algorithm: .fsrs).review($0, grade: $1.grade, at: $1.time, on: $1.day)
            }
            #expect(fsrs[card.key] ?? .new == replayed, "\(card.card.id)")
        }
        #expect(try store.setScheduling(Scheduling(algorithm: .fsrs)) == 0, "the same scheduling replays nothing")
        #expect(try store.setScheduling(.classicSM2) == 4)
        #expect(try store.cardStates() == sm2)
        #expect(try store.reviewEvents().count == events, "the log is not touched")
        #expect(
            throws: ProgressStoreError.invalidScheduling(problems: ["learning steps must be from 1 second to 1 day"])
        ) {
            try store.setScheduling(Scheduling(learningSteps: [0]))
        }
    }

    @Test func aNewStoreSchedulesWithStepsAndAnOldOneKeepsClassicSM2() throws {
        let fresh = try ProgressStore.inMemory()
        #expect(try fresh.scheduling() == Scheduling())

        // Written by the store of schema v2 (`locker review` and `locker charter` before steps
        // and FSRS): reviews of sound-signals over three days, and two charters, one archived.
        let (folder, path) = try Self.copyOfV2Store()
        defer { try? FileManager.default.removeItem(at: folder) }

        let old = try ProgressStore(path: path)
        #expect(try old.integrityCheck() == ["ok"])
        #expect(try old.scheduling() == .classicSM2)
        let states = try old.cardStates()
        #expect(states.count >= 3 && states.values.allSatisfy { $0.phase == .review && $0.stability == nil })
        // Its states are what its log gives under classic SM-2: replaying changes nothing.
        #expect(try old.setScheduling(Scheduling(algorithm: .fsrs)) == states.count)
        #expect(try old.setScheduling(.classicSM2) == states.count)
        #expect(try old.cardStates() == states)
        // Its charters are in the log, so another device gets them.
        let charters = try old.charters(includingArchived: true)
        #expect(charters.count == 2 && charters.contains { $0.isArchived })
        let other = try ProgressStore.inMemory()
        try other.setScheduling(.classicSM2)
        try other.merge(try old.events().events)
        #expect(try other.charters(includingArchived: true) == charters)
        #expect(try other.cardStates() == states)
    }

    /// The previous version stamped every change of a `--today` session at noon, so a tick and
    /// its undoing could share a millisecond: the migration moves the later one on, and another
    /// device that merges the log sees the state this one shows.
    @Test func eventsThatShareAMillisecondKeepTheOrderTheyWereWrittenIn() throws {
        let (folder, path) = try Self.copyOfV2Store()
        defer { try? FileManager.default.removeItem(at: folder) }
        // As the v2 store wrote them: checked, then unchecked, both at noon.
        let trip = "CE37379F-BE7C-4CF5-BC93-D2A6DBD84818"
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("INSERT INTO checklist_run VALUES (?, 'check-in')", (sys.argv[2],))
            db.execute("INSERT INTO checklist_item VALUES (?, 'check-in', 'oil', 'unchecked', 1780315200000, NULL)", (sys.argv[2],))
            for id, state in (("E0000000-0000-0000-0000-00000000000F", "checked"), ("E0000000-0000-0000-0000-000000000001", "unchecked")):
                db.execute("INSERT INTO checklist_event (id, charter_id, checklist_id, item_id, state, note, time_ms) VALUES (?, ?, 'check-in', 'oil', ?, NULL, 1780315200000)", (id, sys.argv[2], state))
            db.commit()
            """
        try PythonReference.run(script, arguments: [path, trip], package: "python3's sqlite3")

        let store = try ProgressStore(path: path)
        let charterID = try #require(UUID(uuidString: trip))
        #expect(try store.itemRecords(charterID: charterID, checklistID: "check-in")["oil"]?.state == .unchecked)
        let items = try store.events().events.filter { if case .item = $0.change { true } else { false } }
        #expect(items.map { $0.time.timeIntervalSince1970 } == [1_780_315_200, 1_780_315_200.001])
        let other = try ProgressStore.inMemory()
        try other.merge(try store.events().events)
        #expect(
            try other.itemRecords(charterID: charterID, checklistID: "check-in")
                == store.itemRecords(charterID: charterID, checklistID: "check-in"))
    }

    /// A damaged file is reported, not trusted: a learning step below zero would index out of
    /// the steps, an interval near Int.max would overflow the next.
    @Test(arguments: ["step = -1", "interval = 9223372036854775807", "ease = -5", "reviews = 9223372036854775807"])
    func aDamagedCardIsReportedNotScheduled(damage: String) throws {
        let temp = try TemporaryStore(scheduling: Scheduling())
        defer { temp.remove() }
        let card = ReviewCard.all(in: [F.deck("flags", count: 1)])[0]
        try temp.store.review(card, grade: .again, at: Self.noon, boundary: F.utc)
        let script =
            "import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\ndb.execute('UPDATE card SET ' + sys.argv[2])\ndb.commit()"
        try PythonReference.run(script, arguments: [temp.path, damage], package: "python3's sqlite3")
        let store = try ProgressStore(path: temp.path)
        #expect(throws: ProgressStoreError.corrupt(reason: "card \(card.key) is not valid")) {
            try store.previews(for: card, at: Self.noon.addingTimeInterval(60), boundary: F.utc)
        }
        #expect(throws: ProgressStoreError.self) {
            try store.review(card, grade: .hard, at: Self.noon.addingTimeInterval(60), boundary: F.utc)
        }
    }

    /// A copy of `Fixtures/progress-v2.sqlite` in a folder of its own, and the copy's path.
    static func copyOfV2Store() throws -> (folder: URL, path: String) {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/progress-v2.sqlite")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-v2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("progress.sqlite").path
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)
        return (folder, path)
    }
}
