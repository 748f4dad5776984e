import Foundation
import GRDB

extension ProgressStore {
    /// Saves a new charter and returns it.
    ///
    /// Creating again with the same `id` changes nothing and returns the stored charter.
    /// - Throws: ``CharterValidationErrors`` naming each bad field, or ``ProgressStoreError``.
    @discardableResult
    public func createCharter(_ draft: CharterDraft, at time: Date, id: UUID = UUID()) throws -> Charter {
        let charter = try draft.validated(id: id, createdAt: Self.date(milliseconds: Self.milliseconds(time)))
        return try write { db in
            if let existing = try Self.charter(id: id, db) { return existing }
            try Self.appendCharterEvent(id: UUID(), charterID: id, action: .create(draft), time: charter.createdAt, db)
            guard let stored = try Self.refoldCharter(id, db) else {
                throw ProgressStoreError.database(reason: "charter \(id) was deleted; make a new one")
            }
            return stored
        }
    }

    /// Replaces a charter's editable fields.
    ///
    /// Like the other changes of a charter, it is logged with `eventID`: repeating it with the
    /// same ID changes nothing.
    /// - Throws: ``CharterValidationErrors``, or ``ProgressStoreError/noCharter(id:)``.
    @discardableResult
    public func updateCharter(id: UUID, with draft: CharterDraft, at time: Date = Date(), eventID: UUID = UUID())
        throws -> Charter
    {
        let problems = draft.problems
        guard problems.isEmpty else { throw CharterValidationErrors(problems: problems) }
        return try stored(id, after: try charterChange(id: id, action: .update(draft), at: time, eventID: eventID))
    }

    /// Archives a charter: it stays, with its checklist runs, but is never active. Archiving an
    /// archived charter changes nothing.
    @discardableResult
    public func archiveCharter(id: UUID, at time: Date, eventID: UUID = UUID()) throws(ProgressStoreError) -> Charter {
        try stored(id, after: try charterChange(id: id, action: .archive, at: time, eventID: eventID))
    }

    /// Brings an archived charter back.
    @discardableResult
    public func unarchiveCharter(id: UUID, at time: Date = Date(), eventID: UUID = UUID())
        throws(ProgressStoreError) -> Charter
    {
        try stored(id, after: try charterChange(id: id, action: .unarchive, at: time, eventID: eventID))
    }

    /// Deletes a charter and its checklist runs (the checklist event log keeps its history).
    public func deleteCharter(id: UUID, at time: Date = Date(), eventID: UUID = UUID()) throws(ProgressStoreError) {
        _ = try charterChange(id: id, action: .delete, at: time, eventID: eventID)
    }

    private func stored(_ id: UUID, after charter: Charter?) throws(ProgressStoreError) -> Charter {
        guard let charter else { throw .noCharter(id: id.uuidString) }
        return charter
    }

    /// Logs a change of a stored charter and applies it, returning the charter after it (`nil`
    /// once deleted). Archiving an archived charter, or bringing back one that is not, logs
    /// nothing; a change whose `eventID` is logged already returns the charter as it is.
    private func charterChange(id: UUID, action: ProgressEvent.CharterAction, at time: Date, eventID: UUID)
        throws(ProgressStoreError) -> Charter?
    {
        try write { db in
            if try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM charter_event WHERE id = ?)", arguments: [eventID.uuidString])
                == true
            {
                return try Self.charter(id: id, db)
            }
            guard let stored = try Self.charter(id: id, db) else {
                throw ProgressStoreError.noCharter(id: id.uuidString)
            }
            switch action {
            case .archive where stored.isArchived, .unarchive where !stored.isArchived: return stored
            default: break
            }
            let stamp = try Self.stamp(
                time, after: "SELECT MAX(time_ms) FROM charter_event WHERE charter_id = ?", [id.uuidString], db)
            try Self.appendCharterEvent(id: eventID, charterID: id, action: action, time: stamp, db)
            return try Self.refoldCharter(id, db)
        }
    }

    /// One charter, or `nil`.
    public func charter(id: UUID) throws(ProgressStoreError) -> Charter? {
        try read { db in try Self.charter(id: id, db) }
    }

    /// Every charter, by start date then creation; archived ones only when asked for.
    public func charters(includingArchived: Bool = false) throws(ProgressStoreError) -> [Charter] {
        try read { db in
            let filter = includingArchived ? "" : "WHERE archived_ms IS NULL"
            return try Row.fetchAll(db, sql: "SELECT * FROM charter \(filter) ORDER BY start_date, created_ms, id")
                .map(Self.charter)
        }
    }

    /// The charter whose dates include `day` (see ``Charter/active(among:on:)``).
    public func activeCharter(on day: LocalDay) throws(ProgressStoreError) -> Charter? {
        Charter.active(among: try charters(), on: day)
    }

    // MARK: - Rows

    static func appendCharterEvent(
        id: UUID, charterID: UUID, action: ProgressEvent.CharterAction, time: Date, _ db: Database
    ) throws {
        try db.execute(
            sql: "INSERT INTO charter_event (id, charter_id, action, fields, time_ms) VALUES (?, ?, ?, ?, ?)",
            arguments: [
                id.uuidString, charterID.uuidString, action.name, try action.draft.map(json), milliseconds(time),
            ])
    }

    /// Sets a charter's row to what its events give, in the order they count (by time, then ID):
    /// the fields of the latest create or update, archived from the first archive not undone, and
    /// gone, with its runs, once deleted on any device. A charter stored only now takes up the
    /// item events made in it that came before it (merged from a device that had it first).
    ///
    /// - Returns: the charter; `nil` when it is not made yet, or deleted.
    @discardableResult
    static func refoldCharter(_ id: UUID, _ db: Database) throws -> Charter? {
        let existed = try charter(id: id, db) != nil
        var createdAt: Date?
        var draft: CharterDraft?
        var archivedAt: Date?
        var deleted = false
        let rows = try Row.fetchAll(
            db, sql: "SELECT action, fields, time_ms FROM charter_event WHERE charter_id = ? ORDER BY time_ms, id",
            arguments: [id.uuidString])
        for row in rows {
            let time = date(milliseconds: try row.decode(Int64.self, forColumn: "time_ms"))
            let fields = try row.decode(String?.self, forColumn: "fields")
            let decoded = fields.map { try? JSONDecoder().decode(CharterDraft.self, from: Data($0.utf8)) }
            guard
                let action = ProgressEvent.CharterAction(
                    name: try row.decode(String.self, forColumn: "action"), draft: decoded ?? nil)
            else { throw ProgressStoreError.corrupt(reason: "a charter_event row of \(id) is not valid") }
            switch action {
            case .create(let fields):
                createdAt = createdAt ?? time
                draft = fields
            case .update(let fields): draft = fields
            case .archive: archivedAt = archivedAt ?? time
            case .unarchive: archivedAt = nil
            case .delete: deleted = true
            }
        }
        guard !deleted, let createdAt, let draft else {
            try db.execute(sql: "DELETE FROM charter WHERE id = ?", arguments: [id.uuidString])
            return nil
        }
        guard let charter = try? draft.validated(id: id, createdAt: createdAt, archivedAt: archivedAt) else {
            throw ProgressStoreError.corrupt(reason: "the fields of charter \(id) are not valid")
        }
        try db.execute(
            sql: """
                INSERT INTO charter (id, name, start_date, end_date, location, yacht_name, charter_company, notes, created_ms, archived_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET
                    name = excluded.name, start_date = excluded.start_date, end_date = excluded.end_date,
                    location = excluded.location, yacht_name = excluded.yacht_name,
                    charter_company = excluded.charter_company, notes = excluded.notes,
                    created_ms = excluded.created_ms, archived_ms = excluded.archived_ms
                """,
            arguments: [
                charter.id.uuidString, charter.name, charter.startDate.description, charter.endDate?.description,
                charter.location, charter.yachtName, charter.charterCompany, charter.notes,
                milliseconds(charter.createdAt), charter.archivedAt.map(milliseconds),
            ])
        if !existed {
            for row in try Row.fetchAll(
                db, sql: "SELECT DISTINCT checklist_id, item_id FROM checklist_event WHERE charter_id = ?",
                arguments: [id.uuidString])
            {
                try refoldItem(
                    charterID: id, checklistID: try row.decode(String.self, forColumn: "checklist_id"),
                    itemID: try row.decode(String.self, forColumn: "item_id"), db)
            }
        }
        return charter
    }

    static func charter(id: UUID, _ db: Database) throws -> Charter? {
        try Row.fetchOne(db, sql: "SELECT * FROM charter WHERE id = ?", arguments: [id.uuidString]).map(charter)
    }

    static func charter(_ row: Row) throws -> Charter {
        let idText = try row.decode(String.self, forColumn: "id")
        guard let id = UUID(uuidString: idText),
            let start = try day(try row.decode(String.self, forColumn: "start_date"), "start_date")
        else { throw ProgressStoreError.corrupt(reason: "charter \(idText) is not valid") }
        return Charter(
            id: id, name: try row.decode(String.self, forColumn: "name"), startDate: start,
            endDate: try day(try row.decode(String?.self, forColumn: "end_date"), "end_date"),
            location: try row.decode(String?.self, forColumn: "location"),
            yachtName: try row.decode(String?.self, forColumn: "yacht_name"),
            charterCompany: try row.decode(String?.self, forColumn: "charter_company"),
            notes: try row.decode(String?.self, forColumn: "notes"),
            createdAt: date(milliseconds: try row.decode(Int64.self, forColumn: "created_ms")),
            archivedAt: try row.decode(Int64?.self, forColumn: "archived_ms").map { date(milliseconds: $0) })
    }
}
