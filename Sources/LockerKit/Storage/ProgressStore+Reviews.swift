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
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM card WHERE key = ?", arguments: [key]) else {
                return .new
            }
            return try Self.cardState(row)
        }
    }

    /// Records a review and returns its event.
    ///
    /// The new state is computed from the stored one inside the transaction. If an event with
    /// `eventID` is already in the log, nothing changes and the stored event is returned.
    ///
    /// - Parameters:
    ///   - time: when the card was answered; `boundary` decides which day that counts for.
    @discardableResult
    public func review(
        _ card: ReviewCard, grade: Grade, at time: Date, boundary: DayBoundary = DayBoundary(),
        eventID: UUID = UUID()
    ) throws(ProgressStoreError) -> ReviewEvent {
        let time = Self.date(milliseconds: Self.milliseconds(time))  // as stored
        let day = boundary.day(of: time)
        return try write { db in
            if let existing = try Self.reviewEvent(id: eventID, db) {
                guard existing.kind == .review else {
                    throw ProgressStoreError.database(reason: "event \(eventID) is an undo, not a review")
                }
                return existing
            }
            let previous =
                try Row.fetchOne(db, sql: "SELECT * FROM card WHERE key = ?", arguments: [card.key])
                .map(Self.cardState) ?? .new
            let next = Scheduler.review(previous, grade: grade, on: day)
            let event = ReviewEvent(
                id: eventID, kind: .review, cardKey: card.key, deckID: card.deckID, cardID: card.card.id, grade: grade,
                time: time, day: day, previous: previous, next: next, undoes: nil)
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
        let time = Self.date(milliseconds: Self.milliseconds(time))
        let day = boundary.day(of: time)
        return try write { db in
            if let existing = try Self.reviewEvent(id: eventID, db) { return existing.kind == .undo ? existing : nil }
            return try Self.undo(reviewID, time: time, day: day, eventID: eventID, db)
        }
    }

    /// Undoes the most recent review that still stands (see ``undoReview(_:at:boundary:eventID:)``),
    /// finding and undoing it in one transaction.
    @discardableResult
    public func undoLastReview(at time: Date, boundary: DayBoundary = DayBoundary(), eventID: UUID = UUID())
        throws(ProgressStoreError) -> ReviewEvent?
    {
        let time = Self.date(milliseconds: Self.milliseconds(time))
        let day = boundary.day(of: time)
        return try write { db in
            if let existing = try Self.reviewEvent(id: eventID, db) { return existing.kind == .undo ? existing : nil }
            let last = try String.fetchOne(
                db,
                sql: """
                    SELECT id FROM review_event r
                    WHERE kind = 'review' AND NOT EXISTS (SELECT 1 FROM review_event u WHERE u.undoes = r.id)
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
        let undone = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM review_event WHERE undoes = ?)", arguments: [reviewID.uuidString])
        guard undone != true else { return nil }
        // Only the card's latest standing review can be undone: its state must still be the review's result.
        let current =
            try Row.fetchOne(db, sql: "SELECT * FROM card WHERE key = ?", arguments: [review.cardKey])
            .map(cardState) ?? .new
        guard current == review.next else { return nil }
        let event = ReviewEvent(
            id: eventID, kind: .undo, cardKey: review.cardKey, deckID: review.deckID, cardID: review.cardID,
            grade: review.grade, time: time, day: day, previous: current, next: review.previous, undoes: review.id)
        try append(event, db)
        if review.previous.isNew {
            try db.execute(sql: "DELETE FROM card WHERE key = ?", arguments: [review.cardKey])
        } else {
            try save(review.previous, for: review.cardKey, deckID: review.deckID, cardID: review.cardID, db)
        }
        return event
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

    /// The queue of `decks` for `day`: due cards oldest first, then new cards up to `newLimit`.
    public func queue(for decks: [Deck], on day: LocalDay, newLimit: Int = ReviewQueue.defaultNewLimit)
        throws(ProgressStoreError) -> ReviewQueue
    {
        ReviewQueue(cards: ReviewCard.all(in: decks), states: try cardStates(), day: day, newLimit: newLimit)
    }

    /// Stats of each of `decks` on `day`, and their total.
    public func stats(for decks: [Deck], on day: LocalDay) throws(ProgressStoreError) -> (
        decks: [ReviewStats], total: ReviewStats
    ) {
        ReviewStats.of(decks: decks, states: try cardStates(), day: day)
    }

    // MARK: - Rows

    private static let stateEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static func cardState(_ row: Row) throws -> CardState {
        CardState(
            repetitions: try row.decode(Int.self, forColumn: "repetitions"),
            ease: try row.decode(Int.self, forColumn: "ease"),
            interval: try row.decode(Int.self, forColumn: "interval"),
            due: try day(try row.decode(String?.self, forColumn: "due"), "due"),
            lastReviewed: try day(try row.decode(String?.self, forColumn: "last_reviewed"), "last_reviewed"),
            introduced: try day(try row.decode(String?.self, forColumn: "introduced"), "introduced"),
            reviews: try row.decode(Int.self, forColumn: "reviews"),
            lapses: try row.decode(Int.self, forColumn: "lapses"))
    }

    static func save(_ state: CardState, for key: String, deckID: String, cardID: String, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO card (key, deck_id, card_id, repetitions, ease, interval, due, last_reviewed, introduced, reviews, lapses)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET
                    deck_id = excluded.deck_id, card_id = excluded.card_id, repetitions = excluded.repetitions,
                    ease = excluded.ease, interval = excluded.interval, due = excluded.due,
                    last_reviewed = excluded.last_reviewed, introduced = excluded.introduced,
                    reviews = excluded.reviews, lapses = excluded.lapses
                """,
            arguments: [
                key, deckID, cardID, state.repetitions, state.ease, state.interval, state.due?.description,
                state.lastReviewed?.description, state.introduced?.description, state.reviews, state.lapses,
            ])
    }

    static func append(_ event: ReviewEvent, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO review_event (id, kind, card_key, deck_id, card_id, grade, time_ms, day, previous, next, undoes)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                event.id.uuidString, event.kind.rawValue, event.cardKey, event.deckID, event.cardID,
                event.grade.rawValue,
                milliseconds(event.time), event.day.description,
                String(decoding: try stateEncoder.encode(event.previous), as: UTF8.self),
                String(decoding: try stateEncoder.encode(event.next), as: UTF8.self), event.undoes?.uuidString,
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
