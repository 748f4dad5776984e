import Foundation
import GRDB

extension ProgressStore {
    /// Opens the run of `checklist` for a charter, starting it if there is none, and brings it to
    /// this version of the checklist: states follow item IDs, new items start unchecked, removed
    /// items keep their stored state out of the counts.
    ///
    /// A run remembers the items it last saw in each locale, and compares with those of the
    /// checklist's locale: opening it in another language reports no change, though the
    /// translations' items differ; the items' states are the same in every language.
    ///
    /// - Returns: the run, and how the checklist changed since the run last saw it in this locale
    ///   (empty for a new run, a locale the run was not opened in, or an unchanged checklist).
    public func openRun(charterID: UUID, checklist: Checklist) throws(ProgressStoreError)
        -> (run: ChecklistRun, changes: ChecklistMigration)
    {
        let itemIDs = checklist.items.map(\.id)
        return try write { db in
            guard let charter = try Self.charter(id: charterID, db) else {
                throw ProgressStoreError.noCharter(id: charterID.uuidString)
            }
            let key: [any DatabaseValueConvertible] = [charterID.uuidString, checklist.id]
            try db.execute(
                sql: "INSERT OR IGNORE INTO checklist_run (charter_id, checklist_id) VALUES (?, ?)",
                arguments: StatementArguments(key))
            let records = try Self.records(charterID: charterID, checklistID: checklist.id, db)
            var changes = ChecklistMigration()
            // This locale's list, else the one kept from before lists were per locale.
            let seenRow = try Row.fetchOne(
                db,
                sql: """
                    SELECT locale, item_ids FROM checklist_seen
                    WHERE charter_id = ? AND checklist_id = ? AND locale IN (?, '') ORDER BY locale DESC LIMIT 1
                    """,
                arguments: StatementArguments(key + [checklist.locale]))
            if let seenRow {
                let stored: String = try seenRow.decode(String.self, forColumn: "item_ids")
                guard let seen = try? JSONDecoder().decode([String].self, from: Data(stored.utf8)) else {
                    throw ProgressStoreError.corrupt(reason: "checklist_seen.item_ids is not a list of IDs")
                }
                let current = Set(itemIDs)
                let before = Set(seen)
                changes.added = itemIDs.filter { !before.contains($0) }
                changes.removed = seen.filter { !current.contains($0) }
                changes.removedWithProgress = changes.removed.filter {
                    guard let record = records[$0] else { return false }
                    return record.state.isDone || record.note != nil
                }
                if try seenRow.decode(String.self, forColumn: "locale").isEmpty {
                    try db.execute(
                        sql: "DELETE FROM checklist_seen WHERE charter_id = ? AND checklist_id = ? AND locale = ''",
                        arguments: StatementArguments(key))
                } else if seen == itemIDs {
                    return (ChecklistRun(charter: charter, checklist: checklist, records: records), changes)
                }
            }
            try db.execute(
                sql: """
                    INSERT INTO checklist_seen (charter_id, checklist_id, locale, item_ids) VALUES (?, ?, ?, ?)
                    ON CONFLICT (charter_id, checklist_id, locale) DO UPDATE SET item_ids = excluded.item_ids
                    """,
                arguments: StatementArguments(key + [checklist.locale, try Self.json(itemIDs)]))
            return (ChecklistRun(charter: charter, checklist: checklist, records: records), changes)
        }
    }

    /// Sets an item's state (and, when `note` is given, its note; an empty note removes it).
    ///
    /// The run must have been opened. Writing an event whose `eventID` is stored changes nothing.
    /// - Returns: the item's record after the change.
    @discardableResult
    public func setItem(
        _ itemID: String, to state: ItemState, note: String?? = .none, charterID: UUID, checklistID: String,
        at time: Date, eventID: UUID = UUID()
    ) throws(ProgressStoreError) -> ItemRecord {
        try change(
            itemID, state: state, note: note, charterID: charterID, checklistID: checklistID, at: time, eventID: eventID
        )
    }

    /// Sets or (with `nil` or an empty text) removes an item's note, keeping its state.
    @discardableResult
    public func setNote(
        _ note: String?, on itemID: String, charterID: UUID, checklistID: String, at time: Date, eventID: UUID = UUID()
    ) throws(ProgressStoreError) -> ItemRecord {
        try change(
            itemID, state: nil, note: .some(note), charterID: charterID, checklistID: checklistID, at: time,
            eventID: eventID)
    }

    /// The stored records of a run, by item ID (including items no longer in the checklist).
    public func itemRecords(charterID: UUID, checklistID: String) throws(ProgressStoreError) -> [String: ItemRecord] {
        try read { db in try Self.records(charterID: charterID, checklistID: checklistID, db) }
    }

    // MARK: - Rows

    private func change(
        _ itemID: String, state: ItemState?, note: String??, charterID: UUID, checklistID: String, at time: Date,
        eventID: UUID
    ) throws(ProgressStoreError) -> ItemRecord {
        if let note = note ?? nil, note.count > CharterDraft.maximumNotesLength {
            throw .noteTooLong(limit: CharterDraft.maximumNotesLength)
        }
        return try write { db in
            let key: [any DatabaseValueConvertible] = [charterID.uuidString, checklistID]
            let stored = try Self.records(charterID: charterID, checklistID: checklistID, itemID: itemID, db)
            if try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM checklist_event WHERE id = ?)", arguments: [eventID.uuidString])
                == true
            {
                return stored[itemID] ?? .untouched
            }
            guard
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM checklist_run WHERE charter_id = ? AND checklist_id = ?)",
                    arguments: StatementArguments(key)) == true
            else {
                throw ProgressStoreError.database(
                    reason: "no run of checklist \(checklistID) for charter \(charterID); open it first")
            }
            let change = ProgressEvent.ItemChange(
                charterID: charterID, checklistID: checklistID, itemID: itemID, state: state, setsNote: note != nil,
                note: Self.clean(note ?? nil))
            let stamp = try Self.stamp(time, after: Self.latestItemEvent, StatementArguments(key + [itemID]), db)
            var record = stored[itemID] ?? .untouched
            Self.apply(change, at: stamp, to: &record)
            try Self.saveRecord(record, charterID: charterID, checklistID: checklistID, itemID: itemID, db)
            try Self.appendItemEvent(id: eventID, change, recordState: record.state, time: stamp, db)
            return record
        }
    }

    static let latestItemEvent =
        "SELECT MAX(time_ms) FROM checklist_event WHERE charter_id = ? AND checklist_id = ? AND item_id = ?"

    /// What an event does to an item's record: a state that differs is set, with the moment; a
    /// note set replaces the note (trimmed; an empty one removes it, as on this device).
    static func apply(_ change: ProgressEvent.ItemChange, at time: Date, to record: inout ItemRecord) {
        if let state = change.state, state != record.state {
            record.state = state
            record.changedAt = time
        }
        if change.setsNote { record.note = clean(change.note) }
    }

    static func saveRecord(_ record: ItemRecord, charterID: UUID, checklistID: String, itemID: String, _ db: Database)
        throws
    {
        try db.execute(
            sql: """
                INSERT INTO checklist_item (charter_id, checklist_id, item_id, state, changed_ms, note)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (charter_id, checklist_id, item_id) DO UPDATE SET
                    state = excluded.state, changed_ms = excluded.changed_ms, note = excluded.note
                """,
            arguments: [
                charterID.uuidString, checklistID, itemID, record.state.rawValue,
                record.changedAt.map(Self.milliseconds), record.note,
            ])
    }

    /// Appends an item event. `recordState` fills the state column of an event that sets only
    /// the note: the item's state when it was written, for a reader of the log.
    static func appendItemEvent(
        id: UUID, _ change: ProgressEvent.ItemChange, recordState: ItemState, time: Date, _ db: Database
    ) throws {
        let sets = change.state == nil ? "note" : change.setsNote ? "both" : "state"
        try db.execute(
            sql: """
                INSERT INTO checklist_event (id, charter_id, checklist_id, item_id, state, note, time_ms, sets)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                id.uuidString, change.charterID.uuidString, change.checklistID, change.itemID,
                (change.state ?? recordState).rawValue, change.note, milliseconds(time), sets,
            ])
    }

    /// Sets an item's record to what its events give, in the order they count: by time, then ID.
    /// The run is made if it was not: events merged from another device may come first.
    static func refoldItem(charterID: UUID, checklistID: String, itemID: String, _ db: Database) throws {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT id, state, note, sets, time_ms FROM checklist_event
                WHERE charter_id = ? AND checklist_id = ? AND item_id = ? ORDER BY time_ms, id
                """, arguments: [charterID.uuidString, checklistID, itemID])
        var record = ItemRecord.untouched
        for row in rows {
            apply(
                try itemChange(row, charterID: charterID, checklistID: checklistID, itemID: itemID),
                at: date(milliseconds: try row.decode(Int64.self, forColumn: "time_ms")), to: &record)
        }
        try db.execute(
            sql: "INSERT OR IGNORE INTO checklist_run (charter_id, checklist_id) VALUES (?, ?)",
            arguments: [charterID.uuidString, checklistID])
        try saveRecord(record, charterID: charterID, checklistID: checklistID, itemID: itemID, db)
    }

    static func itemChange(_ row: Row, charterID: UUID, checklistID: String, itemID: String) throws
        -> ProgressEvent.ItemChange
    {
        let stateText = try row.decode(String.self, forColumn: "state")
        let sets = try row.decode(String.self, forColumn: "sets")
        guard let state = ItemState(rawValue: stateText), ["state", "note", "both"].contains(sets) else {
            throw ProgressStoreError.corrupt(reason: "a checklist_event row is not valid")
        }
        return ProgressEvent.ItemChange(
            charterID: charterID, checklistID: checklistID, itemID: itemID, state: sets == "note" ? nil : state,
            setsNote: sets != "state", note: try row.decode(String?.self, forColumn: "note"))
    }

    /// The stored records of a run, by item ID; only the one of `itemID` when it is given.
    static func records(charterID: UUID, checklistID: String, itemID: String? = nil, _ db: Database) throws
        -> [String: ItemRecord]
    {
        var records: [String: ItemRecord] = [:]
        var sql = "SELECT * FROM checklist_item WHERE charter_id = ? AND checklist_id = ?"
        var arguments: StatementArguments = [charterID.uuidString, checklistID]
        if let itemID {
            sql += " AND item_id = ?"
            arguments += [itemID]
        }
        let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
        for row in rows {
            let stateText = try row.decode(String.self, forColumn: "state")
            guard let state = ItemState(rawValue: stateText) else {
                throw ProgressStoreError.corrupt(reason: "checklist_item.state is \(stateText)")
            }
            records[try row.decode(String.self, forColumn: "item_id")] = ItemRecord(
                state: state,
                changedAt: try row.decode(Int64?.self, forColumn: "changed_ms").map { date(milliseconds: $0) },
                note: try row.decode(String?.self, forColumn: "note"))
        }
        return records
    }

    static func clean(_ note: String?) -> String? {
        guard let note = note?.trimmingCharacters(in: .whitespacesAndNewlines), !note.isEmpty else { return nil }
        return note
    }

    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
