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
            try Self.insert(charter, db)
            return charter
        }
    }

    /// Replaces a charter's editable fields.
    /// - Throws: ``CharterValidationErrors``, or ``ProgressStoreError/noCharter(id:)``.
    @discardableResult
    public func updateCharter(id: UUID, with draft: CharterDraft) throws -> Charter {
        let problems = draft.problems
        guard problems.isEmpty else { throw CharterValidationErrors(problems: problems) }
        return try write { db in
            guard let stored = try Self.charter(id: id, db) else {
                throw ProgressStoreError.noCharter(id: id.uuidString)
            }
            let charter = try draft.validated(id: id, createdAt: stored.createdAt, archivedAt: stored.archivedAt)
            try db.execute(
                sql: """
                    UPDATE charter SET name = ?, start_date = ?, end_date = ?, location = ?, yacht_name = ?,
                        charter_company = ?, notes = ?
                    WHERE id = ?
                    """,
                arguments: [
                    charter.name, charter.startDate.description, charter.endDate?.description, charter.location,
                    charter.yachtName, charter.charterCompany, charter.notes, id.uuidString,
                ])
            return charter
        }
    }

    /// Archives a charter: it stays, with its checklist runs, but is never active. Archiving an
    /// archived charter changes nothing.
    @discardableResult
    public func archiveCharter(id: UUID, at time: Date) throws(ProgressStoreError) -> Charter {
        try write { db in
            try db.execute(
                sql: "UPDATE charter SET archived_ms = ? WHERE id = ? AND archived_ms IS NULL",
                arguments: [Self.milliseconds(time), id.uuidString])
            guard let charter = try Self.charter(id: id, db) else {
                throw ProgressStoreError.noCharter(id: id.uuidString)
            }
            return charter
        }
    }

    /// Brings an archived charter back.
    @discardableResult
    public func unarchiveCharter(id: UUID) throws(ProgressStoreError) -> Charter {
        try write { db in
            try db.execute(sql: "UPDATE charter SET archived_ms = NULL WHERE id = ?", arguments: [id.uuidString])
            guard let charter = try Self.charter(id: id, db) else {
                throw ProgressStoreError.noCharter(id: id.uuidString)
            }
            return charter
        }
    }

    /// Deletes a charter and its checklist runs (the checklist event log keeps its history).
    public func deleteCharter(id: UUID) throws(ProgressStoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM charter WHERE id = ?", arguments: [id.uuidString])
            guard db.changesCount > 0 else { throw ProgressStoreError.noCharter(id: id.uuidString) }
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

    static func charter(id: UUID, _ db: Database) throws -> Charter? {
        try Row.fetchOne(db, sql: "SELECT * FROM charter WHERE id = ?", arguments: [id.uuidString]).map(charter)
    }

    static func insert(_ charter: Charter, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO charter (id, name, start_date, end_date, location, yacht_name, charter_company, notes, created_ms, archived_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                charter.id.uuidString, charter.name, charter.startDate.description, charter.endDate?.description,
                charter.location, charter.yachtName, charter.charterCompany, charter.notes,
                milliseconds(charter.createdAt), charter.archivedAt.map(milliseconds),
            ])
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
