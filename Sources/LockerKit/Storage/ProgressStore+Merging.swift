import Foundation
import GRDB

/// Progress that merges across devices.
///
/// Every state in the store is a function of the set of events in its logs, whatever order they
/// arrived in, so merging is idempotent, commutative and associative: devices that have
/// exchanged the same events hold the same states.
///
/// - **Cards**: a card's reviews that stand (not undone on any device by an undo of that card)
///   are replayed in the order they count (by time, then event ID) under the store's
///   ``Scheduling``.
/// - **Checklist items**: each field is the last written. An item's state and its note are
///   set by the latest event (by time, then event ID) that set that field; a tick on one phone
///   and a note on another both survive. `changedAt` is the moment the state last took a
///   different value.
/// - **Charters**: the editable fields are one value, the latest written; archived or not is the
///   latest archive or unarchive; a delete on any device wins over every edit.
///
/// A device stamps each event at least a millisecond after every event of the same card, item or
/// charter it has seen, so the order of one device's changes, and of changes made after seeing
/// another device's, holds on every device even when clocks disagree.
extension ProgressStore {
    /// The events of the logs after `cursor`, and the cursor to pass next time: this device's
    /// events and those merged from others, charters first, then checklist items, then reviews.
    ///
    /// - Parameter limit: at most this many events (a transport's batch); the cursor then points
    ///   after the last one given, so the next call goes on from there.
    public func events(since cursor: ProgressCursor = .start, limit: Int? = nil) throws(ProgressStoreError) -> (
        events: [ProgressEvent], cursor: ProgressCursor
    ) {
        try read { db in
            var events: [ProgressEvent] = []
            var next = cursor
            var room: Int { limit.map { max(0, $0 - events.count) } ?? Int.max }
            let limitClause = " ORDER BY seq LIMIT ?"
            for row in try Row.fetchAll(
                db, sql: "SELECT * FROM charter_event WHERE seq > ?" + limitClause,
                arguments: [cursor.charters, room])
            {
                events.append(try Self.charterEvent(row))
                next.charters = try row.decode(Int64.self, forColumn: "seq")
            }
            for row in try Row.fetchAll(
                db, sql: "SELECT * FROM checklist_event WHERE seq > ?" + limitClause, arguments: [cursor.items, room])
            {
                let charterText = try row.decode(String.self, forColumn: "charter_id")
                guard let charterID = UUID(uuidString: charterText) else {
                    throw ProgressStoreError.corrupt(reason: "checklist_event.charter_id is \(charterText)")
                }
                let change = try Self.itemChange(
                    row, charterID: charterID, checklistID: try row.decode(String.self, forColumn: "checklist_id"),
                    itemID: try row.decode(String.self, forColumn: "item_id"))
                events.append(
                    ProgressEvent(id: try Self.uuid(row, "id"), time: try Self.time(row), change: .item(change)))
                next.items = try row.decode(Int64.self, forColumn: "seq")
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT seq, id, kind, card_key, deck_id, card_id, grade, time_ms, day, undoes FROM review_event
                    WHERE seq > ?
                    """ + limitClause, arguments: [cursor.reviews, room])
            {
                let answer = try Self.answer(row)
                let change: ProgressEvent.Change =
                    if try row.decode(String.self, forColumn: "kind") == "undo" {
                        .undo(
                            review: try Self.uuid(row, "undoes"),
                            cardKey: try row.decode(String.self, forColumn: "card_key"),
                            deckID: answer.deckID, cardID: answer.cardID, grade: answer.grade, day: answer.day)
                    } else {
                        .review(
                            cardKey: try row.decode(String.self, forColumn: "card_key"), deckID: answer.deckID,
                            cardID: answer.cardID, grade: answer.grade, day: answer.day)
                    }
                events.append(ProgressEvent(id: answer.id, time: answer.time, change: change))
                next.reviews = try row.decode(Int64.self, forColumn: "seq")
            }
            return (events, next)
        }
    }

    /// Adds the events this store does not have yet, and brings the cards, items and charters they
    /// touch to what all their events give, in one transaction.
    ///
    /// Events come from other devices, so they are checked first: an event that cannot be right
    /// (a charter without a name, an empty ID, a time outside 1970–2999) throws
    /// ``ProgressStoreError/invalidEvent(id:reason:)`` and nothing is merged.
    @discardableResult
    public func merge(_ events: some Sequence<ProgressEvent>) throws(ProgressStoreError) -> MergeReport {
        // Times count to the millisecond, as they are stored and read back, even one set finer
        // after the event was made.
        let events = events.map { ProgressEvent(id: $0.id, time: $0.time, change: $0.change) }
        for event in events {
            if let reason = Self.problem(with: event) {
                throw .invalidEvent(id: event.id.uuidString, reason: reason)
            }
        }
        return try write { db in
            var report = MergeReport()
            var seen: Set<String> = []  // table and ID: IDs are unique per log
            var charters: Set<UUID> = []
            var items: Set<ItemKey> = []
            var reviews: [String: [ProgressEvent]] = [:]
            for event in events {
                let table =
                    switch event.change {
                    case .review, .undo: "review_event"
                    case .item: "checklist_event"
                    case .charter: "charter_event"
                    }
                guard seen.insert(table + " " + event.id.uuidString).inserted,
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE id = ?)",
                        arguments: [event.id.uuidString]) == false
                else {
                    report.known += 1
                    continue
                }
                report.added += 1
                switch event.change {
                case .review(let cardKey, _, _, _, _), .undo(_, let cardKey, _, _, _, _):
                    reviews[cardKey, default: []].append(event)
                case .item(let change):
                    let before = try Self.records(
                        charterID: change.charterID, checklistID: change.checklistID, itemID: change.itemID, db)
                    try Self.appendItemEvent(
                        id: event.id, change, recordState: before[change.itemID]?.state ?? .unchecked, time: event.time,
                        db)
                    items.insert(
                        ItemKey(charterID: change.charterID, checklistID: change.checklistID, itemID: change.itemID))
                case .charter(let charterID, let action):
                    try Self.appendCharterEvent(
                        id: event.id, charterID: charterID, action: action, time: event.time, db)
                    charters.insert(charterID)
                }
            }
            for charterID in charters.sorted(by: { $0.uuidString < $1.uuidString }) {
                _ = try Self.refoldCharter(charterID, db)
            }
            for item in items where try Self.charter(id: item.charterID, db) != nil {
                try Self.refoldItem(charterID: item.charterID, checklistID: item.checklistID, itemID: item.itemID, db)
            }
            let scheduling = try Self.scheduling(db)
            for (cardKey, events) in reviews { try Self.mergeReviews(events, of: cardKey, scheduling, db) }
            return report
        }
    }

    private struct ItemKey: Hashable {
        var charterID: UUID
        var checklistID: String
        var itemID: String
    }

    /// Appends a card's new reviews and undos and replays its log. Each merged event records the
    /// card's states before and after the merge that brought it.
    private static func mergeReviews(
        _ events: [ProgressEvent], of cardKey: String, _ scheduling: Scheduling, _ db: Database
    )
        throws
    {
        let before = try storedState(of: cardKey, db)
        var undone: Set<UUID> = []
        var added: [Answer] = []
        for event in events {
            switch event.change {
            case .review(_, let deckID, let cardID, let grade, let day):
                added.append(
                    Answer(id: event.id, deckID: deckID, cardID: cardID, grade: grade, time: event.time, day: day))
            case .undo(let review, _, _, _, _, _):
                // One that names a review of another card is kept and takes nothing back, in any
                // order of arrival, so every device accepts the same events.
                undone.insert(review)
            case .item, .charter: break
            }
        }
        // Undos already here may be of reviews only now arriving (an undo of this card's: one
        // that names a review of another card takes nothing back).
        let addedIDs = added.map(\.id.uuidString)
        if !addedIDs.isEmpty {
            let marks = Array(repeating: "?", count: addedIDs.count).joined(separator: ", ")
            for text in try String.fetchAll(
                db, sql: "SELECT undoes FROM review_event WHERE card_key = ? AND undoes IN (\(marks))",
                arguments: StatementArguments([cardKey] + addedIDs))
            {
                if let id = UUID(uuidString: text) { undone.insert(id) }
            }
        }
        let answers = (try answers(of: cardKey, db) + added).filter { !undone.contains($0.id) }.sorted {
            ($0.time, $0.id.uuidString) < ($1.time, $1.id.uuidString)
        }
        let after = replay(answers, scheduling)
        for event in events {
            let (kind, undoes, deckID, cardID, grade, day): (ReviewEvent.Kind, UUID?, String, String, Grade, LocalDay)
            switch event.change {
            case .review(_, let d, let c, let g, let y):
                (kind, undoes, deckID, cardID, grade, day) = (.review, nil, d, c, g, y)
            case .undo(let r, _, let d, let c, let g, let y):
                (kind, undoes, deckID, cardID, grade, day) = (.undo, r, d, c, g, y)
            case .item, .charter: continue
            }
            try append(
                ReviewEvent(
                    id: event.id, kind: kind, cardKey: cardKey, deckID: deckID, cardID: cardID, grade: grade,
                    time: event.time, day: day, previous: before, next: after, undoes: undoes), merged: true, db)
        }
        if let last = answers.last {
            try save(after, for: cardKey, deckID: last.deckID, cardID: last.cardID, db)
        } else {
            try db.execute(sql: "DELETE FROM card WHERE key = ?", arguments: [cardKey])
        }
    }

    /// The moments an event may carry: from 1970 to the end of 2999. Later ones would let one
    /// event push every later stamp of its card, item or charter out of range.
    static let eventTimes: ClosedRange<Int64> = 0...32_503_679_999_999
    /// The days a review may count for: a due day thousands of years on would not read back.
    static let eventDays = LocalDay(ordinal: 0)...LocalDay(ordinal: 376_199)

    /// Why an event from another device cannot be merged, or `nil`. Only what no device could
    /// have written is refused: a refusal blocks every batch the event comes in.
    static func problem(with event: ProgressEvent) -> String? {
        func empty(_ fields: [(String, String)]) -> String? {
            fields.first { $0.1.isEmpty }.map { "its \($0.0) is empty" }
        }
        guard eventTimes.contains(Milliseconds.of(event.time)) else { return "its time is not from 1970 to 2999" }
        switch event.change {
        case .review(let cardKey, let deckID, let cardID, _, let day):
            guard eventDays.contains(day) else { return "its day \(day) is not from 1970 to 2999" }
            return empty([("card key", cardKey), ("deck ID", deckID), ("card ID", cardID)])
        case .undo(_, let cardKey, let deckID, let cardID, _, let day):
            guard eventDays.contains(day) else { return "its day \(day) is not from 1970 to 2999" }
            return empty([("card key", cardKey), ("deck ID", deckID), ("card ID", cardID)])
        case .item(let change):
            if change.state == nil, !change.setsNote { return "it sets neither a state nor a note" }
            if let note = change.note, note.count > CharterDraft.maximumNotesLength {
                return "its note is longer than \(CharterDraft.maximumNotesLength) characters"
            }
            return empty([("checklist ID", change.checklistID), ("item ID", change.itemID)])
        case .charter(_, let action):
            guard let problems = action.draft?.problems, !problems.isEmpty else { return nil }
            return "its charter is not valid: " + problems.map(\.description).joined(separator: "; ")
        }
    }

    static func charterEvent(_ row: Row) throws -> ProgressEvent {
        let fields = try row.decode(String?.self, forColumn: "fields")
        let draft = try fields.map { text in
            guard let draft = try? JSONDecoder().decode(CharterDraft.self, from: Data(text.utf8)) else {
                throw ProgressStoreError.corrupt(reason: "charter_event.fields is not a charter")
            }
            return draft
        }
        guard
            let action = ProgressEvent.CharterAction(
                name: try row.decode(String.self, forColumn: "action"), draft: draft)
        else { throw ProgressStoreError.corrupt(reason: "a charter_event row is not valid") }
        return ProgressEvent(
            id: try uuid(row, "id"), time: try time(row),
            change: .charter(id: try uuid(row, "charter_id"), action: action))
    }

    static func uuid(_ row: Row, _ column: String) throws -> UUID {
        let text = try row.decode(String.self, forColumn: column)
        guard let uuid = UUID(uuidString: text) else {
            throw ProgressStoreError.corrupt(reason: "\(column) is \(text)")
        }
        return uuid
    }

    static func time(_ row: Row) throws -> Date { date(milliseconds: try row.decode(Int64.self, forColumn: "time_ms")) }
}
