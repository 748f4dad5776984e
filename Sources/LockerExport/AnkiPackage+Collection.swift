import Crypto
import Foundation
import GRDB
import LockerCore
import LockerKit

extension AnkiPackage {
    /// The tables of a schema 11 collection, as Anki's `rslib/src/storage/schema11.sql` makes them.
    private static let schema = """
        CREATE TABLE col (id integer PRIMARY KEY, crt integer NOT NULL, mod integer NOT NULL,
          scm integer NOT NULL, ver integer NOT NULL, dty integer NOT NULL, usn integer NOT NULL,
          ls integer NOT NULL, conf text NOT NULL, models text NOT NULL, decks text NOT NULL,
          dconf text NOT NULL, tags text NOT NULL);
        CREATE TABLE notes (id integer PRIMARY KEY, guid text NOT NULL, mid integer NOT NULL,
          mod integer NOT NULL, usn integer NOT NULL, tags text NOT NULL, flds text NOT NULL,
          sfld integer NOT NULL, csum integer NOT NULL, flags integer NOT NULL, data text NOT NULL);
        CREATE TABLE cards (id integer PRIMARY KEY, nid integer NOT NULL, did integer NOT NULL,
          ord integer NOT NULL, mod integer NOT NULL, usn integer NOT NULL, type integer NOT NULL,
          queue integer NOT NULL, due integer NOT NULL, ivl integer NOT NULL, factor integer NOT NULL,
          reps integer NOT NULL, lapses integer NOT NULL, left integer NOT NULL, odue integer NOT NULL,
          odid integer NOT NULL, flags integer NOT NULL, data text NOT NULL);
        CREATE TABLE revlog (id integer PRIMARY KEY, cid integer NOT NULL, usn integer NOT NULL,
          ease integer NOT NULL, ivl integer NOT NULL, lastIvl integer NOT NULL, factor integer NOT NULL,
          time integer NOT NULL, type integer NOT NULL);
        CREATE TABLE graves (usn integer NOT NULL, oid integer NOT NULL, type integer NOT NULL);
        CREATE INDEX ix_notes_usn ON notes (usn);
        CREATE INDEX ix_cards_usn ON cards (usn);
        CREATE INDEX ix_revlog_usn ON revlog (usn);
        CREATE INDEX ix_cards_nid ON cards (nid);
        CREATE INDEX ix_cards_sched ON cards (did, queue, due);
        CREATE INDEX ix_revlog_cid ON revlog (cid);
        CREATE INDEX ix_notes_csum ON notes (csum);
        """

    /// The bytes of `collection.anki2`: written to a file in a folder of its own (SQLite needs a
    /// file), read back, and the folder removed.
    func collectionData() throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-anki-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("collection.anki2")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            // The rollback journal, not WAL: the file alone holds the whole database when it closes.
            let queue = try DatabaseQueue(path: file.path)
            try queue.write { db in try fill(db) }
            try queue.close()
            return try Data(contentsOf: file)
        } catch {
            throw LockerError.io("\(file.path): cannot write the Anki collection: \(error)")
        }
    }

    private func fill(_ db: Database) throws {
        // Anki counts IDs and `mod` in milliseconds here, in seconds elsewhere.
        let milliseconds = contentTime * 1000
        try db.execute(sql: Self.schema)
        try db.execute(
            sql: "INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, '{}')",
            arguments: [
                contentTime, milliseconds, milliseconds, json(configuration), json(notetypes), json(deckObjects),
                json(Self.deckOptions),
            ])
        let insertNote = try db.makeStatement(sql: "INSERT INTO notes VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, 0, '')")
        let insertCard = try db.makeStatement(
            sql: "INSERT INTO cards VALUES (?, ?, ?, ?, ?, 0, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0, '')")
        var cardID = milliseconds
        for (offset, note) in notes.enumerated() {
            // IDs are creation times to Anki: the content's, one millisecond apart.
            let noteID = milliseconds + offset + 1
            let tags = note.tags.isEmpty ? "" : " " + note.tags.joined(separator: " ") + " "
            try insertNote.execute(arguments: [
                noteID, note.guid, note.notetype.id, contentTime, tags, note.fields.joined(separator: "\u{1F}"),
                note.sortText, Self.checksum(note.sortText),
            ])
            for ord in note.notetype.templates.indices {
                cardID += 1
                // `due` of a new card is its place in the queue: the note's, for both its cards.
                try insertCard.execute(arguments: [cardID, noteID, note.deckID, ord, contentTime, offset + 1])
            }
        }
    }

    /// Anki's duplicate check: the first 8 hex digits of the SHA-1 of the first field's text.
    static func checksum(_ text: String) -> Int {
        Insecure.SHA1.hash(data: Data(text.utf8)).prefix(4).reduce(0) { $0 << 8 | Int($1) }
    }

    /// `col.conf`: the defaults of a new collection, the v2 scheduler, the first note type current.
    private var configuration: JSONValue {
        .object([
            "activeDecks": .array([.int(1)]), "addToCur": .bool(true), "collapseTime": .int(1200), "curDeck": .int(1),
            "curModel": .int(AnkiNotetype.basic.id), "dueCounts": .bool(true), "estTimes": .bool(true),
            "newBury": .bool(true), "newSpread": .int(0), "nextPos": .int(notes.count + 1), "schedVer": .int(2),
            "sortBackwards": .bool(false), "sortType": .string("noteFld"), "timeLim": .int(0),
        ])
    }

    /// `col.models`: both note types, whichever the notes use, by ID.
    private var notetypes: JSONValue {
        let deckID = decks.first?.id ?? 1
        return .object(
            Dictionary(
                uniqueKeysWithValues: [AnkiNotetype.basic, AnkiNotetype.reversed].map {
                    (String($0.id), $0.json(deckID: deckID, modified: contentTime))
                }))
    }

    /// `col.decks`: Anki's `Default` (every collection has it) and the export's decks, by ID.
    private var deckObjects: JSONValue {
        var objects: [String: JSONValue] = ["1": deck(id: 1, name: "Default", description: "")]
        for entry in decks {
            objects[String(entry.id)] = deck(id: entry.id, name: entry.name, description: entry.description)
        }
        return .object(objects)
    }

    private func deck(id: Int, name: String, description: String) -> JSONValue {
        let today = JSONValue.array([.int(0), .int(0)])
        return .object([
            "id": .int(id), "name": .string(name), "desc": .string(description), "mod": .int(contentTime),
            "usn": .int(0), "collapsed": .bool(false), "browserCollapsed": .bool(false), "conf": .int(1),
            "dyn": .int(0), "extendNew": .int(0), "extendRev": .int(0), "lrnToday": today, "newToday": today,
            "revToday": today, "timeToday": today,
        ])
    }

    /// `col.dconf`: Anki's default options group, which every deck of the package uses.
    private static let deckOptions: JSONValue = .object([
        "1": .object([
            "id": .int(1), "name": .string("Default"), "mod": .int(0), "usn": .int(0), "maxTaken": .int(60),
            "autoplay": .bool(true), "timer": .int(0), "replayq": .bool(true), "dyn": .bool(false),
            "new": .object([
                "bury": .bool(true), "delays": .array([.int(1), .int(10)]), "initialFactor": .int(2500),
                "ints": .array([.int(1), .int(4), .int(7)]), "order": .int(1), "perDay": .int(20),
                "separate": .bool(true),
            ]),
            "rev": .object([
                "bury": .bool(true), "ease4": .double(1.3), "fuzz": .double(0.05), "ivlFct": .int(1),
                "maxIvl": .int(36500), "minSpace": .int(1), "perDay": .int(200),
            ]),
            "lapse": .object([
                "delays": .array([.int(10)]), "leechAction": .int(1), "leechFails": .int(8), "minInt": .int(1),
                "mult": .int(0),
            ]),
        ])
    ])

    /// Canonical JSON on one line: the same value, the same bytes.
    private func json(_ value: JSONValue) -> String {
        var text = String(decoding: CanonicalJSON.data(for: value, layout: .compact), as: UTF8.self)
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
