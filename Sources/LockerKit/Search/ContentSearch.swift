import Foundation
import GRDB

/// Full-text search over a bundle's guides (down to their sections), checklists (down to their
/// items) and decks (down to their cards), in every locale, ranked by BM25, with a highlighted
/// snippet and the target of each hit.
///
/// ```swift
/// let search = try ContentSearch(path: cachesFolder.appendingPathComponent("search.sqlite").path)
/// try search.update(from: bundle)              // after each activation: re-indexes what changed
/// let hits = try search.search("якорем", locale: "ru")
/// let url = bundle.linkFormat.appURL(for: hits[0].target)
/// ```
///
/// The index is an SQLite FTS5 table in a file of its own, apart from ``ProgressStore``'s: it is
/// made from the bundle and can be made again at any time, so it belongs in a cache folder that
/// the system may empty and that is not backed up or synced, while progress is the reader's own
/// data. Words are stemmed with Snowball's Russian and English stemmers (``SearchTokenizer``).
/// A hit is shown to a reader of a locale when the document's version in that locale is the one
/// the reader reads: a translation, or the default locale's version where there is none.
public final class ContentSearch: Sendable {
    private let database: any DatabaseWriter

    /// How words become terms; the choice is measured in the relevance tests.
    enum Stemming: String, CaseIterable, Sendable {
        /// Snowball, Russian or English by script (``SearchTokenizer``).
        case snowball
        /// Words as they are (`unicode61`).
        case none
        /// FTS5's Porter stemmer: English only.
        case porter
        /// FTS5's trigram tokenizer: substrings of three characters.
        case trigram

        var tokenizer: String {
            switch self {
            case .snowball: SearchTokenizer.name
            case .none: "unicode61 remove_diacritics 0"
            case .porter: "porter unicode61 remove_diacritics 0"
            case .trigram: "trigram"
            }
        }
    }

    /// Bumped when the table or the terms change: an index of another version is made again.
    static let schemaVersion = 2

    /// Opens the index at `path`, creating it as needed; `nil`, an index in memory.
    public convenience init(path: String?) throws(ContentSearchError) {
        try self.init(path: path, stemming: .snowball)
    }

    init(path: String?, stemming: Stemming) throws(ContentSearchError) {
        var configuration = Configuration()
        configuration.prepareDatabase { db in db.add(tokenizer: SearchTokenizer.self) }
        do {
            database =
                if let path { try DatabasePool(path: path, configuration: configuration) } else {
                    try DatabaseQueue(configuration: configuration)
                }
            // The user version holds the schema version and the stemming: another, and the index is made anew.
            let version = Self.schemaVersion * 16 + (Stemming.allCases.firstIndex(of: stemming) ?? 0)
            try database.write { db in
                guard try Int.fetchOne(db, sql: "PRAGMA user_version") != version else { return }
                try db.execute(
                    sql: """
                        DROP TABLE IF EXISTS entry;
                        DROP TABLE IF EXISTS document;
                        DROP TABLE IF EXISTS reader;
                        CREATE VIRTUAL TABLE entry USING fts5(
                            title, context, body,
                            kind UNINDEXED, document UNINDEXED, uuid UNINDEXED, locale UNINDEXED,
                            readers UNINDEXED, doc_title UNINDEXED, part UNINDEXED, part_value UNINDEXED,
                            part_uuid UNINDEXED,
                            tokenize = '\(stemming.tokenizer)'
                        );
                        CREATE TABLE document (
                            kind TEXT NOT NULL, id TEXT NOT NULL, locale TEXT NOT NULL,
                            sha256 TEXT NOT NULL, readers TEXT NOT NULL,
                            first_entry INTEGER NOT NULL, last_entry INTEGER NOT NULL,
                            PRIMARY KEY (kind, id, locale)
                        );
                        CREATE TABLE reader (
                            locale TEXT PRIMARY KEY NOT NULL,
                            is_default INTEGER NOT NULL
                        );
                        INSERT INTO entry (entry, rank) VALUES ('rank', 'bm25(\(Self.weights.title), \(Self.weights.context), \(Self.weights.body))');
                        PRAGMA user_version = \(version);
                        """)
            }
        } catch {
            throw .cannotOpen(path: path ?? ":memory:", reason: ProgressStore.reason(error))
        }
    }

    // MARK: - Indexing

    /// Brings the index to `bundle`: indexes the documents that are new or whose file changed (by
    /// its SHA-256), or whose readers changed (a translation added or removed), and removes those
    /// that are gone. One transaction: a search sees the index before or after, never between.
    @discardableResult
    public func update(from bundle: ContentBundle) throws(ContentSearchError) -> SearchIndexUpdate {
        // What the bundle holds: each version of each document, and the locales that read it.
        var wanted: [Version: (sha256: String, readers: String)] = [:]
        let readerLocales = bundle.openedLocales ?? bundle.locales
        for kind in ContentKind.known {
            for id in bundle.ids(of: kind) {
                for locale in bundle.locales(of: kind, id: id) {
                    guard let file = bundle.file(of: kind, id: id, locale: locale) else { continue }
                    let readers = readerLocales.filter { bundle.resolvedLocale(of: kind, id: id, for: $0) == locale }
                    guard !readers.isEmpty else { continue }
                    wanted[Version(kind: kind, id: id, locale: locale)] = (
                        file.sha256, " " + readers.joined(separator: " ") + " "
                    )
                }
            }
        }
        let stored: [Version: StoredVersion]
        do {
            stored = try database.read(Self.storedVersions)
        } catch {
            throw .database(reason: ProgressStore.reason(error))
        }
        let changed = wanted.filter { version, wanted in
            guard let old = stored[version] else { return true }
            return old.sha256 != wanted.sha256 || old.readers != wanted.readers
        }
        .keys.sorted { ($0.kind, $0.id, $0.locale) < ($1.kind, $1.id, $1.locale) }
        let removed = stored.keys.filter { wanted[$0] == nil || changed.contains($0) }
        // Decoded on every core: the write transaction holds only the inserts.
        let documents = try Self.entries(of: changed, in: bundle)
        do {
            try database.write { db in
                // Another update may have written since `stored` was read: its ranges are gone
                // and its rows are not in `stored`. Act on what the index holds now.
                try db.execute(sql: "DELETE FROM reader")
                for locale in readerLocales {
                    try db.execute(
                        sql: "INSERT INTO reader (locale, is_default) VALUES (?, ?)",
                        arguments: [locale, locale == bundle.defaultLocale])
                }
                let current = try Self.storedVersions(db)
                let decoded = Set(documents.map(\.version))
                func isCurrent(_ version: Version) -> Bool {
                    guard let old = current[version], let new = wanted[version] else { return false }
                    return old.sha256 == new.sha256 && old.readers == new.readers
                }
                for (version, old) in current
                where wanted[version] == nil || (decoded.contains(version) && !isCurrent(version)) {
                    try db.execute(
                        sql: "DELETE FROM entry WHERE rowid BETWEEN ? AND ?", arguments: [old.first, old.last])
                    try db.execute(
                        sql: "DELETE FROM document WHERE kind = ? AND id = ? AND locale = ?",
                        arguments: [version.kind.rawValue, version.id, version.locale])
                }
                let insert = try db.makeStatement(
                    sql: """
                        INSERT INTO entry (title, context, body, kind, document, uuid, locale, readers, doc_title,
                            part, part_value, part_uuid)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for document in documents where !isCurrent(document.version) {
                    let (version, entries, title, uuid) = (
                        document.version, document.entries, document.title, document.uuid
                    )
                    guard let readers = wanted[version]?.readers, let sha256 = wanted[version]?.sha256 else { continue }
                    var first: Int64?
                    for entry in entries {
                        try insert.execute(arguments: [
                            entry.title, entry.context, entry.body, version.kind.rawValue, version.id, uuid,
                            version.locale, readers, title, entry.part?.name, entry.part?.value, entry.partUUID,
                        ])
                        if first == nil { first = db.lastInsertedRowID }
                    }
                    try db.execute(
                        sql: """
                            INSERT INTO document (kind, id, locale, sha256, readers, first_entry, last_entry)
                            VALUES (?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            version.kind.rawValue, version.id, version.locale, sha256, readers,
                            first ?? 0, first == nil ? -1 : db.lastInsertedRowID,
                        ])
                }
            }
        } catch {
            throw .database(reason: ProgressStore.reason(error))
        }
        let gone = removed.filter { wanted[$0] == nil }.count
        return SearchIndexUpdate(indexed: changed.count, removed: gone, kept: wanted.count - changed.count)
    }

    /// What the index holds: each version's file hash, readers and rowid range.
    private static func storedVersions(_ db: Database) throws -> [Version: StoredVersion] {
        var stored: [Version: StoredVersion] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM document") {
            // Decoded with errors, not trapping on a value of the wrong type in a damaged file.
            let version = Version(
                kind: ContentKind(rawValue: try row.decode(String.self, forColumn: "kind")),
                id: try row.decode(String.self, forColumn: "id"),
                locale: try row.decode(String.self, forColumn: "locale"))
            stored[version] = StoredVersion(
                sha256: try row.decode(String.self, forColumn: "sha256"),
                readers: try row.decode(String.self, forColumn: "readers"),
                first: try row.decode(Int64.self, forColumn: "first_entry"),
                last: try row.decode(Int64.self, forColumn: "last_entry"))
        }
        return stored
    }

    /// The entries of each version, decoded on every core, in order.
    private static func entries(of versions: [Version], in bundle: ContentBundle) throws(ContentSearchError)
        -> [IndexedDocument]
    {
        let results = ConcurrentResults(count: versions.count)
        let chunk = 16
        DispatchQueue.concurrentPerform(iterations: (versions.count + chunk - 1) / chunk) { index in
            let range = index * chunk..<min(versions.count, (index + 1) * chunk)
            do throws(BundleError) {
                let documents = try versions[range].map { version throws(BundleError) in
                    let (entries, title, uuid) = try entries(
                        of: version.kind, id: version.id, locale: version.locale, in: bundle)
                    return IndexedDocument(version: version, entries: entries, title: title, uuid: uuid)
                }
                results.lock.withLock { results.documents.replaceSubrange(range, with: documents.map { $0 }) }
            } catch {
                results.lock.withLock { results.error = results.error ?? error }
            }
        }
        if let error = results.error { throw .unreadable(error) }
        return results.documents.compactMap { $0 }
    }

    private static func entries(
        of kind: ContentKind, id: String, locale: String, in bundle: ContentBundle
    ) throws(BundleError) -> ([SearchEntry], title: String, uuid: String) {
        switch kind {
        case .guide:
            let guide: Guide = try bundle.version(kind: kind, id: id, locale: locale)
            return (SearchEntry.entries(of: guide), guide.title, guide.uuid)
        case .checklist:
            let checklist: Checklist = try bundle.version(kind: kind, id: id, locale: locale)
            return (SearchEntry.entries(of: checklist), checklist.title, checklist.uuid)
        case .deck:
            let deck: Deck = try bundle.version(kind: kind, id: id, locale: locale)
            return (SearchEntry.entries(of: deck), deck.title, deck.uuid)
        default:
            return ([], "", "")
        }
    }

    // MARK: - Searching

    /// The hits for `query` that a reader of `locale` sees (every locale's when `nil`), best
    /// first: every word must match, in any form; when no entry has them all, any may. A locale
    /// the bundle does not have reads the default locale's versions, as ``ContentBundle`` does.
    ///
    /// The query is read as words (letters and digits): quotes, operators and other FTS5 syntax
    /// in it are text, never syntax.
    public func search(
        _ query: String, locale: String? = nil, kinds: Set<ContentKind>? = nil, limit: Int = 20
    ) throws(ContentSearchError) -> [SearchHit] {
        // At most 64 words: a pasted page is not a query, and each word is a phrase to match.
        let words = query.split { !($0.isLetter || $0.isNumber) }.prefix(Self.maximumWords).map { "\"" + $0 + "\"" }
        guard !words.isEmpty, limit > 0 else { return [] }
        var hits = try run(words.joined(separator: " "), locale: locale, kinds: kinds, limit: limit)
        if hits.isEmpty, words.count > 1 {
            hits = try run(words.joined(separator: " OR "), locale: locale, kinds: kinds, limit: limit)
        }
        return hits
    }

    /// The words of a query that are searched for; the rest are left out.
    public static let maximumWords = 64

    /// Weights of the title, context and body columns in BM25.
    static let weights = (title: 4.0, context: 1.0, body: 1.0)

    private func run(
        _ match: String, locale: String?, kinds: Set<ContentKind>?, limit: Int
    ) throws(ContentSearchError) -> [SearchHit] {
        var sql = """
            SELECT kind, document, uuid, locale, doc_title, part, part_value, part_uuid, title,
                snippet(entry, -1, char(2), char(3), '…', 16) AS snippet, rank AS score
            FROM entry WHERE entry MATCH ?
            """
        var arguments: StatementArguments = [match]
        if let locale {
            // The reader's locale if the index has it, else the default, else the first it has.
            sql += """
                 AND instr(readers, ' ' || coalesce(
                    (SELECT locale FROM reader WHERE locale = ?),
                    (SELECT locale FROM reader ORDER BY is_default DESC, rowid LIMIT 1), '') || ' ') > 0
                """
            arguments += [locale]
        }
        if let kinds {
            sql += " AND kind IN (\(kinds.map { _ in "?" }.joined(separator: ", ")))"
            arguments += StatementArguments(kinds.map(\.rawValue).sorted())
        }
        // By `rank` alone, FTS5 hands the rows over in order, so the snippets are made for the
        // rows returned only, not for every match (hundreds of milliseconds for a common word).
        sql += " ORDER BY rank LIMIT ?"
        arguments += [limit]
        do {
            return try database.read { db in
                try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.hit)
            }
        } catch {
            throw .database(reason: ProgressStore.reason(error))
        }
    }

    private static func hit(_ row: Row) throws -> SearchHit {
        func text(_ column: String) throws -> String { try row.decode(String.self, forColumn: column) }
        let value = try row.decode(String?.self, forColumn: "part_value") ?? ""
        let part: ContentLink.Part? =
            switch try row.decode(String?.self, forColumn: "part") {
            case "section": .section(anchor: value)
            case "item": .item(id: value)
            case "card": .card(id: value)
            default: nil
            }
        let target = ContentTarget(
            kind: ContentKind(rawValue: try text("kind")), id: try text("document"), uuid: try text("uuid"),
            locale: try text("locale"), title: try text("doc_title"), part: part,
            partTitle: part == nil ? nil : try text("title"),
            partUUID: try row.decode(String?.self, forColumn: "part_uuid"))
        return SearchHit(
            target: target, snippet: HighlightedText(marked: try row.decode(String?.self, forColumn: "snippet") ?? ""),
            score: try row.decode(Double.self, forColumn: "score"))
    }

    /// The index file's size in bytes, with its write-ahead log; 0 in memory.
    public func size() throws(ContentSearchError) -> Int {
        do {
            return try database.read { db in
                let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                return pages * size
            }
        } catch {
            throw .database(reason: ProgressStore.reason(error))
        }
    }
}

/// What ``ContentSearch/update(from:)`` did, in documents (one version of one document each).
public struct SearchIndexUpdate: Hashable, Sendable {
    /// New, changed, or read by other locales than before.
    public var indexed: Int
    /// No longer in the bundle.
    public var removed: Int
    /// Unchanged.
    public var kept: Int

    public init(indexed: Int, removed: Int, kept: Int) {
        self.indexed = indexed
        self.removed = removed
        self.kept = kept
    }
}

/// One version of one document: what the index holds a row of `document` for.
private struct Version: Hashable, Sendable {
    var kind: ContentKind
    var id: String
    var locale: String
}

/// A row of `document`.
private struct StoredVersion {
    var sha256: String
    var readers: String
    var first: Int64
    var last: Int64
}

/// A version and its entries, ready to insert.
private struct IndexedDocument: Sendable {
    var version: Version
    var entries: [SearchEntry]
    var title: String
    var uuid: String
}

/// What the threads decoding documents hand back.
private final class ConcurrentResults: @unchecked Sendable {
    let lock = NSLock()
    var documents: [IndexedDocument?]
    var error: BundleError?
    init(count: Int) { documents = Array(repeating: nil, count: count) }
}
