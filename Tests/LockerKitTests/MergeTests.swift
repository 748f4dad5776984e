import Foundation
import LockerKit
import LockerTestSupport
import Testing

/// Cards, a checklist and charters that devices share in the merge tests.
enum MergeFixtures {
    static let deck = ReviewFixtures.deck("knots", count: 3)
    static let cards = ReviewCard.all(in: [deck])
    static let checklist = ChecklistFixtures.checklist(
        id: "engine-check", title: "Engine check",
        sections: [
            (
                "Engine",
                [
                    ChecklistFixtures.Sub(
                        title: nil,
                        items: [
                            ("oil", "Oil level"), ("coolant", "Coolant"), ("impeller", "Impeller"), ("belt", "Belt"),
                        ])
                ]
            )
        ])
    static let itemIDs = checklist.items.map(\.id)
    /// 2026-06-01 09:00 UTC.
    static let t0 = ReviewFixtures.time(ReviewFixtures.day0, hour: 9)
    static let charterDay = LocalDay(year: 2026, month: 7, day: 4)!

    /// `t0` plus `seconds`.
    static func time(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    /// A fixed UUID: `00000000-0000-4000-8000-0000000000nn`.
    static func id(_ n: Int) -> UUID {
        let digits = String(n)
        return UUID(uuidString: "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits)!
    }

    static func draft(_ name: String, days: Int = 7, notes: String? = nil) -> CharterDraft {
        CharterDraft(name: name, startDate: charterDay, endDate: charterDay.adding(days: days), notes: notes)
    }

    /// A store in memory that schedules with `scheduling` (SM-2 without steps unless given).
    static func store(_ scheduling: Scheduling = .classicSM2) throws -> ProgressStore {
        let store = try ProgressStore.inMemory()
        try store.setScheduling(scheduling)
        return store
    }

    /// Every store gets every event of the others.
    static func sync(_ stores: ProgressStore...) throws {
        for _ in 0..<2 {
            for a in stores {
                for b in stores where a !== b { try a.merge(b.events().events) }
            }
        }
    }

    /// The events of `store` that `include` selects.
    static func events(of store: ProgressStore, where include: (ProgressEvent) -> Bool) throws -> [ProgressEvent] {
        try store.events().events.filter(include)
    }

    /// The milliseconds since 1970 of `date`.
    static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The `invalidEvent` that merging `events` throws: the event's ID, or `nil` when nothing (or
    /// another error) is thrown.
    static func refusal(of events: [ProgressEvent], by store: ProgressStore) -> String? {
        do {
            try store.merge(events)
            return nil
        } catch {
            guard case .invalidEvent(let id, _) = error else { return "not invalidEvent: \(error)" }
            return id
        }
    }
}

/// Everything a store holds that merging decides: compared across devices.
struct StoreSnapshot: Equatable {
    var cards: [String: CardState]
    /// The IDs of the reviews and undos among `events`.
    var reviewIDs: Set<UUID>
    var events: Set<ProgressEvent>
    var charters: [Charter]
    /// Every item record of every run, by `charter/checklist`.
    var items: [String: [String: ItemRecord]]

    init(_ store: ProgressStore, charterIDs: [UUID]) throws {
        cards = try store.cardStates()
        events = Set(try store.events().events)
        reviewIDs = Set(
            events.compactMap { event in
                switch event.change {
                case .review, .undo: event.id
                case .item, .charter: nil
                }
            })
        charters = try store.charters(includingArchived: true)
        items = [:]
        for charterID in Set(charterIDs + charters.map(\.id)) {
            let records = try store.itemRecords(charterID: charterID, checklistID: MergeFixtures.checklist.id)
            if !records.isEmpty { items["\(charterID)/\(MergeFixtures.checklist.id)"] = records }
        }
    }

    /// What differs, field by field.
    func differences(from other: StoreSnapshot) -> [String] {
        var lines: [String] = []
        for key in Set(cards.keys).union(other.cards.keys).sorted() where cards[key] != other.cards[key] {
            lines.append("card \(key): \(String(describing: cards[key])) ≠ \(String(describing: other.cards[key]))")
        }
        if reviewIDs != other.reviewIDs {
            lines.append(
                "review IDs: only here \(reviewIDs.subtracting(other.reviewIDs)), only there \(other.reviewIDs.subtracting(reviewIDs))"
            )
        }
        if events != other.events {
            lines.append(
                "events: only here \(events.subtracting(other.events)), only there \(other.events.subtracting(events))")
        }
        if charters != other.charters { lines.append("charters: \(charters) ≠ \(other.charters)") }
        for key in Set(items.keys).union(other.items.keys).sorted() where items[key] != other.items[key] {
            lines.append("items \(key): \(String(describing: items[key])) ≠ \(String(describing: other.items[key]))")
        }
        return lines
    }
}

// MARK: - The property test

/// Two or three devices review cards, tick a checklist and edit charters offline, in an order a
/// seeded generator draws, exchanging some events part-way; then they exchange everything in
/// random orders and batches. Every device must end with the same states, the states a fresh
/// store gets from the same events merged in any order or grouping.
final class MergeSimulation {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    final class Device {
        let index: Int
        let store: ProgressStore
        /// How far its clock is from the true time, in seconds.
        var skew: TimeInterval
        /// The charters whose run it opened.
        var opened: Set<UUID> = []
        /// Where its last reading of each other device's events ended.
        var cursors: [Int: ProgressCursor] = [:]

        init(index: Int, store: ProgressStore, skew: TimeInterval) {
            self.index = index
            self.store = store
            self.skew = skew
        }
    }

    typealias M = MergeFixtures

    let seed: UInt64
    private var rng: SplitMix64
    private let tracing: Bool
    /// What was done, when tracing: printed for a failing schedule.
    private(set) var trace: [String] = []
    private var scheduling = Scheduling()
    private var devices: [Device] = []
    private var now = M.t0
    /// The charters of the schedule: any device may make one it does not have.
    private var charterIDs: [UUID] = []

    init(seed: UInt64, tracing: Bool = false) {
        self.seed = seed
        self.rng = SplitMix64(seed: seed)
        self.tracing = tracing
    }

    // MARK: Random draws

    private func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    private func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < probability }
    private func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }
    private func shuffled<T>(_ values: [T]) -> [T] { values.shuffled(using: &rng) }

    /// A version 4 UUID from the generator, so ties broken by event ID replay the same.
    private func uuid() -> UUID {
        let a = (rng.next() & ~0xF000) | 0x4000
        let b = (rng.next() & ~(0xC0 << 56)) | (0x80 << 56)
        func byte(_ word: UInt64, _ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: word >> (56 - 8 * index)) }
        return UUID(
            uuid: (
                byte(a, 0), byte(a, 1), byte(a, 2), byte(a, 3), byte(a, 4), byte(a, 5), byte(a, 6), byte(a, 7),
                byte(b, 0), byte(b, 1), byte(b, 2), byte(b, 3), byte(b, 4), byte(b, 5), byte(b, 6), byte(b, 7)
            ))
    }

    /// A skew of a device's clock: mostly none, else milliseconds to a day either way.
    private func skew() -> TimeInterval {
        switch int(0...9) {
        case 0...5: 0
        case 6: Double(int(-999...999)) / 1000
        case 7, 8: Double(int(-3 * 3600...3 * 3600))
        default: Double(pick([-1, 1]) * 86_400)
        }
    }

    private func note(_ text: @autoclosure () -> String) {
        if tracing { trace.append(text()) }
    }

    private func fail(_ text: String) -> Failure { Failure(description: "seed \(seed): \(text)") }

    // MARK: The schedule

    /// Runs the schedule; throws a ``Failure`` naming the seed when states differ.
    ///
    /// - Parameter algebra: also check that each device's states are what a fresh store fed its
    ///   events has, and that merging the devices' sets in other orders and groupings into fresh
    ///   stores gives the same (each fresh store costs milliseconds in a debug build).
    func run(algebra: Bool) throws {
        let deviceCount = chance(0.5) ? 2 : 3
        scheduling = pick([Scheduling(), .classicSM2, Scheduling(algorithm: .fsrs)])
        for index in 0..<deviceCount {
            let store = try ProgressStore.inMemory()
            try store.setScheduling(scheduling)
            devices.append(Device(index: index, store: store, skew: skew()))
        }
        let shared = (0..<int(1...2)).map { _ in uuid() }
        // Any device may make a charter with one of these IDs it does not have, the same as
        // another device's: the shared ones, and others made during the schedule.
        charterIDs = shared + (0..<int(1...2)).map { _ in uuid() }
        note(
            "\(deviceCount) devices, \(scheduling.algorithm) steps \(scheduling.learningSteps), skews \(devices.map(\.skew))"
        )
        // The shared charters, made on the first device and sent to the others, or left for the
        // exchanges to bring (after ticks made in them, sometimes).
        for id in shared {
            try devices[0].store.createCharter(draft(), at: now, id: id)
            try open(id, on: devices[0])
            if chance(0.5) {
                try devices[0].store.setItem(
                    pick(M.itemIDs), to: .checked, charterID: id, checklistID: M.checklist.id, at: now, eventID: uuid())
            }
        }
        if chance(0.5) {
            for device in devices.dropFirst() { try merge(devices[0].store.events().events, into: device) }
        }

        for _ in 0..<int(5...16) { try step() }

        var reference: (snapshot: StoreSnapshot, reviewLog: Set<UUID>)?
        if algebra {
            // States are a function of each device's set of events: a fresh store fed them has the same.
            let sets = try devices.map { try $0.store.events().events }
            var fresh: [ProgressStore] = []
            for (device, events) in zip(devices, sets) {
                fresh.append(try freshStore([shuffled(events)]))
                try expectSame(
                    fresh[device.index], device.store, "a fresh store fed device \(device.index)'s events and it")
            }
            // Merging is commutative and associative.
            let expected: StoreSnapshot
            if deviceCount == 3 {
                let (a, b, c) = (sets[0], sets[1], sets[2])
                try merge([shuffled(b), shuffled(c)], into: fresh[0])
                expected = try StoreSnapshot(fresh[0], charterIDs: charterIDs)
                try merge([shuffled(c), shuffled(b)], into: devices[0].store)
                try expectSame(expected, devices[0].store, "A←B←C and A←C←B")
                try merge([shuffled(a + c)], into: devices[1].store)
                try expectSame(expected, devices[1].store, "A←B←C and B←(A∪C)")
                try merge([shuffled(a + b)], into: devices[2].store)
                try expectSame(expected, devices[2].store, "A←B←C and C←(A∪B)")
                try expectSame(expected, try freshStore([shuffled(a + b), shuffled(c)]), "A←B←C and (A∪B)←C")
                try expectSame(expected, try freshStore([shuffled(a), shuffled(b + c)]), "A←B←C and A←(B∪C)")
            } else {
                try merge([shuffled(sets[1])], into: fresh[0])
                expected = try StoreSnapshot(fresh[0], charterIDs: charterIDs)
                try merge([shuffled(sets[0])], into: fresh[1])
                try expectSame(expected, fresh[1], "A←B and B←A")
            }
            reference = (expected, Set(try fresh[0].reviewEvents().map(\.id)))
        }

        // Everyone gets everything, in random orders and batches: each device reads all of every
        // other device's events (those it had first, at least).
        var pairs: [(Device, Device)] = []
        for a in devices { for b in devices where a !== b { pairs.append((a, b)) } }
        for (destination, source) in shuffled(pairs) {
            if chance(0.6) {
                try pull(destination, from: source, limit: chance(0.5) ? nil : int(1...12), pages: nil)
            } else {
                try pullShuffled(destination, from: source, fraction: 1)
            }
        }
        let snapshots = try devices.map { try StoreSnapshot($0.store, charterIDs: charterIDs) }
        for (device, snapshot) in zip(devices, snapshots).dropFirst() where snapshot != snapshots[0] {
            throw fail(
                "devices 0 and \(device.index) differ after exchanging every event:\n"
                    + snapshots[0].differences(from: snapshot).joined(separator: "\n"))
        }
        if let reference {
            guard reference.snapshot == snapshots[0] else {
                throw fail(
                    "a fresh store fed every event and the devices differ:\n"
                        + reference.snapshot.differences(from: snapshots[0]).joined(separator: "\n"))
            }
            guard Set(try devices[0].store.reviewEvents().map(\.id)) == reference.reviewLog else {
                throw fail("the review log differs from a fresh store's")
            }
        }
        // Merging again adds nothing and changes nothing.
        let device = pick(devices)
        let all = shuffled(Array(snapshots[0].events))
        let report = try device.store.merge(all)
        guard report == MergeReport(added: 0, known: all.count) else {
            throw fail("merging every event again into device \(device.index) reported \(report)")
        }
        let after = try StoreSnapshot(device.store, charterIDs: charterIDs)
        guard after == snapshots[0] else {
            throw fail("merging again changed device \(device.index): \(snapshots[0].differences(from: after))")
        }
    }

    /// A fresh store, fed each of `batches` in turn.
    private func freshStore(_ batches: [[ProgressEvent]]) throws -> ProgressStore {
        let store = try ProgressStore.inMemory()
        try store.setScheduling(scheduling)
        try merge(batches, into: store)
        return store
    }

    /// Merges each of `batches` in turn into `store`.
    private func merge(_ batches: [[ProgressEvent]], into store: ProgressStore) throws {
        for batch in batches { try store.merge(batch) }
    }

    private func expectSame(_ a: ProgressStore, _ b: ProgressStore, _ what: String) throws {
        try expectSame(try StoreSnapshot(a, charterIDs: charterIDs), b, what)
    }

    private func expectSame(_ expected: StoreSnapshot, _ store: ProgressStore, _ what: String) throws {
        let snapshot = try StoreSnapshot(store, charterIDs: charterIDs)
        guard expected == snapshot else {
            throw fail("\(what) differ:\n" + expected.differences(from: snapshot).joined(separator: "\n"))
        }
    }

    // MARK: Steps

    private func advance() {
        let milliseconds: Int
        switch int(0...9) {
        case 0: milliseconds = 0
        case 1: milliseconds = 1
        case 2: milliseconds = int(2...999)
        case 3, 4: milliseconds = int(1...120) * 1000
        case 5, 6: milliseconds = int(1...60) * 60_000
        case 7: milliseconds = int(1...12) * 3_600_000
        default: milliseconds = int(1...4) * 86_400_000
        }
        now = now.addingTimeInterval(Double(milliseconds) / 1000)
    }

    private func step() throws {
        advance()
        if chance(0.1) { return try twins() }
        let device = pick(devices)
        let time = now.addingTimeInterval(device.skew)
        let store = device.store
        let name = "device \(device.index) at \(M.ms(time))"
        switch int(0...99) {
        case 0..<22:
            let card = pick(M.cards)
            let grade = pick(Grade.allCases)
            // The stamp is checked on some reviews: reading the card's log costs time.
            let latest = chance(0.25) ? try store.reviewEvents(cardKey: card.key).map { M.ms($0.time) }.max() : nil
            let event = try store.review(card, grade: grade, at: time, boundary: ReviewFixtures.utc, eventID: uuid())
            note("\(name): review \(card.card.id) \(grade) → \(event.id) at \(M.ms(event.time))")
            if let latest, M.ms(event.time) != max(M.ms(time), latest + 1) {
                throw fail("\(name): a review stamped \(M.ms(event.time)), not after \(latest) or at \(M.ms(time))")
            }
        case 22..<30:
            let event: ReviewEvent?
            if chance(0.5) {
                event = try store.undoLastReview(at: time, boundary: ReviewFixtures.utc, eventID: uuid())
            } else {
                let reviews = try store.reviewEvents().filter { $0.kind == .review }
                guard !reviews.isEmpty else { return }
                event = try store.undoReview(
                    pick(reviews).id, at: time, boundary: ReviewFixtures.utc, eventID: uuid())
            }
            note("\(name): undo → \(event.map { "\($0.id) of \(String(describing: $0.undoes))" } ?? "nothing")")
        case 30..<47:
            guard let charterID = try localCharter(store) else { return }
            try open(charterID, on: device)
            let item = pick(M.itemIDs)
            let state = pick(ItemState.allCases)
            let note: String?? = chance(0.6) ? .none : .some(pick([nil, "Topped up", " Low ", "", "Spare aboard"]))
            let record = try store.setItem(
                item, to: state, note: note, charterID: charterID, checklistID: M.checklist.id, at: time,
                eventID: uuid())
            self.note("\(name): set \(item) of \(charterID) to \(state), note \(String(describing: note)) → \(record)")
        case 47..<54:
            guard let charterID = try localCharter(store) else { return }
            try open(charterID, on: device)
            let item = pick(M.itemIDs)
            let text = pick([nil, "Chafed", "Topped up", "  "])
            let record = try store.setNote(
                text, on: item, charterID: charterID, checklistID: M.checklist.id, at: time, eventID: uuid())
            note("\(name): note \(String(describing: text)) on \(item) of \(charterID) → \(record)")
        case 54..<60:
            let missing = try charterIDs.filter { try store.charter(id: $0) == nil }
            guard !missing.isEmpty else { return }
            // Rather one whose ticks, edits or deletion came here first: what merging must get right.
            let events = try store.events().events
            let heard = missing.filter { id in
                events.contains {
                    switch $0.change {
                    case .item(let change): change.charterID == id
                    case .charter(let charterID, _): charterID == id
                    case .review, .undo: false
                    }
                }
            }
            let id = pick(heard.isEmpty || chance(0.3) ? missing : heard)
            do {
                try store.createCharter(draft(), at: time, id: id)
                note("\(name): create \(id)")
            } catch ProgressStoreError.database {
                // Only a charter deleted here cannot be made again.
                let deleted = events.contains {
                    if case .charter(id, .delete) = $0.change { true } else { false }
                }
                guard deleted else { throw fail("\(name): creating \(id) failed, though it was not deleted") }
                note("\(name): create \(id) refused: it was deleted")
            }
        case 60..<65:
            guard let charterID = try localCharter(store) else { return }
            let draft = draft()
            try store.updateCharter(id: charterID, with: draft, at: time)
            note("\(name): update \(charterID) to \(draft.name)")
        case 65..<69:
            guard let charterID = try localCharter(store) else { return }
            try store.archiveCharter(id: charterID, at: time)
            note("\(name): archive \(charterID)")
        case 69..<73:
            guard let charterID = try localCharter(store) else { return }
            try store.unarchiveCharter(id: charterID, at: time)
            note("\(name): unarchive \(charterID)")
        case 73..<75:
            guard let charterID = try localCharter(store) else { return }
            try store.deleteCharter(id: charterID, at: time)
            note("\(name): delete \(charterID)")
        case 75..<98:
            let source = pick(devices.filter { $0 !== device })
            if chance(0.6) {
                try pull(device, from: source, limit: chance(0.3) ? nil : int(1...5), pages: int(1...3))
            } else {
                try pullShuffled(device, from: source, fraction: Double(int(0...4)) / 4)
            }
        default:
            device.skew = skew()
            note("device \(device.index): clock now off by \(device.skew) s")
        }
    }

    /// Two devices change the same card, item or charter at the same millisecond by their clocks:
    /// the event IDs decide which counts last.
    private func twins() throws {
        let pair = Array(shuffled(devices).prefix(2))
        let time = now
        let name = "devices \(pair[0].index) and \(pair[1].index) at \(M.ms(time))"
        let common = Set(try pair[0].store.charters(includingArchived: true).map(\.id)).intersection(
            try pair[1].store.charters(includingArchived: true).map(\.id)
        ).sorted { $0.uuidString < $1.uuidString }
        switch (int(0...3), common.isEmpty) {
        case (1, false):
            let charterID = pick(common)
            let item = pick(M.itemIDs)
            for device in pair {
                try open(charterID, on: device)
                let state = pick(ItemState.allCases)
                let note: String?? = chance(0.5) ? .none : .some(pick(["Chafed", "Topped up"]))
                try device.store.setItem(
                    item, to: state, note: note, charterID: charterID, checklistID: M.checklist.id, at: time,
                    eventID: uuid())
                self.note("\(name): set \(item) of \(charterID) to \(state), note \(String(describing: note))")
            }
        case (2, false):
            let charterID = pick(common)
            let item = pick(M.itemIDs)
            for device in pair {
                try open(charterID, on: device)
                let text = pick(["Chafed", "Topped up", nil])
                try device.store.setNote(
                    text, on: item, charterID: charterID, checklistID: M.checklist.id, at: time, eventID: uuid())
                note("\(name): note \(String(describing: text)) on \(item) of \(charterID)")
            }
        case (3, false):
            let charterID = pick(common)
            for device in pair {
                let draft = draft()
                try device.store.updateCharter(id: charterID, with: draft, at: time)
                note("\(name): update \(charterID) to \(draft.name)")
            }
        default:
            let card = pick(M.cards)
            for device in pair {
                let grade = pick(Grade.allCases)
                let event = try device.store.review(
                    card, grade: grade, at: time, boundary: ReviewFixtures.utc, eventID: uuid())
                note("\(name): review \(card.card.id) \(grade) → \(event.id) at \(M.ms(event.time))")
            }
        }
    }

    /// Opens the checklist's run of the charter on the device, once.
    private func open(_ charterID: UUID, on device: Device) throws {
        guard device.opened.insert(charterID).inserted else { return }
        _ = try device.store.openRun(charterID: charterID, checklist: M.checklist)
    }

    /// One of the charters the device holds, archived or not.
    private func localCharter(_ store: ProgressStore) throws -> UUID? {
        let charters = try store.charters(includingArchived: true)
        return charters.isEmpty ? nil : pick(charters).id
    }

    private func draft() -> CharterDraft {
        CharterDraft(
            name: pick(["Adriatic", "Ionian", " Solent ", "Aegean"]), startDate: M.charterDay.adding(days: int(0...20)),
            endDate: chance(0.5) ? nil : M.charterDay.adding(days: int(21...30)),
            location: chance(0.5) ? nil : pick(["Split", "Lefkas", ""]), notes: chance(0.7) ? nil : "Deposit paid")
    }

    // MARK: Exchanges

    /// `destination` reads `source`'s events from where it last stopped, `limit` at a time, for
    /// at most `pages` pages (all when `nil`).
    private func pull(_ destination: Device, from source: Device, limit: Int?, pages: Int?) throws {
        var page = 0
        while pages.map({ page < $0 }) ?? true {
            let cursor = destination.cursors[source.index] ?? .start
            let (events, next) = try source.store.events(since: cursor, limit: limit)
            guard !events.isEmpty else { break }
            if let limit, events.count > limit { throw fail("events(limit: \(limit)) gave \(events.count)") }
            try merge(events, into: destination)
            destination.cursors[source.index] = next
            page += 1
        }
        note("device \(destination.index) ← device \(source.index): \(page) pages of \(String(describing: limit))")
    }

    /// `destination` gets a random `fraction` of `source`'s events in random order, or newest
    /// first (reviews and ticks before the charters they belong to), in random batches with
    /// duplicates.
    private func pullShuffled(_ destination: Device, from source: Device, fraction: Double) throws {
        let all = try source.store.events().events
        let reversed = chance(0.4)
        let events = reversed ? all.reversed() : shuffled(all)
        var rest = Array(events.prefix(Int((Double(events.count) * fraction).rounded())))
        note(
            "device \(destination.index) ← device \(source.index): \(rest.count) of \(events.count), \(reversed ? "newest first" : "shuffled")"
        )
        while !rest.isEmpty {
            var batch = Array(rest.prefix(int(1...max(1, min(rest.count, 16)))))
            rest.removeFirst(batch.count)
            if chance(0.2) { batch.append(pick(batch)) }
            try merge(batch, into: destination)
        }
    }

    /// Merges `batch`, checks the report, sometimes merges it again, sometimes carries it as JSON.
    private func merge(_ batch: [ProgressEvent], into device: Device) throws {
        var batch = batch
        if chance(0.1) {
            let data = try JSONEncoder().encode(batch)
            batch = try JSONDecoder().decode([ProgressEvent].self, from: data)
        }
        // Reading what the device has costs time: the added count is checked on some batches.
        let known = chance(0.1) ? Set(try device.store.events().events.map(\.id)) : nil
        let report = try device.store.merge(batch)
        let added = known.map { Set(batch.map(\.id)).subtracting($0).count } ?? report.added
        guard report == MergeReport(added: added, known: batch.count - added) else {
            throw fail(
                "merging \(batch.count) events into device \(device.index) reported \(report), not \(added) added")
        }
        if chance(0.1) {
            let again = try device.store.merge(batch)
            guard again == MergeReport(added: 0, known: batch.count) else {
                throw fail("merging a batch again into device \(device.index) reported \(again)")
            }
        }
    }
}

@Suite struct MergeTests {
    typealias F = ReviewFixtures
    typealias M = MergeFixtures

    // MARK: - Property

    /// 2,000 schedules, on as many threads as there are cores (up to 4); every fifth also
    /// checks the algebra on fresh stores. A failing schedule is reported with its seed and what
    /// it did; `LOCKER_MERGE_SEED=<seed>` runs that one alone and prints what it did, and
    /// `LOCKER_MERGE_SCHEDULES=<count>` runs more (or fewer).
    @Test func devicesThatExchangeEveryEventEndWithTheSameStates() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seeds: [UInt64]
        if let text = environment["LOCKER_MERGE_SEED"], let seed = UInt64(text) {
            seeds = [seed]
        } else {
            let count = environment["LOCKER_MERGE_SCHEDULES"].flatMap(Int.init) ?? 2_000
            seeds = (0..<UInt64(count)).map { 0x4D45_5247_0000 + $0 }
        }
        let failures = Failures()
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4, seeds.count))
        let start = ContinuousClock.now
        // Threads of their own, so that the other tests go on meanwhile.
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for worker in 0..<workers {
                group.enter()
                let thread = Thread {
                    for index in stride(from: worker, to: seeds.count, by: workers) where failures.count < 3 {
                        Self.runSchedule(seeds[index], printing: seeds.count == 1, failures: failures)
                    }
                    group.leave()
                }
                thread.stackSize = 8 << 20
                thread.start()
            }
            group.notify(queue: .global()) { finished.resume() }
        }
        for failure in failures.all { Issue.record("\(failure)") }
        print("MergeTests: \(seeds.count) schedules on \(workers) threads in \(ContinuousClock.now - start)")
    }

    /// Runs the schedule of `seed` (checking the algebra for every fifth seed), and on failure
    /// runs it again to record what it did.
    static func runSchedule(_ seed: UInt64, printing: Bool, failures: Failures) {
        let algebra = seed % 5 == 0
        do {
            try MergeSimulation(seed: seed).run(algebra: algebra)
            if printing {
                let replay = MergeSimulation(seed: seed, tracing: true)
                try? replay.run(algebra: algebra)
                print(replay.trace.joined(separator: "\n"))
            }
        } catch {
            let replay = MergeSimulation(seed: seed, tracing: true)
            let again = (try? replay.run(algebra: algebra)) == nil ? "" : " (passed when replayed)"
            let trace = replay.trace.joined(separator: "\n")
            failures.add("schedule \(seed) failed\(again): \(error)\n\(trace)")
        }
    }

    /// Lines written from several threads: the failures of schedules.
    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var descriptions: [String] = []

        var count: Int { lock.withLock { descriptions.count } }
        var all: [String] { lock.withLock { descriptions } }
        func add(_ description: String) { lock.withLock { descriptions.append(description) } }
    }

    // MARK: - Checklist items

    /// A store with charter `M.id(100)` made at `t0` and its run open, and a second store that has it.
    static func charterPair() throws -> (ProgressStore, ProgressStore, UUID) {
        let a = try M.store()
        let b = try M.store()
        let id = M.id(100)
        try a.createCharter(M.draft("Adriatic"), at: M.t0, id: id)
        try M.sync(a, b)
        for store in [a, b] { _ = try store.openRun(charterID: id, checklist: M.checklist) }
        return (a, b, id)
    }

    @Test func aTickOnOneDeviceAndANoteOnAnotherBothSurvive() throws {
        let (a, b, charter) = try Self.charterPair()
        try a.setItem("oil", to: .checked, charterID: charter, checklistID: M.checklist.id, at: M.time(60))
        // The note is written later, and earlier: either way the tick stays.
        try b.setNote("Topped up", on: "oil", charterID: charter, checklistID: M.checklist.id, at: M.time(120))
        try b.setNote("Spare aboard", on: "belt", charterID: charter, checklistID: M.checklist.id, at: M.time(30))
        try a.setItem("belt", to: .notApplicable, charterID: charter, checklistID: M.checklist.id, at: M.time(90))
        try M.sync(a, b)
        let expected: [String: ItemRecord] = [
            "oil": ItemRecord(state: .checked, changedAt: M.time(60), note: "Topped up"),
            "belt": ItemRecord(state: .notApplicable, changedAt: M.time(90), note: "Spare aboard"),
        ]
        #expect(try a.itemRecords(charterID: charter, checklistID: M.checklist.id) == expected)
        #expect(try b.itemRecords(charterID: charter, checklistID: M.checklist.id) == expected)
    }

    @Test func ofTwoStatesSetApartTheLaterWins() throws {
        let (a, b, charter) = try Self.charterPair()
        try a.setItem(
            "oil", to: .checked, note: "Full", charterID: charter, checklistID: M.checklist.id, at: M.time(50))
        try b.setItem("oil", to: .notApplicable, charterID: charter, checklistID: M.checklist.id, at: M.time(30))
        try b.setItem(
            "coolant", to: .checked, note: "Low", charterID: charter, checklistID: M.checklist.id, at: M.time(70))
        try a.setItem("coolant", to: .unchecked, charterID: charter, checklistID: M.checklist.id, at: M.time(40))
        try M.sync(a, b)
        let expected: [String: ItemRecord] = [
            // notApplicable at 30, then checked at 50.
            "oil": ItemRecord(state: .checked, changedAt: M.time(50), note: "Full"),
            // unchecked at 40 changes nothing; checked at 70.
            "coolant": ItemRecord(state: .checked, changedAt: M.time(70), note: "Low"),
        ]
        #expect(try a.itemRecords(charterID: charter, checklistID: M.checklist.id) == expected)
        #expect(try b.itemRecords(charterID: charter, checklistID: M.checklist.id) == expected)
    }

    /// At the same millisecond, the event with the greater ID (as text) counts last.
    @Test(arguments: [(1, 2, ItemState.notApplicable), (2, 1, ItemState.checked)])
    func ofTwoStatesSetAtTheSameTimeTheGreaterEventIDWins(aID: Int, bID: Int, winner: ItemState) throws {
        let (a, b, charter) = try Self.charterPair()
        try a.setItem(
            "oil", to: .checked, note: "from a", charterID: charter, checklistID: M.checklist.id, at: M.time(10),
            eventID: M.id(aID))
        try b.setItem(
            "oil", to: .notApplicable, note: "from b", charterID: charter, checklistID: M.checklist.id,
            at: M.time(10), eventID: M.id(bID))
        try M.sync(a, b)
        let expected = ItemRecord(state: winner, changedAt: M.time(10), note: winner == .checked ? "from a" : "from b")
        #expect(try a.itemRecords(charterID: charter, checklistID: M.checklist.id)["oil"] == expected)
        #expect(try b.itemRecords(charterID: charter, checklistID: M.checklist.id)["oil"] == expected)
    }

    @Test func ticksThatArriveBeforeTheirCharterAreAppliedWhenItArrives() throws {
        let a = try M.store()
        let b = try M.store()
        let charter = M.id(100)
        try a.createCharter(M.draft("Adriatic"), at: M.t0, id: charter)
        _ = try a.openRun(charterID: charter, checklist: M.checklist)
        try a.setItem("oil", to: .checked, charterID: charter, checklistID: M.checklist.id, at: M.time(60))
        try a.setNote("Low", on: "coolant", charterID: charter, checklistID: M.checklist.id, at: M.time(120))
        try a.updateCharter(id: charter, with: M.draft("Ionian", days: 3), at: M.time(180))

        let items = try M.events(of: a) { if case .item = $0.change { true } else { false } }
        #expect(try b.merge(items) == MergeReport(added: 2, known: 0))
        #expect(try b.charter(id: charter) == nil)
        #expect(try b.itemRecords(charterID: charter, checklistID: M.checklist.id).isEmpty)
        // An update without the create makes no charter.
        let updates = try M.events(of: a) { if case .charter(_, .update) = $0.change { true } else { false } }
        try b.merge(updates)
        #expect(try b.charter(id: charter) == nil)
        try b.merge(try a.events().events)

        let expected: [String: ItemRecord] = [
            "oil": ItemRecord(state: .checked, changedAt: M.time(60)),
            "coolant": ItemRecord(state: .unchecked, changedAt: nil, note: "Low"),
        ]
        #expect(try b.itemRecords(charterID: charter, checklistID: M.checklist.id) == expected)
        let stored = try #require(try b.charter(id: charter))
        #expect(stored.name == "Ionian")
        #expect(stored.endDate == M.charterDay.adding(days: 3))
        #expect(stored.createdAt == M.t0)
        #expect(try b.openRun(charterID: charter, checklist: M.checklist).run.records == expected)
        #expect(try StoreSnapshot(a, charterIDs: [charter]) == StoreSnapshot(b, charterIDs: [charter]))
    }

    /// Two devices make a charter with the same ID (an app may derive it from a booking); one
    /// has the other's ticks before the other's create: its own create takes them up.
    @Test func aCharterMadeWhereItsTicksArrivedFirstTakesThemUp() throws {
        let a = try M.store()
        let b = try M.store()
        let charter = M.id(100)
        try a.createCharter(M.draft("Adriatic"), at: M.t0, id: charter)
        _ = try a.openRun(charterID: charter, checklist: M.checklist)
        try a.setItem(
            "oil", to: .checked, note: "Full", charterID: charter, checklistID: M.checklist.id, at: M.time(60))
        try b.merge(try M.events(of: a) { if case .item = $0.change { true } else { false } })

        try b.createCharter(M.draft("Ionian"), at: M.time(120), id: charter)
        let expected = ["oil": ItemRecord(state: .checked, changedAt: M.time(60), note: "Full")]
        #expect(try b.itemRecords(charterID: charter, checklistID: M.checklist.id) == expected)
        _ = try b.openRun(charterID: charter, checklist: M.checklist)
        try b.setNote("Topped up", on: "oil", charterID: charter, checklistID: M.checklist.id, at: M.time(180))
        try M.sync(a, b)
        for store in [a, b] {
            #expect(
                try store.itemRecords(charterID: charter, checklistID: M.checklist.id)
                    == ["oil": ItemRecord(state: .checked, changedAt: M.time(60), note: "Topped up")])
            // The first create's moment, the latest fields.
            #expect(try store.charter(id: charter)?.createdAt == M.t0)
            #expect(try store.charter(id: charter)?.name == "Ionian")
        }
        let fresh = try M.store()
        try fresh.merge(try a.events().events)
        #expect(try StoreSnapshot(fresh, charterIDs: [charter]) == StoreSnapshot(b, charterIDs: [charter]))
    }

    // MARK: - Charters

    @Test func aDeleteOnOneDeviceWinsOverALaterEditOnAnother() throws {
        let (a, b, charter) = try Self.charterPair()
        try a.deleteCharter(id: charter, at: M.time(60))
        try b.updateCharter(id: charter, with: M.draft("Ionian"), at: M.time(120))
        try b.setItem("oil", to: .checked, charterID: charter, checklistID: M.checklist.id, at: M.time(130))
        try b.archiveCharter(id: charter, at: M.time(140))
        try M.sync(a, b)
        for store in [a, b] {
            #expect(try store.charter(id: charter) == nil)
            #expect(try store.charters(includingArchived: true).isEmpty)
            #expect(try store.itemRecords(charterID: charter, checklistID: M.checklist.id).isEmpty)
        }
        // And it cannot be ticked, edited or made again.
        #expect(throws: ProgressStoreError.self) {
            try b.setItem("oil", to: .checked, charterID: charter, checklistID: M.checklist.id, at: M.time(200))
        }
        #expect(throws: ProgressStoreError.noCharter(id: charter.uuidString)) {
            try b.updateCharter(id: charter, with: M.draft("Solent"), at: M.time(200))
        }
        #expect(throws: ProgressStoreError.self) {
            try b.createCharter(M.draft("Solent"), at: M.time(200), id: charter)
        }
    }

    @Test func theLaterEditOfACharterWins() throws {
        let (a, b, charter) = try Self.charterPair()
        try a.updateCharter(id: charter, with: M.draft("Ionian", notes: "from a"), at: M.time(120))
        try b.updateCharter(id: charter, with: M.draft("Solent", days: 2), at: M.time(60))
        try M.sync(a, b)
        for store in [a, b] {
            let stored = try #require(try store.charter(id: charter))
            #expect(stored.draft == M.draft("Ionian", notes: "from a"))
            #expect(stored.createdAt == M.t0)
        }
    }

    @Test func archivingAndBringingBackFollowTheLatest() throws {
        let (a, b, charter) = try Self.charterPair()
        // Archived on both apart: the first archive counts.
        try a.archiveCharter(id: charter, at: M.time(60))
        try b.archiveCharter(id: charter, at: M.time(90))
        try M.sync(a, b)
        for store in [a, b] {
            #expect(try store.charter(id: charter)?.archivedAt == M.time(60))
            #expect(try store.charters().isEmpty)
        }
        // Brought back on one, while the other (not knowing) archives again later.
        try a.unarchiveCharter(id: charter, at: M.time(120))
        try b.unarchiveCharter(id: charter, at: M.time(100))
        try b.archiveCharter(id: charter, at: M.time(150))
        try M.sync(a, b)
        for store in [a, b] { #expect(try store.charter(id: charter)?.archivedAt == M.time(150)) }
        // Brought back after the latest archive.
        try a.unarchiveCharter(id: charter, at: M.time(200))
        try M.sync(a, b)
        for store in [a, b] {
            #expect(try store.charter(id: charter)?.archivedAt == nil)
            #expect(try store.charters().map(\.id) == [charter])
        }
    }

    // MARK: - Reviews

    @Test func anUndoOfAReviewThatAnotherDeviceFollowedKeepsTheLaterReview() throws {
        let a = try M.store()
        let b = try M.store()
        let card = M.cards[0]
        let first = try a.review(card, grade: .good, at: M.time(0), boundary: F.utc)
        try M.sync(a, b)
        let second = try b.review(card, grade: .again, at: M.time(86_400), boundary: F.utc)
        let undo = try #require(try a.undoReview(first.id, at: M.time(3_600), boundary: F.utc))
        #expect(try a.cardStates()[card.key] == nil)
        try M.sync(a, b)

        let expected = Scheduling.classicSM2.review(.new, grade: .again, at: second.time, on: F.day0.adding(days: 1))
        #expect(expected.reviews == 1 && expected.lastReviewed == F.day0.adding(days: 1))
        for store in [a, b] {
            #expect(try store.cardStates() == [card.key: expected])
            #expect(Set(try store.reviewEvents().map(\.id)) == [first.id, second.id, undo.id])
        }
    }

    @Test func theSameReviewUndoneOnTwoDevicesIsUndoneOnce() throws {
        let a = try M.store()
        let b = try M.store()
        let card = M.cards[0]
        let kept = try a.review(card, grade: .good, at: M.time(0), boundary: F.utc)
        let undone = try a.review(card, grade: .easy, at: M.time(86_400), boundary: F.utc)
        try M.sync(a, b)
        let undoA = try #require(try a.undoReview(undone.id, at: M.time(90_000), boundary: F.utc))
        // The review came to b by merge: b takes it back by its ID ("undo last" is for b's own).
        #expect(try b.undoLastReview(at: M.time(90_001), boundary: F.utc) == nil)
        let undoB = try #require(try b.undoReview(undone.id, at: M.time(90_001), boundary: F.utc))
        #expect(undoB.undoes == undone.id)
        try M.sync(a, b)

        let expected = Scheduling.classicSM2.review(.new, grade: .good, at: kept.time, on: F.day0)
        for store in [a, b] {
            #expect(try store.cardStates() == [card.key: expected])
            #expect(Set(try store.reviewEvents().map(\.id)) == [kept.id, undone.id, undoA.id, undoB.id])
        }
        // The next undo takes back the review kept.
        #expect(try a.undoLastReview(at: M.time(100_000), boundary: F.utc)?.undoes == kept.id)
        #expect(try a.cardStates().isEmpty)
    }

    /// A device whose clock runs a day ahead reviews; the other, after seeing it, reviews at its
    /// own earlier time: its review is stamped a millisecond after, so it counts last everywhere.
    @Test func aChangeMadeAfterSeeingOneFromAClockAheadIsStampedAfterIt() throws {
        let a = try M.store()
        let b = try M.store()
        let card = M.cards[1]
        let ahead = 86_400.0
        let first = try a.review(card, grade: .good, at: M.time(ahead), boundary: F.utc)
        try M.sync(a, b)
        let second = try b.review(card, grade: .again, at: M.time(60), boundary: F.utc)
        #expect(M.ms(second.time) == M.ms(first.time) + 1)
        // The day is the device's own, but never before the card's last review.
        #expect(second.day == F.day0.adding(days: 1))
        try M.sync(a, b)
        let s = Scheduling.classicSM2
        let expected = s.review(
            s.review(.new, grade: .good, at: first.time, on: F.day0.adding(days: 1)), grade: .again, at: second.time,
            on: F.day0.adding(days: 1))
        #expect(try a.cardStates() == [card.key: expected])
        #expect(try b.cardStates() == [card.key: expected])

        // Items and charters alike.
        let charter = M.id(100)
        try a.createCharter(M.draft("Adriatic"), at: M.t0, id: charter)
        _ = try a.openRun(charterID: charter, checklist: M.checklist)
        try a.setItem("oil", to: .checked, charterID: charter, checklistID: M.checklist.id, at: M.time(ahead))
        try a.updateCharter(id: charter, with: M.draft("Ionian"), at: M.time(ahead))
        try M.sync(a, b)
        _ = try b.openRun(charterID: charter, checklist: M.checklist)
        let record = try b.setItem(
            "oil", to: .unchecked, charterID: charter, checklistID: M.checklist.id, at: M.time(60))
        #expect(record.changedAt.map(M.ms) == M.ms(M.time(ahead)) + 1)
        try b.updateCharter(id: charter, with: M.draft("Solent"), at: M.time(60))
        try M.sync(a, b)
        for store in [a, b] {
            #expect(
                try store.itemRecords(charterID: charter, checklistID: M.checklist.id)["oil"]
                    == ItemRecord(
                        state: .unchecked,
                        changedAt: Date(timeIntervalSince1970: Double(M.ms(M.time(ahead)) + 1) / 1000)))
            #expect(try store.charter(id: charter)?.name == "Solent")
        }
    }

    /// An event whose time was set finer than a millisecond after it was made counts at the
    /// millisecond it is stored with, as it does on a device that read it from JSON.
    @Test func aTimeFinerThanAMillisecondCountsAsStored() throws {
        let card = M.cards[0]
        var again = ProgressEvent(
            id: M.id(1), time: M.time(10),
            change: .review(cardKey: card.key, deckID: "knots", cardID: "c0", grade: .again, day: F.day0))
        again.time = M.time(10.0004)
        let good = ProgressEvent(
            id: M.id(2), time: M.time(10),
            change: .review(cardKey: card.key, deckID: "knots", cardID: "c0", grade: .good, day: F.day0))
        let direct = try M.store()
        try direct.merge([good, again])
        let carried = try M.store()
        try carried.merge(
            try JSONDecoder().decode([ProgressEvent].self, from: try JSONEncoder().encode([good, again])))

        // At the same millisecond, the smaller ID counts first: again, then good.
        let s = Scheduling.classicSM2
        let expected = s.review(
            s.review(.new, grade: .again, at: M.time(10), on: F.day0), grade: .good, at: M.time(10), on: F.day0)
        #expect(try direct.cardStates() == [card.key: expected])
        #expect(try carried.cardStates() == [card.key: expected])
        try direct.setScheduling(Scheduling())
        try direct.setScheduling(.classicSM2)
        #expect(try direct.cardStates() == [card.key: expected])
    }

    // MARK: - Reading events

    @Test func eventsSinceACursorAreTheLaterOnesIncludingMergedOnes() throws {
        let a = try M.store()
        let b = try M.store()
        let charter = M.id(100)
        try a.createCharter(M.draft("Adriatic"), at: M.t0, id: charter)
        _ = try a.openRun(charterID: charter, checklist: M.checklist)
        try a.setItem("oil", to: .checked, charterID: charter, checklistID: M.checklist.id, at: M.time(10))
        try a.review(M.cards[0], grade: .good, at: M.time(20), boundary: F.utc)
        try a.review(M.cards[1], grade: .hard, at: M.time(30), boundary: F.utc)
        let (first, cursor) = try a.events()
        #expect(first.count == 4)

        // New here, and merged from another device.
        let review = try a.review(M.cards[0], grade: .again, at: M.time(40), boundary: F.utc)
        let other = M.id(200)
        try b.createCharter(M.draft("Ionian"), at: M.time(5), id: other)
        _ = try b.openRun(charterID: other, checklist: M.checklist)
        try b.setNote("Low", on: "coolant", charterID: other, checklistID: M.checklist.id, at: M.time(15))
        try b.review(M.cards[2], grade: .easy, at: M.time(25), boundary: F.utc)
        let fromB = try b.events().events
        #expect(try a.merge(fromB) == MergeReport(added: 3, known: 0))

        let (later, end) = try a.events(since: cursor)
        #expect(Set(later.map(\.id)) == Set(fromB.map(\.id) + [review.id]))
        #expect(Set(later.map(\.id)).isDisjoint(with: first.map(\.id)))
        #expect(try a.events(since: end).events.isEmpty)
        #expect(try a.events(since: end).cursor == end)

        // Charters first, then items, then reviews.
        let all = try a.events().events
        func rank(_ event: ProgressEvent) -> Int {
            switch event.change {
            case .charter: 0
            case .item: 1
            case .review, .undo: 2
            }
        }
        #expect(all.map(rank) == all.map(rank).sorted())
        #expect(all.count == 8)

        // Pages of any size give every event once, in the same order.
        for limit in 1...9 {
            var paged: [ProgressEvent] = []
            var cursor = ProgressCursor.start
            var calls = 0
            while true {
                let page = try a.events(since: cursor, limit: limit)
                #expect(page.events.count <= limit)
                cursor = page.cursor
                calls += 1
                if page.events.isEmpty { break }
                paged += page.events
                try #require(calls <= all.count + 1)
            }
            #expect(paged == all, "limit \(limit)")
            #expect(calls == (all.count + limit - 1) / limit + 1, "limit \(limit)")
        }
    }

    // MARK: - Events that cannot be right

    @Test func hostileEventsAreRefusedAndChangeNothing() throws {
        let store = try M.store()
        let charter = M.id(100)
        try store.createCharter(M.draft("Adriatic"), at: M.t0, id: charter)
        let review = try store.review(M.cards[0], grade: .good, at: M.time(10), boundary: F.utc)
        try #require(try store.undoReview(review.id, at: M.time(20), boundary: F.utc) != nil)
        try store.review(M.cards[0], grade: .easy, at: M.time(30), boundary: F.utc)
        let before = try StoreSnapshot(store, charterIDs: [charter])

        let valid = ProgressEvent(
            id: M.id(1), time: M.time(40),
            change: .review(cardKey: M.cards[1].key, deckID: "knots", cardID: "c1", grade: .good, day: F.day0))
        func reviewChange(_ cardKey: String, deckID: String = "knots", cardID: String = "c1") -> ProgressEvent.Change {
            .review(cardKey: cardKey, deckID: deckID, cardID: cardID, grade: .good, day: F.day0)
        }
        func item(_ itemID: String, note: String? = nil) -> ProgressEvent.Change {
            .item(
                ProgressEvent.ItemChange(
                    charterID: charter, checklistID: M.checklist.id, itemID: itemID, state: .checked,
                    setsNote: note != nil, note: note))
        }
        let hostile: [(String, ProgressEvent.Change)] = [
            ("an empty card key", reviewChange("")),
            ("an empty deck ID", reviewChange(M.cards[1].key, deckID: "")),
            ("an empty card ID", reviewChange(M.cards[1].key, cardID: "")),
            ("an empty item ID", item("")),
            ("a note too long", item("oil", note: String(repeating: "n", count: CharterDraft.maximumNotesLength + 1))),
            (
                "a charter without a name",
                .charter(id: M.id(300), action: .create(CharterDraft(name: " ", startDate: M.charterDay)))
            ),
            (
                "an edit ending before it starts",
                .charter(
                    id: charter,
                    action: .update(
                        CharterDraft(name: "A", startDate: M.charterDay, endDate: M.charterDay.adding(days: -1))))
            ),
            (
                "an item change that sets nothing",
                .item(
                    ProgressEvent.ItemChange(
                        charterID: charter, checklistID: M.checklist.id, itemID: "oil", state: nil, setsNote: false,
                        note: nil))
            ),
        ]
        for (index, (what, change)) in hostile.enumerated() {
            let event = ProgressEvent(id: M.id(50 + index), time: M.time(50), change: change)
            #expect(M.refusal(of: [valid, event], by: store) == event.id.uuidString, "\(what)")
            #expect(M.refusal(of: [event, valid], by: store) == event.id.uuidString, "\(what)")
            #expect(try StoreSnapshot(store, charterIDs: [charter]) == before, "\(what)")
        }
        #expect(try store.merge([valid]) == MergeReport(added: 1, known: 0))
    }

    /// An undo that names a review of another card (no device writes one, but a peer may send
    /// it) is kept and takes nothing back, in any order of arrival: every device accepts the
    /// same events and holds the same states.
    @Test(arguments: [0, 1, 2])
    func anUndoOfAnotherCardsReviewIsKeptAndTakesNothingBack(order: Int) throws {
        let review = ProgressEvent(
            id: M.id(1), time: M.time(10),
            change: .review(cardKey: M.cards[0].key, deckID: "knots", cardID: "c0", grade: .good, day: F.day0))
        let undo = ProgressEvent(
            id: M.id(2), time: M.time(20),
            change: .undo(
                review: review.id, cardKey: M.cards[1].key, deckID: "knots", cardID: "c1", grade: .good, day: F.day0))
        let store = try M.store()
        switch order {
        case 0: #expect(try store.merge([review, undo]) == MergeReport(added: 2, known: 0))
        case 1: #expect(try store.merge([undo, review]) == MergeReport(added: 2, known: 0))
        default:
            try store.merge([undo])
            try store.merge([review])
        }
        let expected = Scheduling.classicSM2.review(.new, grade: .good, at: review.time, on: F.day0)
        #expect(try store.cardStates() == [M.cards[0].key: expected])
        // Also when the log is replayed, and "undo" by ID still works for the review.
        try store.setScheduling(Scheduling())
        try store.setScheduling(.classicSM2)
        #expect(try store.cardStates() == [M.cards[0].key: expected])
        #expect(try store.undoReview(review.id, at: M.time(30), boundary: F.utc)?.undoes == review.id)
    }

    // MARK: - JSON

    @Test func eventsHaveAFlatStableJSON() throws {
        let charter = M.id(100)
        let time = Date(timeIntervalSince1970: 1_780_000_000.123)
        let key = M.cards[0].key
        let cases: [(ProgressEvent.Change, String)] = [
            (
                .review(cardKey: key, deckID: "knots", cardID: "c0", grade: .good, day: F.day0),
                #"{"cardID":"c0","cardKey":"\#(key)","day":"2026-06-01","deckID":"knots","grade":"good","id":"00000000-0000-4000-8000-000000000001","timeMs":1780000000123,"type":"review"}"#
            ),
            (
                .undo(review: M.id(7), cardKey: key, deckID: "knots", cardID: "c0", grade: .again, day: F.day0),
                #"{"cardID":"c0","cardKey":"\#(key)","day":"2026-06-01","deckID":"knots","grade":"again","id":"00000000-0000-4000-8000-000000000001","timeMs":1780000000123,"type":"undo","undoes":"00000000-0000-4000-8000-000000000007"}"#
            ),
            (
                .item(
                    ProgressEvent.ItemChange(
                        charterID: charter, checklistID: "engine-check", itemID: "oil", state: .checked, setsNote: true,
                        note: "Topped up")),
                #"{"charterID":"00000000-0000-4000-8000-000000000100","checklistID":"engine-check","id":"00000000-0000-4000-8000-000000000001","itemID":"oil","note":"Topped up","setsNote":true,"state":"checked","timeMs":1780000000123,"type":"item"}"#
            ),
            (
                .item(
                    ProgressEvent.ItemChange(
                        charterID: charter, checklistID: "engine-check", itemID: "oil", state: .notApplicable,
                        setsNote: false, note: "dropped")),
                #"{"charterID":"00000000-0000-4000-8000-000000000100","checklistID":"engine-check","id":"00000000-0000-4000-8000-000000000001","itemID":"oil","setsNote":false,"state":"notApplicable","timeMs":1780000000123,"type":"item"}"#
            ),
            (
                .item(
                    ProgressEvent.ItemChange(
                        charterID: charter, checklistID: "engine-check", itemID: "oil", state: nil, setsNote: true,
                        note: nil)),
                #"{"charterID":"00000000-0000-4000-8000-000000000100","checklistID":"engine-check","id":"00000000-0000-4000-8000-000000000001","itemID":"oil","setsNote":true,"timeMs":1780000000123,"type":"item"}"#
            ),
            (
                .charter(id: charter, action: .create(M.draft("Adriatic"))),
                #"{"action":"create","charter":{"endDate":"2026-07-11","name":"Adriatic","startDate":"2026-07-04"},"charterID":"00000000-0000-4000-8000-000000000100","id":"00000000-0000-4000-8000-000000000001","timeMs":1780000000123,"type":"charter"}"#
            ),
            (
                .charter(
                    id: charter,
                    action: .update(CharterDraft(name: "Ionian", startDate: M.charterDay, location: "Lefkas"))),
                #"{"action":"update","charter":{"location":"Lefkas","name":"Ionian","startDate":"2026-07-04"},"charterID":"00000000-0000-4000-8000-000000000100","id":"00000000-0000-4000-8000-000000000001","timeMs":1780000000123,"type":"charter"}"#
            ),
            (
                .charter(id: charter, action: .archive),
                #"{"action":"archive","charterID":"00000000-0000-4000-8000-000000000100","id":"00000000-0000-4000-8000-000000000001","timeMs":1780000000123,"type":"charter"}"#
            ),
            (
                .charter(id: charter, action: .unarchive),
                #"{"action":"unarchive","charterID":"00000000-0000-4000-8000-000000000100","id":"00000000-0000-4000-8000-000000000001","timeMs":1780000000123,"type":"charter"}"#
            ),
            (
                .charter(id: charter, action: .delete),
                #"{"action":"delete","charterID":"00000000-0000-4000-8000-000000000100","id":"00000000-0000-4000-8000-000000000001","timeMs":1780000000123,"type":"charter"}"#
            ),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for (change, json) in cases {
            let event = ProgressEvent(id: M.id(1), time: time, change: change)
            #expect(String(decoding: try encoder.encode(event), as: UTF8.self) == json)
            #expect(try JSONDecoder().decode(ProgressEvent.self, from: Data(json.utf8)) == event)
            #expect(try JSONDecoder().decode(ProgressEvent.self, from: try JSONEncoder().encode(event)) == event)
        }
        // Keys a later version adds are passed over; an unknown type is refused.
        let later =
            #"{"id":"00000000-0000-4000-8000-000000000001","timeMs":5,"type":"charter","charterID":"00000000-0000-4000-8000-000000000100","action":"archive","device":"iPad"}"#
        #expect(
            try JSONDecoder().decode(ProgressEvent.self, from: Data(later.utf8))
                == ProgressEvent(
                    id: M.id(1), time: Date(timeIntervalSince1970: 0.005),
                    change: .charter(id: charter, action: .archive)))
        let unknown = #"{"id":"00000000-0000-4000-8000-000000000001","timeMs":5,"type":"photo"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ProgressEvent.self, from: Data(unknown.utf8)) }
        let missingFields =
            #"{"id":"00000000-0000-4000-8000-000000000001","timeMs":5,"type":"charter","charterID":"00000000-0000-4000-8000-000000000100","action":"create"}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ProgressEvent.self, from: Data(missingFields.utf8))
        }
    }

    // MARK: - Schedulers

    /// A device switches to FSRS while the other stays on SM-2, reviewing and merging throughout:
    /// both end with every event, and each with the states its scheduler gives them.
    @Test func devicesOnDifferentSchedulersShareTheirEvents() throws {
        let fsrs = Scheduling(algorithm: .fsrs)
        let sm2 = Scheduling(algorithm: .sm2)
        let a = try M.store(sm2)
        let b = try M.store(sm2)
        var rng = SplitMix64(seed: 42)
        var time = M.t0
        for round in 0..<60 {
            if round == 20 { #expect(try a.setScheduling(fsrs) > 0) }
            time = time.addingTimeInterval(Double(Int.random(in: 1...40_000, using: &rng)) * 10)
            let store = Bool.random(using: &rng) ? a : b
            let card = M.cards.randomElement(using: &rng)!
            try store.review(card, grade: Grade.allCases.randomElement(using: &rng)!, at: time, boundary: F.utc)
            if Int.random(in: 0..<10, using: &rng) == 0 { try store.undoLastReview(at: time, boundary: F.utc) }
            if Int.random(in: 0..<5, using: &rng) == 0 { try M.sync(a, b) }
        }
        try M.sync(a, b)
        let events = try a.events().events
        #expect(Set(events) == Set(try b.events().events))
        #expect(try a.scheduling() == fsrs)
        #expect(try b.scheduling() == sm2)

        let freshFSRS = try M.store(fsrs)
        try freshFSRS.merge(events.reversed())
        let freshSM2 = try M.store(sm2)
        try freshSM2.merge(events)
        let statesA = try a.cardStates()
        #expect(statesA.count == M.cards.count)
        #expect(statesA == (try freshFSRS.cardStates()))
        #expect(try b.cardStates() == (try freshSM2.cardStates()))
        #expect(statesA != (try b.cardStates()))
        #expect(statesA.values.allSatisfy { $0.stability != nil })
        // Back to SM-2, A has B's states.
        try a.setScheduling(sm2)
        #expect(try a.cardStates() == (try b.cardStates()))
    }
}
