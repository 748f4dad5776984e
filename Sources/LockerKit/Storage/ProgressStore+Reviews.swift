import Foundation
import GRDB

extension ProgressStore {
    /// The states of every card reviewed at least once, by card key (UUID).
    ///
    /// Cards removed from the content keep their state here; cards never reviewed have none.
    public func cardStates() throws(ProgressStoreError) -> [String: CardState] {
        try read { db in
            var states: [String: CardState] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM card") {
                states[try row.decode(String.self, forColumn: "key")] = try Self.cardState(row)
            }
            return states
        }
    }

    /// The state of one card: ``CardState/new`` if it was never reviewed.
    public func cardState(key: String) throws(ProgressStoreError) -> CardState {
        try read { db in try Self.storedState(of: key, db) }
    }

    /// Records a review and returns its event.
    ///
    /// The new state is computed from the stored one inside the transaction. If an event with
    /// `eventID` is already in the log, nothing changes and the stored event is returned.
    ///
    /// - Parameters:
    ///   - time: when the card was answered; `boundary` decides which day that counts for. The
    ///     event is stamped at least a millisecond after the card's latest review, even one
    ///     merged from a device whose clock runs ahead, so a card's reviews keep the order they
    ///     were given in on every device.
    @discardableResult
    public func review(
        _ card: ReviewCard, grade: Grade, at time: Date, boundary: DayBoundary = DayBoundary(),
        eventID: UUID = UUID()
    ) throws(ProgressStoreError) -> ReviewEvent {
        try write { db in
            if let existing = try Self.reviewEvent(id: eventID, db) {
                guard existing.kind == .review else {
                    throw ProgressStoreError.database(reason: "event \(eventID) is an undo, not a review")
                }
                return existing
            }
            let (stamp, day, previous) = try Self.answering(card.key, at: time, boundary: boundary, db)
            let next = try Self.scheduling(db).review(previous, grade: grade, at: stamp, on: day)
            let event = ReviewEvent(
                id: eventID, kind: .review, cardKey: card.key, deckID: card.deckID, cardID: card.card.id, grade: grade,
                time: stamp, day: day, previous: previous, next: next, undoes: nil)
            try Self.append(event, db)
            try Self.save(next, for: card.key, deckID: card.deckID, cardID: card.card.id, db)
            return event
        }
    }

    /// Undoes the review `reviewID`: the card goes back to its state before it, and an `undo`
    /// event is appended. Returns the undo event, or `nil` when there is nothing to undo: the
    /// review is unknown, already undone, or the card was reviewed again since.
    ///
    /// Replaying with the same `eventID` changes nothing and returns the stored undo.
    @discardableResult
    public func undoReview(
        _ reviewID: UUID, at time: Date, boundary: DayBoundary = DayBoundary(), eventID: UUID = UUID()
    )
        throws(ProgressStoreError) -> ReviewEvent?
    {
        let day = boundary.day(of: time)
        return try write { db in
            if let existing = try Self.reviewEvent(id: eventID, db) { return existing.kind == .undo ? existing : nil }
            return try Self.undo(reviewID, time: time, day: day, eventID: eventID, db)
        }
    }

    /// Undoes the most recent review made on this device that still stands (see
    /// ``undoReview(_:at:boundary:eventID:)``), finding and undoing it in one transaction. Reviews
    /// merged from other devices are not this device's to take back.
    @discardableResult
    public func undoLastReview(at time: Date, boundary: DayBoundary = DayBoundary(), eventID: UUID = UUID())
        throws(ProgressStoreError) -> ReviewEvent?
    {
        let day = boundary.day(of: time)
        return try write { db in
            if let existing = try Self.reviewEvent(id: eventID, db) { return existing.kind == .undo ? existing : nil }
            let last = try String.fetchOne(
                db,
                sql: """
                    SELECT id FROM review_event r
                    WHERE kind = 'review' AND merged = 0
                        AND NOT EXISTS (SELECT 1 FROM review_event u WHERE u.undoes = r.id AND u.card_key = r.card_key)
                    ORDER BY seq DESC LIMIT 1
                    """)
            guard let last, let id = UUID(uuidString: last) else { return nil }
            return try Self.undo(id, time: time, day: day, eventID: eventID, db)
        }
    }

    /// Undoes a review inside a write transaction.
    private static func undo(_ reviewID: UUID, time: Date, day: LocalDay, eventID: UUID, _ db: Database) throws
        -> ReviewEvent?
    {
        guard let review = try reviewEvent(id: reviewID, db), review.kind == .review else { return nil }
        // Only the card's latest standing review can be undone.
        let answers = try answers(of: review.cardKey, db)
        guard answers.last?.id == reviewID else { return nil }
        let current = try storedState(of: review.cardKey, db)
        let next = replay(answers.dropLast(), try scheduling(db))
        let stamp = try stamp(
            time, after: latestReviewEvent, [review.cardKey], db)
        let undo = ReviewEvent(
            id: eventID, kind: .undo, cardKey: review.cardKey, deckID: review.deckID, cardID: review.cardID,
            grade: review.grade, time: stamp, day: day, previous: current, next: next, undoes: review.id)
        try append(undo, db)
        if next.isNew {
            try db.execute(sql: "DELETE FROM card WHERE key = ?", arguments: [review.cardKey])
        } else {
            try save(next, for: review.cardKey, deckID: review.deckID, cardID: review.cardID, db)
        }
        return undo
    }

    /// The review log, oldest first; only the events of one card when `cardKey` is given.
    public func reviewEvents(cardKey: String? = nil) throws(ProgressStoreError) -> [ReviewEvent] {
        try read { db in
            let rows =
                if let cardKey {
                    try Row.fetchAll(
                        db, sql: "SELECT * FROM review_event WHERE card_key = ? ORDER BY seq", arguments: [cardKey])
                } else {
                    try Row.fetchAll(db, sql: "SELECT * FROM review_event ORDER BY seq")
                }
            return try rows.map(Self.reviewEvent)
        }
    }

    /// The queue of `decks` for `day`: cards back from their steps, due cards oldest first, then
    /// new cards up to `newLimit`. With `now`, cards in their steps wait for their moment (see
    /// ``ReviewQueue/init(cards:states:day:newLimit:now:)``).
    public func queue(
        for decks: [Deck], on day: LocalDay, newLimit: Int = ReviewQueue.defaultNewLimit, now: Date? = nil
    ) throws(ProgressStoreError) -> ReviewQueue {
        ReviewQueue(cards: ReviewCard.all(in: decks), states: try cardStates(), day: day, newLimit: newLimit, now: now)
    }

    /// Stats of each of `decks` on `day`, and their total.
    public func stats(for decks: [Deck], on day: LocalDay) throws(ProgressStoreError) -> (
        decks: [ReviewStats], total: ReviewStats
    ) {
        ReviewStats.of(decks: decks, states: try cardStates(), day: day)
    }

    /// What each grade would do to `card` if it were answered at `time`, from its stored state and
    /// the store's scheduling, read together: the labels of the answer buttons.
    public func previews(for card: ReviewCard, at time: Date, boundary: DayBoundary = DayBoundary())
        throws(ProgressStoreError) -> [IntervalPreview]
    {
        try read { db in
            let (stamp, day, previous) = try Self.answering(card.key, at: time, boundary: boundary, db)
            return try Self.scheduling(db).previews(of: previous, at: stamp, on: day)
        }
    }

    // MARK: - Scheduling

    /// How the store schedules reviews: ``Scheduling/classicSM2`` for a store with reviews from
    /// before steps and FSRS, ``Scheduling/init(algorithm:learningSteps:relearningSteps:fsrs:)``'s
    /// defaults (SM-2 with steps) for a new one, else what ``setScheduling(_:)`` chose.
    public func scheduling() throws(ProgressStoreError) -> Scheduling {
        try read { db in try Self.scheduling(db) }
    }

    /// Schedules with `scheduling` from now on, and replays the whole review log under it so every
    /// card's state is what it would be had it always been scheduled so: switching from SM-2 to
    /// FSRS and back loses nothing, as the log is append-only.
    ///
    /// - Returns: how many cards were rescheduled; 0 when `scheduling` is the one in use.
    /// - Throws: ``ProgressStoreError/invalidScheduling(problems:)`` for settings out of range.
    @discardableResult
    public func setScheduling(_ scheduling: Scheduling) throws(ProgressStoreError) -> Int {
        let problems = scheduling.problems
        guard problems.isEmpty else { throw .invalidScheduling(problems: problems) }
        return try write { db in
            guard try Self.scheduling(db) != scheduling else { return 0 }
            try db.execute(
                sql:
                    "INSERT INTO setting (key, value) VALUES ('scheduling', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: [try Self.json(scheduling)])
            return try Self.refoldAll(scheduling: scheduling, db)
        }
    }

    static func scheduling(_ db: Database) throws -> Scheduling {
        guard let text = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'scheduling'") else {
            return Scheduling()
        }
        guard let scheduling = try? JSONDecoder().decode(Scheduling.self, from: Data(text.utf8)),
            scheduling.problems.isEmpty
        else { throw ProgressStoreError.corrupt(reason: "the scheduling setting is not valid") }
        return scheduling
    }

    // MARK: - Replaying the log

    /// One standing review, as the replay reads it.
    struct Answer {
        var id: UUID
        var deckID: String
        var cardID: String
        var grade: Grade
        var time: Date
        var day: LocalDay
    }

    /// The card's reviews that stand (not undone), in the order they count: by time, then ID.
    static func answers(of cardKey: String, _ db: Database) throws -> [Answer] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT id, deck_id, card_id, grade, time_ms, day FROM review_event r
                WHERE card_key = ? AND kind = 'review'
                    AND NOT EXISTS (SELECT 1 FROM review_event u WHERE u.undoes = r.id AND u.card_key = r.card_key)
                ORDER BY time_ms, id
                """, arguments: [cardKey]
        ).map(answer)
    }

    static func answer(_ row: Row) throws -> Answer {
        let idText = try row.decode(String.self, forColumn: "id")
        let dayText = try row.decode(String.self, forColumn: "day")
        guard let id = UUID(uuidString: idText),
            let grade = Grade(rawValue: try row.decode(Int.self, forColumn: "grade")),
            let day = LocalDay(dayText)
        else { throw ProgressStoreError.corrupt(reason: "review event \(idText) is not valid") }
        return Answer(
            id: id, deckID: try row.decode(String.self, forColumn: "deck_id"),
            cardID: try row.decode(String.self, forColumn: "card_id"), grade: grade,
            time: Milliseconds.date(try row.decode(Int64.self, forColumn: "time_ms")), day: day)
    }

    /// The state `answers` give under `scheduling`.
    static func replay(_ answers: some Sequence<Answer>, _ scheduling: Scheduling) -> CardState {
        answers.reduce(CardState.new) { scheduling.review($0, grade: $1.grade, at: $1.time, on: $1.day) }
    }

    /// Sets the card's stored state to what its log gives.
    static func refold(cardKey: String, scheduling: Scheduling, _ db: Database) throws {
        let answers = try answers(of: cardKey, db)
        guard let last = answers.last else {
            try db.execute(sql: "DELETE FROM card WHERE key = ?", arguments: [cardKey])
            return
        }
        try save(replay(answers, scheduling), for: cardKey, deckID: last.deckID, cardID: last.cardID, db)
    }

    /// Replays every card's log; returns how many cards it set.
    static func refoldAll(scheduling: Scheduling, _ db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM card")
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT card_key, id, deck_id, card_id, grade, time_ms, day FROM review_event r
                WHERE kind = 'review'
                    AND NOT EXISTS (SELECT 1 FROM review_event u WHERE u.undoes = r.id AND u.card_key = r.card_key)
                ORDER BY card_key, time_ms, id
                """)
        var count = 0
        var key: String?
        var answers: [Answer] = []
        func flush() throws {
            guard let key, let last = answers.last else { return }
            try save(replay(answers, scheduling), for: key, deckID: last.deckID, cardID: last.cardID, db)
            count += 1
        }
        while let row = try rows.next() {
            let cardKey = try row.decode(String.self, forColumn: "card_key")
            if cardKey != key {
                try flush()
                key = cardKey
                answers = []
            }
            answers.append(try answer(row))
        }
        try flush()
        return count
    }

    /// `time` as stored, or a millisecond after the latest time `sql` finds, when that is later:
    /// an event is stamped after every event of the same thing this device has seen. Kept within
    /// the times `merge` accepts (1970–2999), so no event this device writes is refused elsewhere.
    static func stamp(_ time: Date, after sql: String, _ arguments: StatementArguments, _ db: Database) throws -> Date {
        var stored = Milliseconds.of(time)
        if let latest = try Int64.fetchOne(db, sql: sql, arguments: arguments), latest >= stored {
            stored = latest < Int64.max ? latest + 1 : latest
        }
        return Milliseconds.date(min(max(stored, eventTimes.lowerBound), eventTimes.upperBound))
    }

    static let latestReviewEvent = "SELECT MAX(time_ms) FROM review_event WHERE card_key = ?"

    /// The moment and day an answer of `key` given at `time` is recorded with, and the card's
    /// state before it: what `review` saves and `previews` shows.
    static func answering(_ key: String, at time: Date, boundary: DayBoundary, _ db: Database) throws -> (
        stamp: Date, day: LocalDay, previous: CardState
    ) {
        let stamp = try stamp(time, after: latestReviewEvent, [key], db)
        let previous = try storedState(of: key, db)
        // Never a day before the card's last review, which another device may have made
        // with its clock ahead: days between reviews do not go negative.
        let today = boundary.day(of: time)
        return (stamp, max(today, previous.lastReviewed ?? today), previous)
    }

    // MARK: - Rows

    private static let stateEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static func storedState(of key: String, _ db: Database) throws -> CardState {
        try Row.fetchOne(db, sql: "SELECT * FROM card WHERE key = ?", arguments: [key]).map(cardState) ?? .new
    }

    static func cardState(_ row: Row) throws -> CardState {
        let phaseText = try row.decode(String?.self, forColumn: "phase")
        let phase = try phaseText.map { text in
            guard let phase = CardState.Phase(rawValue: text) else {
                throw ProgressStoreError.corrupt(reason: "card.phase is \(text)")
            }
            return phase
        }
        let state = CardState(
            repetitions: try row.decode(Int.self, forColumn: "repetitions"),
            ease: try row.decode(Int.self, forColumn: "ease"),
            interval: try row.decode(Int.self, forColumn: "interval"),
            due: try day(try row.decode(String?.self, forColumn: "due"), "due"),
            lastReviewed: try day(try row.decode(String?.self, forColumn: "last_reviewed"), "last_reviewed"),
            introduced: try day(try row.decode(String?.self, forColumn: "introduced"), "introduced"),
            reviews: try row.decode(Int.self, forColumn: "reviews"),
            lapses: try row.decode(Int.self, forColumn: "lapses"), phase: phase,
            step: try row.decode(Int?.self, forColumn: "step"),
            dueTime: try row.decode(Int64?.self, forColumn: "due_ms").map(Milliseconds.date),
            stability: try row.decode(Double?.self, forColumn: "stability"),
            difficulty: try row.decode(Double?.self, forColumn: "difficulty"))
        // Numbers no schedule makes would overflow the next one: the file was edited or damaged.
        let counts = 0...1_000_000_000
        guard counts.contains(state.repetitions), counts.contains(state.reviews), counts.contains(state.lapses),
            (0...10_000_000).contains(state.ease), (0...SM2.maximumInterval).contains(state.interval),
            state.step.map({ (0...1_000).contains($0) }) ?? true,
            state.stability.map({ $0.isFinite && $0 >= 0 }) ?? true,
            state.difficulty.map(\.isFinite) ?? true
        else {
            throw ProgressStoreError.corrupt(
                reason: "card \(try row.decode(String.self, forColumn: "key")) is not valid")
        }
        return state
    }

    static func save(_ state: CardState, for key: String, deckID: String, cardID: String, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO card (key, deck_id, card_id, repetitions, ease, interval, due, last_reviewed, introduced,
                    reviews, lapses, phase, step, due_ms, stability, difficulty)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET
                    deck_id = excluded.deck_id, card_id = excluded.card_id, repetitions = excluded.repetitions,
                    ease = excluded.ease, interval = excluded.interval, due = excluded.due,
                    last_reviewed = excluded.last_reviewed, introduced = excluded.introduced,
                    reviews = excluded.reviews, lapses = excluded.lapses, phase = excluded.phase,
                    step = excluded.step, due_ms = excluded.due_ms, stability = excluded.stability,
                    difficulty = excluded.difficulty
                """,
            arguments: [
                key, deckID, cardID, state.repetitions, state.ease, state.interval, state.due?.description,
                state.lastReviewed?.description, state.introduced?.description, state.reviews, state.lapses,
                state.phase.rawValue, state.step, state.dueTime.map(Milliseconds.of), state.stability,
                state.difficulty,
            ])
    }

    /// Appends an event to the log; `merged` marks one from another device.
    static func append(_ event: ReviewEvent, merged: Bool = false, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO review_event (id, kind, card_key, deck_id, card_id, grade, time_ms, day, previous, next, undoes, merged)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                event.id.uuidString, event.kind.rawValue, event.cardKey, event.deckID, event.cardID,
                event.grade.rawValue,
                milliseconds(event.time), event.day.description,
                String(decoding: try stateEncoder.encode(event.previous), as: UTF8.self),
                String(decoding: try stateEncoder.encode(event.next), as: UTF8.self), event.undoes?.uuidString,
                merged,
            ])
    }

    static func reviewEvent(id: UUID, _ db: Database) throws -> ReviewEvent? {
        try Row.fetchOne(db, sql: "SELECT * FROM review_event WHERE id = ?", arguments: [id.uuidString]).map(
            reviewEvent)
    }

    static func reviewEvent(_ row: Row) throws -> ReviewEvent {
        let decoder = JSONDecoder()
        func uuid(_ column: String) throws -> UUID? {
            guard let text = try row.decode(String?.self, forColumn: column) else { return nil }
            guard let uuid = UUID(uuidString: text) else {
                throw ProgressStoreError.corrupt(reason: "\(column) is not a UUID: \(text)")
            }
            return uuid
        }
        func state(_ column: String) throws -> CardState {
            let text = try row.decode(String.self, forColumn: column)
            do {
                return try decoder.decode(CardState.self, from: Data(text.utf8))
            } catch {
                throw ProgressStoreError.corrupt(reason: "review_event.\(column) is not a card state")
            }
        }
        let kindText = try row.decode(String.self, forColumn: "kind")
        let gradeValue = try row.decode(Int.self, forColumn: "grade")
        let dayText = try row.decode(String.self, forColumn: "day")
        guard let id = try uuid("id"), let kind = ReviewEvent.Kind(rawValue: kindText),
            let grade = Grade(rawValue: gradeValue),
            let day = LocalDay(dayText)
        else { throw ProgressStoreError.corrupt(reason: "a review_event row is not valid") }
        return ReviewEvent(
            id: id, kind: kind, cardKey: try row.decode(String.self, forColumn: "card_key"),
            deckID: try row.decode(String.self, forColumn: "deck_id"),
            cardID: try row.decode(String.self, forColumn: "card_id"),
            grade: grade, time: date(milliseconds: try row.decode(Int64.self, forColumn: "time_ms")), day: day,
            previous: try state("previous"), next: try state("next"), undoes: try uuid("undoes"))
    }
}
