// Times LockerKit's study engine on CARDS cards (10,000 by default) and a year of simulated
// history, with no bundle: the cards are made in memory, the progress in a database file in a
// temporary folder, as an app keeps it. Run through `Benchmarks/run_study.py` (or
// `make bench-study`).
//
// The year: every day one sitting under the default scheduling (SM-2 with learning steps): the
// day's queue is answered, with mostly `good`, up to 20 new cards, and cards in their steps come
// back the same day until none is left. Grades come from a seeded generator, so every run
// simulates the same year. Then, median of RUNS each: the next day's queue, one saved review,
// replaying the whole log under FSRS and back under SM-2, and merging 10,000 events of a second
// device (reviews, undos, checklist ticks) into a copy of the first device's database. Each figure
// is the median wall-clock time, with the median CPU time of the process beside it: on a shared
// machine, a wall time well above its CPU time waited for the disk or for a core.
import Foundation
import LockerKit

/// SplitMix64: a small seeded generator, the same sequence on every platform.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Wall-clock and CPU times of repeated runs, in milliseconds. CPU time counts every thread of
/// the process, and not the time spent waiting for the disk or for a core another program holds.
struct Timings {
    var wall: [Double] = []
    var cpu: [Double] = []

    mutating func measure(_ body: () throws -> Void) rethrows {
        let (wallStart, cpuStart) = (DispatchTime.now().uptimeNanoseconds, processCPUTime())
        try body()
        cpu.append(processCPUTime() - cpuStart)
        wall.append(Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e6)
    }

    /// `median 12.34 ms (CPU 10.20 ms)`: the medians of each.
    var summary: String { "median \(milliseconds(median(wall))) (CPU \(milliseconds(median(cpu))))" }
}

/// The CPU time the process has used, every thread, in milliseconds.
func processCPUTime() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1e3 + Double(now.tv_nsec) / 1e6
}

/// A device's sittings, one a day: the cards it answers and its own view of their states.
struct StudySimulation {
    let store: ProgressStore
    let cards: [ReviewCard]
    let boundary: DayBoundary
    var states: [String: CardState]
    var random: SeededGenerator
    /// The share of answers taken back and answered again, as after a mistaken tap.
    var undoRate = 0.0
    var reviews = 0
    var undos = 0
    var busiestDay = 0
    /// Milliseconds spent in the store's writes.
    var writing = 0.0

    /// A grade as a sailor gives them: mostly `good`; more `again` while a card is being learnt.
    /// Under SM-2 `hard` is a lapse too, so a card in days fails about one time in ten.
    mutating func grade(for state: CardState) -> Grade {
        let roll = Double.random(in: 0..<1, using: &random)
        let (again, hard, good) = state.phase == .review ? (0.06, 0.10, 0.90) : (0.12, 0.20, 0.92)
        return roll < again ? .again : roll < hard ? .hard : roll < good ? .good : .easy
    }

    /// One day's sitting from 09:00: the day's queue answered a card every 8 to 15 seconds, then
    /// the cards in their steps whenever they are due, waiting for the next one when none is, until
    /// none is left. Returns the answers given.
    mutating func sit(on day: LocalDay) throws -> Int {
        let (store, boundary) = (self.store, self.boundary)
        var now = boundary.start(of: day).addingTimeInterval(5 * 3600)
        var answered = 0
        // The whole queue once; after it only the cards in their steps can come back today, so the
        // queue of those alone is the day's queue (a queue of every card for each card coming
        // back would take most of the simulation's time).
        var queue = ReviewQueue(cards: cards, states: states, day: day, now: now)
        while true {
            var stepping = queue.later.map(\.card)
            if queue.cards.isEmpty {
                guard let next = queue.later.first else { break }
                now = max(now, next.dueTime)
            }
            for card in queue.cards {
                let grade = grade(for: states[card.key] ?? .new)
                let at = now
                var event = try timed { try store.review(card, grade: grade, at: at, boundary: boundary) }
                reviews += 1
                answered += 1
                now.addTimeInterval(Double.random(in: 8...15, using: &random))
                if undoRate > 0, Double.random(in: 0..<1, using: &random) < undoRate {
                    let (reviewID, undoneAt) = (event.id, now)
                    if let undo = try timed({ try store.undoReview(reviewID, at: undoneAt, boundary: boundary) }) {
                        undos += 1
                        let (regrade, againAt) = (self.grade(for: undo.next), now.addingTimeInterval(2))
                        event = try timed { try store.review(card, grade: regrade, at: againAt, boundary: boundary) }
                        reviews += 1
                        now.addTimeInterval(Double.random(in: 8...15, using: &random))
                    }
                }
                states[card.key] = event.next
                if event.next.isInSteps { stepping.append(card) }
            }
            queue = ReviewQueue(cards: stepping, states: states, day: day, now: now)
        }
        busiestDay = max(busiestDay, answered)
        return answered
    }

    /// `body`'s result, the time it took added to ``writing``.
    mutating func timed<T>(_ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { writing += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }
        return try body()
    }
}

func benchmarkStudy(_ arguments: [String]) {
    let cardCount = arguments.count > 0 ? Int(arguments[0]) ?? 10_000 : 10_000
    let runs = arguments.count > 1 ? Int(arguments[1]) ?? 7 : 7
    let foreignCount = 10_000
    let boundary = DayBoundary(timeZone: TimeZone(identifier: "UTC") ?? .current)
    let firstDay = LocalDay(year: 2026, month: 1, day: 1) ?? LocalDay(ordinal: 20_454)
    let year = 365
    do {
        // Decks of 500 cards, as run_runtime.py writes them.
        let decks = stride(from: 0, to: cardCount, by: 500).map { first in
            let deckID = String(format: "deck-%03d", first / 500)
            let cards = (first..<min(cardCount, first + 500)).map { index in
                let id = "c\(index)"
                let front = "What does signal \(index) mean, and when is it given?"
                return Card(
                    id: id, uuid: ContentIdentity.uuidString(kind: .deck, id: deckID, part: ["card", id]),
                    front: [Block(.paragraph([.text(front)]))],
                    back: [Block(.paragraph([.text("Answer \(index): one prolonged blast, then two short ones.")]))],
                    frontText: front, source: "\(deckID)/signals.md", explicitID: true)
            }
            return Deck(
                id: deckID, uuid: ContentIdentity.uuidString(kind: .deck, id: deckID), locale: "en",
                title: "Deck \(first / 500)", description: nil, tags: [], order: nil, source: "\(deckID)/_deck.md",
                extra: [:], cards: cards)
        }
        let cards = ReviewCard.all(in: decks)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-study-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let path = work.appendingPathComponent("progress.sqlite").path
        let yearPath = work.appendingPathComponent("year.sqlite").path
        let otherPath = work.appendingPathComponent("other.sqlite").path
        print("\(cards.count) cards in \(decks.count) decks; \(runs) runs")

        // 1. A year of sittings, one transaction a review, into a new database file.
        var states: [String: CardState] = [:]
        var yearEvents = 0
        do {
            let store = try ProgressStore(path: path)
            let durability = try store.durability()
            let scheduling = try store.scheduling()
            print(
                "progress database: journal_mode \(durability.journalMode), synchronous \(durability.synchronous); "
                    + "scheduling \(scheduling.algorithm.rawValue), steps \(scheduling.learningSteps) and "
                    + "\(scheduling.relearningSteps) s")
            var simulation = StudySimulation(
                store: store, cards: cards, boundary: boundary, states: [:], random: SeededGenerator(seed: 2026))
            var setup = Timings()
            try setup.measure {
                for offset in 0..<year { _ = try simulation.sit(on: firstDay.adding(days: offset)) }
            }
            states = simulation.states
            yearEvents = simulation.reviews
            let introduced = states.values.filter { !$0.isNew }.count
            let perReview = simulation.writing / Double(max(1, simulation.reviews))
            print(
                "a year (\(year) days): \(simulation.reviews) review events, \(introduced) cards introduced, "
                    + "\(simulation.reviews / year) answers a day on average, \(simulation.busiestDay) on the busiest; "
                    + String(format: "simulated in %.1f s (CPU %.1f s), ", setup.wall[0] / 1000, setup.cpu[0] / 1000)
                    + String(format: "of which the store's writes %.1f s ", simulation.writing / 1000)
                    + "(\(milliseconds(perReview)) a review)")
        }
        // The store is released, and with it the database's connections: the file stands alone.
        let size = try [path, path + "-wal"].filter { FileManager.default.fileExists(atPath: $0) }.reduce(0) {
            $0 + (try FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int ?? 0)
        }
        print(
            "the database after the year: \(String(format: "%.1f", Double(size) / 1e6)) MB, \(size / max(1, yearEvents)) bytes an event"
        )
        try copyDatabase(path, to: yearPath)
        try copyDatabase(path, to: otherPath)

        // 2. The next day's queue, read from the file.
        let store = try ProgressStore(path: path)
        let today = firstDay.adding(days: year)
        let morning = boundary.start(of: today).addingTimeInterval(5 * 3600)
        var queue = ReviewQueue(cards: [], states: [:], day: today)
        var queueTimes = Timings()
        for _ in 0..<runs {
            try queueTimes.measure { queue = try store.queue(for: decks, on: today, now: morning) }
        }
        print(
            "the day's queue (\(queue.dueCount) due, \(queue.newCount) new, \(queue.newHeldBack) held back): \(queueTimes.summary)"
        )

        // 3. One saved review: each of the queue's cards in turn, due ones first.
        var reviewTimes = Timings()
        var now = morning
        for card in queue.cards.prefix(max(runs, 200)) {
            try reviewTimes.measure { try store.review(card, grade: .good, at: now, boundary: boundary) }
            now.addTimeInterval(10)
        }
        print("one saved review (\(reviewTimes.wall.count) cards): \(reviewTimes.summary)")

        // 4. The whole log replayed under FSRS, then under SM-2 with steps again.
        let fsrs = Scheduling(algorithm: .fsrs)
        let sm2 = Scheduling()
        var toFSRS = Timings()
        var toSM2 = Timings()
        var rescheduled = 0
        for _ in 0..<runs {
            try toFSRS.measure { rescheduled = try store.setScheduling(fsrs) }
            try toSM2.measure { rescheduled = try store.setScheduling(sm2) }
        }
        print(
            "setScheduling, the whole log replayed (\(rescheduled) cards): to FSRS \(toFSRS.summary), back to SM-2 \(toSM2.summary)"
        )

        // 5. Another device, which had the same year, studies on without syncing (one answer in
        // 30 taken back and given again) and ticks a charter's checklist, until it has made
        // 10,000 events; they are merged into a copy of the first device's database.
        let other = try ProgressStore(path: otherPath)
        let synced = try other.events().cursor
        var device = StudySimulation(
            store: other, cards: cards, boundary: boundary, states: states, random: SeededGenerator(seed: 7))
        device.undoRate = 1.0 / 30
        let charterID = UUID()
        try other.createCharter(
            CharterDraft(name: "Adriatic", startDate: today, endDate: today.adding(days: 13), location: "Split"),
            at: boundary.start(of: today), id: charterID)
        let checklist = benchmarkChecklist(sections: 4, items: 10)
        _ = try other.openRun(charterID: charterID, checklist: checklist)
        let items = checklist.items.map(\.id)
        var ticks = 0
        var day = today
        var made = 1
        while made < foreignCount {
            _ = try device.sit(on: day)
            var tickTime = boundary.start(of: day).addingTimeInterval(14 * 3600)
            for _ in 0..<15 {
                let item = items[Int.random(in: 0..<items.count, using: &device.random)]
                let state = ItemState.allCases[Int.random(in: 0..<3, using: &device.random)]
                let note: String?? =
                    Int.random(in: 0..<5, using: &device.random) == 0 ? .some("checked on day \(day)") : .none
                try other.setItem(
                    item, to: state, note: note, charterID: charterID, checklistID: checklist.id, at: tickTime)
                tickTime.addTimeInterval(30)
                ticks += 1
            }
            made = 1 + ticks + device.reviews + device.undos
            day = day.adding(days: 1)
        }
        var foreign: [ProgressEvent] = []
        var readTimes = Timings()
        for _ in 0..<runs {
            try readTimes.measure { foreign = try other.events(since: synced, limit: foreignCount).events }
        }
        var kinds: [String: Int] = [:]
        var touched: Set<String> = []
        for event in foreign {
            let kind: String
            switch event.change {
            case .review(let cardKey, _, _, _, _):
                kind = "reviews"
                touched.insert(cardKey)
            case .undo(_, let cardKey, _, _, _, _):
                kind = "undos"
                touched.insert(cardKey)
            case .item: kind = "item changes"
            case .charter: kind = "charter"
            }
            kinds[kind, default: 0] += 1
        }
        let counts = kinds.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        print(
            "the other device: \(foreign.count) events over \(today.days(until: day)) days (\(counts); "
                + "\(touched.count) cards); events(since:) read them: \(readTimes.summary)")

        var mergeTimes = Timings()
        var againTimes = Timings()
        var report = MergeReport()
        var again = MergeReport()
        for run in 0..<runs {
            let runPath = work.appendingPathComponent("merge-\(run).sqlite").path
            try copyDatabase(yearPath, to: runPath)
            let copy = try ProgressStore(path: runPath)
            try mergeTimes.measure { report = try copy.merge(foreign) }
            try againTimes.measure { again = try copy.merge(foreign) }
        }
        print(
            "merge \(foreign.count) foreign events (\(report.added) added, \(report.known) known): \(mergeTimes.summary)"
        )
        print(
            "merge the same events again (\(again.added) added, \(again.known) known): \(againTimes.summary)"
        )
    } catch {
        FileHandle.standardError.write(Data("locker-runtime-bench: \(error)\n".utf8))
        exit(1)
    }
}

/// Copies a database no connection has open: its file, and its write-ahead log if one was left.
func copyDatabase(_ path: String, to copy: String) throws {
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    if FileManager.default.fileExists(atPath: path + "-wal") {
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
    }
}

/// A charter's checklist of `sections` sections of `items` items each.
func benchmarkChecklist(sections: Int, items: Int) -> Checklist {
    let id = "check-in"
    return Checklist(
        id: id, uuid: ContentIdentity.uuidString(kind: .checklist, id: id), locale: "en", title: "Check-in",
        subtitle: nil, checklistType: .checkIn, tags: [], aliases: [], order: nil, source: "\(id).md", extra: [:],
        blocks: [],
        sections: (0..<sections).map { section in
            let sectionID = "section-\(section)"
            return ChecklistSection(
                id: sectionID,
                uuid: ContentIdentity.uuidString(kind: .checklist, id: id, part: ["section", sectionID]),
                anchor: sectionID, title: "Section \(section)", titleSpans: [.text("Section \(section)")], note: [],
                subsections: [
                    ChecklistSubsection(
                        id: sectionID,
                        uuid: ContentIdentity.uuidString(
                            kind: .checklist, id: id, part: ["subsection", sectionID, sectionID]),
                        anchor: nil, title: nil, titleSpans: nil, note: [],
                        items: (0..<items).map { item in
                            let itemID = "item-\(section)-\(item)"
                            return ChecklistItem(
                                id: itemID,
                                uuid: ContentIdentity.uuidString(kind: .checklist, id: id, part: ["item", itemID]),
                                title: "Item \(item)", titleSpans: [.text("Item \(item)")], guidance: [],
                                explicitID: true)
                        })
                ])
        })
}
