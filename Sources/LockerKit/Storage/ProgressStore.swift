import Foundation
import GRDB

/// A sailor's progress in one SQLite file: card states and the review log, charters, and the
/// checklist runs of each charter.
///
/// - Every change is one transaction, committed with `synchronous = FULL` in WAL mode: once a
///   method returns, the change survives the process being killed (and a power cut).
/// - Writes carry an event UUID; writing an event whose UUID is already stored changes nothing, so
///   a retried or replayed write is harmless.
/// - The logs (`review_event`, `checklist_event`) are append-only: triggers refuse updates and deletes.
/// - The schema is versioned with migrations; a file from a newer version is refused, not damaged.
///
/// A store is safe to use from several threads and tasks; reads run concurrently with writes.
public final class ProgressStore: Sendable {
    /// The database file; `:memory:` for a store in memory.
    public let path: String
    let pool: any DatabaseWriter

    /// Opens the database at `path`, creating it (and running migrations) as needed.
    public convenience init(path: String) throws(ProgressStoreError) {
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: Self.configuration)
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
        try self.init(pool, path: path)
    }

    /// A store in memory, gone when released: for previews, tests and simulations.
    public static func inMemory() throws(ProgressStoreError) -> ProgressStore {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(configuration: Self.configuration)
        } catch {
            throw .cannotOpen(path: ":memory:", reason: Self.reason(error))
        }
        return try ProgressStore(queue, path: ":memory:")
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        return configuration
    }

    private init(_ pool: any DatabaseWriter, path: String) throws(ProgressStoreError) {
        self.path = path
        self.pool = pool
        let migrator = Self.migrator
        do {
            let superseded = try pool.read { db in try migrator.hasBeenSuperseded(db) }
            if superseded { throw ProgressStoreError.newerSchema(path: path) }
            try migrator.migrate(pool)
        } catch let error as ProgressStoreError {
            throw error
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
    }

    /// The result of SQLite's `PRAGMA integrity_check`: `["ok"]` for a sound file.
    public func integrityCheck() throws(ProgressStoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// SQLite's journal mode and synchronous level as the store's connections run: `wal` and
    /// 2 (`FULL`), so a committed change survives a crash or a power cut.
    public func durability() throws(ProgressStoreError) -> (journalMode: String, synchronous: Int) {
        try read { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
            let level = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            return (mode, level)
        }
    }

    // MARK: - Schema

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE card (
                        key TEXT PRIMARY KEY NOT NULL,
                        deck_id TEXT NOT NULL,
                        card_id TEXT NOT NULL,
                        repetitions INTEGER NOT NULL,
                        ease INTEGER NOT NULL,
                        interval INTEGER NOT NULL,
                        due TEXT,
                        last_reviewed TEXT,
                        introduced TEXT,
                        reviews INTEGER NOT NULL,
                        lapses INTEGER NOT NULL
                    );
                    CREATE TABLE review_event (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        kind TEXT NOT NULL CHECK (kind IN ('review', 'undo')),
                        card_key TEXT NOT NULL,
                        deck_id TEXT NOT NULL,
                        card_id TEXT NOT NULL,
                        grade INTEGER NOT NULL,
                        time_ms INTEGER NOT NULL,
                        day TEXT NOT NULL,
                        previous TEXT NOT NULL,
                        next TEXT NOT NULL,
                        undoes TEXT
                    );
                    CREATE INDEX review_event_card ON review_event (card_key, seq);
                    CREATE UNIQUE INDEX review_event_undoes ON review_event (undoes) WHERE undoes IS NOT NULL;
                    CREATE TRIGGER review_event_no_update BEFORE UPDATE ON review_event
                        BEGIN SELECT RAISE(ABORT, 'review_event is append-only'); END;
                    CREATE TRIGGER review_event_no_delete BEFORE DELETE ON review_event
                        BEGIN SELECT RAISE(ABORT, 'review_event is append-only'); END;

                    CREATE TABLE charter (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        start_date TEXT NOT NULL,
                        end_date TEXT,
                        location TEXT,
                        yacht_name TEXT,
                        charter_company TEXT,
                        notes TEXT,
                        created_ms INTEGER NOT NULL,
                        archived_ms INTEGER
                    );
                    CREATE TABLE checklist_run (
                        charter_id TEXT NOT NULL REFERENCES charter (id) ON DELETE CASCADE,
                        checklist_id TEXT NOT NULL,
                        item_ids TEXT NOT NULL,
                        PRIMARY KEY (charter_id, checklist_id)
                    );
                    CREATE TABLE checklist_item (
                        charter_id TEXT NOT NULL,
                        checklist_id TEXT NOT NULL,
                        item_id TEXT NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('unchecked', 'checked', 'notApplicable')),
                        changed_ms INTEGER,
                        note TEXT,
                        PRIMARY KEY (charter_id, checklist_id, item_id),
                        FOREIGN KEY (charter_id, checklist_id) REFERENCES checklist_run (charter_id, checklist_id)
                            ON DELETE CASCADE
                    );
                    CREATE TABLE checklist_event (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        charter_id TEXT NOT NULL,
                        checklist_id TEXT NOT NULL,
                        item_id TEXT NOT NULL,
                        state TEXT NOT NULL,
                        note TEXT,
                        time_ms INTEGER NOT NULL
                    );
                    CREATE TRIGGER checklist_event_no_update BEFORE UPDATE ON checklist_event
                        BEGIN SELECT RAISE(ABORT, 'checklist_event is append-only'); END;
                    CREATE TRIGGER checklist_event_no_delete BEFORE DELETE ON checklist_event
                        BEGIN SELECT RAISE(ABORT, 'checklist_event is append-only'); END;
                    """)
        }
        // The items a run last saw, per locale: a reader who switches language is not told that
        // the checklist changed because its translations differ (an item not translated yet).
        // A run's list from before is taken by the first locale that opens the run.
        migrator.registerMigration("v2-seen-per-locale") { db in
            try db.execute(
                sql: """
                    CREATE TABLE checklist_seen (
                        charter_id TEXT NOT NULL,
                        checklist_id TEXT NOT NULL,
                        locale TEXT NOT NULL,
                        item_ids TEXT NOT NULL,
                        PRIMARY KEY (charter_id, checklist_id, locale),
                        FOREIGN KEY (charter_id, checklist_id) REFERENCES checklist_run (charter_id, checklist_id)
                            ON DELETE CASCADE
                    );
                    INSERT INTO checklist_seen (charter_id, checklist_id, locale, item_ids)
                        SELECT charter_id, checklist_id, '', item_ids FROM checklist_run;
                    ALTER TABLE checklist_run DROP COLUMN item_ids;
                    """)
        }
        // Steps and FSRS, and events that merge across devices:
        // - a card's phase, step, due moment and FSRS memory;
        // - the scheduling setting; a store that has reviews keeps the SM-2 without steps that
        //   made its states, until an app chooses otherwise;
        // - an undo per device: two devices may undo the same review;
        // - which reviews came from another device: "undo last" takes back this device's own;
        // - which fields a checklist event sets, so a tick and a note made apart both survive;
        // - a charter log, begun with the charters there are.
        migrator.registerMigration("v3-scheduling-and-merging") { db in
            try db.execute(
                sql: """
                    ALTER TABLE card ADD COLUMN phase TEXT CHECK (phase IN ('new', 'learning', 'review', 'relearning'));
                    ALTER TABLE card ADD COLUMN step INTEGER;
                    ALTER TABLE card ADD COLUMN due_ms INTEGER;
                    ALTER TABLE card ADD COLUMN stability REAL;
                    ALTER TABLE card ADD COLUMN difficulty REAL;
                    CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    DROP INDEX review_event_undoes;
                    CREATE INDEX review_event_undoes ON review_event (undoes) WHERE undoes IS NOT NULL;
                    CREATE INDEX review_event_order ON review_event (card_key, time_ms, id);
                    ALTER TABLE review_event ADD COLUMN merged INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE checklist_event ADD COLUMN sets TEXT NOT NULL DEFAULT 'both'
                        CHECK (sets IN ('state', 'note', 'both'));
                    CREATE INDEX checklist_event_item ON checklist_event (charter_id, checklist_id, item_id, time_ms);
                    CREATE TABLE charter_event (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        charter_id TEXT NOT NULL,
                        action TEXT NOT NULL CHECK (action IN ('create', 'update', 'archive', 'unarchive', 'delete')),
                        fields TEXT,
                        time_ms INTEGER NOT NULL
                    );
                    CREATE INDEX charter_event_charter ON charter_event (charter_id, time_ms);
                    CREATE TRIGGER charter_event_no_update BEFORE UPDATE ON charter_event
                        BEGIN SELECT RAISE(ABORT, 'charter_event is append-only'); END;
                    CREATE TRIGGER charter_event_no_delete BEFORE DELETE ON charter_event
                        BEGIN SELECT RAISE(ABORT, 'charter_event is append-only'); END;
                    """)
            // Saved in every store, so a later default does not change a store's schedule.
            let reviewed = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM review_event)") == true
            try db.execute(
                sql: "INSERT INTO setting (key, value) VALUES ('scheduling', ?)",
                arguments: [try json(reviewed ? Scheduling.classicSM2 : Scheduling())])
            // Events were ordered by when they were written; now by their times. Where a card's or
            // an item's times tie or go back (`--today` stamps every change at noon; a clock set
            // back), they are moved on by a millisecond each, so the order stays the one written.
            // What those events give is then stored again (a state's `changedAt`).
            for key in try restamp("review_event", by: ["card_key"], db) {
                try refold(cardKey: key[0], scheduling: try scheduling(db), db)
            }
            for key in try restamp("checklist_event", by: ["charter_id", "checklist_id", "item_id"], db) {
                guard let charterID = UUID(uuidString: key[0]), try charter(id: charterID, db) != nil else { continue }
                try refoldItem(charterID: charterID, checklistID: key[1], itemID: key[2], db)
            }
            for charter in try Row.fetchAll(db, sql: "SELECT * FROM charter").map(charter) {
                try appendCharterEvent(
                    id: UUID(), charterID: charter.id, action: .create(charter.draft), time: charter.createdAt, db)
                if let archivedAt = charter.archivedAt {
                    try appendCharterEvent(id: UUID(), charterID: charter.id, action: .archive, time: archivedAt, db)
                }
            }
        }
        return migrator
    }

    /// Gives each group's events strictly rising times in the order they were written (`seq`),
    /// with the log's no-update trigger lifted for the migration; returns the groups it changed.
    private static func restamp(_ table: String, by columns: [String], _ db: Database) throws -> Set<[String]> {
        var latest: [[String]: Int64] = [:]
        var moves: [(seq: Int64, time: Int64)] = []
        var moved: Set<[String]> = []
        let rows = try Row.fetchCursor(
            db, sql: "SELECT seq, time_ms, \(columns.joined(separator: ", ")) FROM \(table) ORDER BY seq")
        while let row = try rows.next() {
            let key = try columns.map { try row.decode(String.self, forColumn: $0) }
            var time = try row.decode(Int64.self, forColumn: "time_ms")
            if let last = latest[key], time <= last, last < Int64.max {
                time = last + 1
                moves.append((try row.decode(Int64.self, forColumn: "seq"), time))
                moved.insert(key)
            }
            latest[key] = time
        }
        guard !moves.isEmpty else { return [] }
        try db.execute(sql: "DROP TRIGGER \(table)_no_update")
        for move in moves {
            try db.execute(sql: "UPDATE \(table) SET time_ms = ? WHERE seq = ?", arguments: [move.time, move.seq])
        }
        try db.execute(
            sql: """
                CREATE TRIGGER \(table)_no_update BEFORE UPDATE ON \(table)
                    BEGIN SELECT RAISE(ABORT, '\(table) is append-only'); END;
                """)
        return moved
    }

    // MARK: - Helpers

    /// Runs `body` in one write transaction, mapping errors.
    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(ProgressStoreError) -> T {
        do {
            return try pool.write(body)
        } catch let error as ProgressStoreError {
            throw error
        } catch {
            throw .database(reason: Self.reason(error))
        }
    }

    /// Runs `body` in a read transaction, mapping errors.
    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(ProgressStoreError) -> T {
        do {
            return try pool.read(body)
        } catch let error as ProgressStoreError {
            throw error
        } catch {
            throw .database(reason: Self.reason(error))
        }
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? error.description }
        return String(describing: error)
    }

    static func milliseconds(_ date: Date) -> Int64 { Milliseconds.of(date) }

    static func date(milliseconds: Int64) -> Date { Milliseconds.date(milliseconds) }

    static func day(_ text: String?, _ what: String) throws -> LocalDay? {
        guard let text else { return nil }
        guard let day = LocalDay(text) else {
            throw ProgressStoreError.corrupt(reason: "\(what) is not a day: \(text)")
        }
        return day
    }
}
