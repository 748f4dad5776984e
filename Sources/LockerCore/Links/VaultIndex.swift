import Foundation
import LockerKit

/// Every way a link can name a note or a file: by path, by file name, by alias.
///
/// Keys are NFC. Each table has an exact and a lowercased form, for Obsidian's case-insensitive
/// fallback. A note with a locale suffix (`check-in.ru.md`) is also known by its base name.
///
/// A build that links every note builds the note tables at once. A rebuild that links a few
/// notes, the rest kept from the previous build, asks a few questions: it answers them by
/// looking at every note, and builds the tables only once it has asked enough that they are
/// worth building (``DeferredNoteTables``). Both ways give the same notes in the same order.
struct VaultIndex: Sendable {
    private(set) var notes: [ParsedNote]
    /// The note tables, when built at once.
    private var tables: NoteTables?
    /// The note tables built on demand, when not built at once.
    private var deferred: DeferredNoteTables?
    let assets: Set<String>
    /// Reads the notes kept unread (``ParsedNote/isHollow``) when their text is needed.
    var loader: NoteLoader?
    private var assetsByLowercasedPath: [String: [String]] = [:]
    private var assetsByName: [String: [String]] = [:]
    private var assetsByLowercasedName: [String: [String]] = [:]

    /// What a link resolves to: a kind and an ID, shared by every translation of a document.
    struct NoteIdentity: Sendable, Hashable {
        var kind: ContentKind
        var id: String
    }

    /// The tables over `notes` and `assets`.
    ///
    /// - Parameter scanningFirst: whether few notes will be linked: the note tables are then
    ///   built only when the questions answered by looking at every note grow too many.
    init(notes: [ParsedNote], assets: [String], scanningFirst: Bool = false) {
        self.notes = notes
        self.assets = Set(assets)
        if scanningFirst {
            deferred = DeferredNoteTables()
        } else {
            tables = NoteTables(notes: notes)
        }
        for asset in assets {
            assetsByLowercasedPath[asset.lowercased(), default: []].append(asset)
            let name = VaultPath.fileName(of: asset)
            assetsByName[name, default: []].append(asset)
            assetsByLowercasedName[name.lowercased(), default: []].append(asset)
        }
    }

    /// The note at `index` with its text: a note kept unread from the previous build, or whose
    /// text the build let go once its document was built, is read now.
    ///
    /// With a loader (a build that lets guides' trees go), the note returned holds its blocks
    /// and sections for as long as the caller holds it: the note in the tables may be let go by
    /// the thread that built it while this one reads it.
    func whole(_ index: Int) -> ParsedNote {
        let note = notes[index]
        guard let loader else { return note }
        if !note.isHollow, let held = note.holdingBody() { return held }
        return loader.whole(index, note)
    }

    /// The note at `index` with its title, headings and block IDs: a note kept unread from the
    /// previous build is read now.
    func outline(_ index: Int) -> ParsedNote {
        notes[index].isHollow ? whole(index) : notes[index]
    }

    func identity(of index: Int) -> NoteIdentity {
        NoteIdentity(kind: notes[index].kind, id: notes[index].id)
    }

    /// Candidates for a note path (no extension), exact case first.
    func notes(atPath path: String) -> [Int] {
        let key = path[...]
        if deferred != nil, let exact = scan(for: path, byName: false), !exact.isEmpty { return exact }
        let tables = allTables
        return tables.byPath[key] ?? tables.byPathLowercased[key.lowercasedSharing] ?? []
    }

    /// Candidates whose path ends with the link's path, or whose whole path ends the link's path
    /// (a link written from a folder above the vault root).
    func notes(matchingPartialPath path: String) -> [Int] {
        let lowered = path.lowercased()
        // Notes whose path ends with the link's, exact case first; then notes whose whole path
        // ends the link's (a link written from a folder above the vault root), exact case first.
        var tiers: [[Int]] = [[], [], [], []]
        /// Adds the places of a path key to the tier it matches in, if any.
        func consider(_ key: Substring, _ places: [Int]) {
            if key.hasSuffix("/" + path) {
                tiers[0] += places
            } else if path.hasSuffix("/" + key) {
                tiers[2] += places
            } else {
                let lowerKey = key.lowercased()
                if lowerKey.hasSuffix("/" + lowered) {
                    tiers[1] += places
                } else if lowered.hasSuffix("/" + lowerKey) {
                    tiers[3] += places
                }
            }
        }
        for (key, places) in allTables.byPath.entries { consider(key, places) }
        return (tiers.first { !$0.isEmpty } ?? []).sorted()
    }

    /// Candidates by file name (no extension), exact case first.
    func notes(named name: String) -> [Int] {
        let key = name[...]
        if deferred != nil, let exact = scan(for: name, byName: true), !exact.isEmpty { return exact }
        let tables = allTables
        return tables.byName[key] ?? tables.byNameLowercased[key.lowercasedSharing] ?? []
    }

    /// Candidates by frontmatter alias, ignoring case.
    func notes(aliased alias: String) -> [Int] {
        let key = Substring(alias.lowercased())
        if let tables = builtTables { return tables.byAlias[key] ?? [] }
        var places: [Int] = []
        for place in notes.indices {
            for alias in notes[place].frontmatter.aliases where Substring(alias.lowercased()) == key {
                places.append(place)
            }
        }
        return places
    }

    /// Assets at a path, exact case first.
    func assets(atPath path: String) -> [String] {
        assets.contains(path) ? [path] : (assetsByLowercasedPath[path.lowercased()] ?? [])
    }

    /// Assets by file name, or by a path suffix when the link holds folders.
    func assets(matching target: String) -> [String] {
        if target.contains("/") {
            let exact = assets.filter { $0.hasSuffix("/" + target) || target.hasSuffix("/" + $0) }
            if !exact.isEmpty { return exact.sorted() }
            let lowered = target.lowercased()
            return assets.filter {
                let key = $0.lowercased()
                return key.hasSuffix("/" + lowered) || lowered.hasSuffix("/" + key)
            }.sorted()
        }
        return (assetsByName[target] ?? assetsByLowercasedName[target.lowercased()] ?? []).sorted()
    }

    /// The note tables when they are built; nil while questions are answered by looking at
    /// every note. Asking counts as a question (``DeferredNoteTables``), which builds them once
    /// there have been enough.
    private var builtTables: NoteTables? {
        if let tables { return tables }
        return deferred?.tables(over: notes)
    }

    /// The note tables, built now if they are not yet: for a question that looking at every
    /// note answers slowly (in any case, or by a path's end).
    private var allTables: NoteTables {
        if let tables { return tables }
        return deferred?.tables(over: notes, now: true) ?? NoteTables(notes: notes)
    }

    /// The notes whose path without extension (or, `byName`, whose file name without it) is
    /// `key`, by their own path or their base path, in the order of the notes, as the exact
    /// table lists them; nil once the tables are built.
    private func scan(for key: String, byName: Bool) -> [Int]? {
        guard builtTables == nil, let keys = deferred?.keys(over: notes) else { return nil }
        return keys.places(of: Array(key.utf8), byName: byName)
    }
}

/// The note tables of a ``VaultIndex``: the notes by path, by file name and by alias.
private struct NoteTables: Sendable {
    var byPath = PlaceTable<Substring>()
    var byPathLowercased = PlaceTable<Substring>()
    var byName = PlaceTable<Substring>()
    var byNameLowercased = PlaceTable<Substring>()
    var byAlias = PlaceTable<Substring>()

    /// A note's path without its extension, and its base path when that differs (a
    /// translation is found by its own name and by the one it shares with the others).
    typealias PathKeys = (own: Substring, base: Substring?)

    /// The note's ``PathKeys``, cut from its own strings.
    static func pathKeys(_ note: ParsedNote) -> PathKeys {
        let own = VaultPath.removingExtension(from: note.path)
        return own == note.basePath ? (own, nil) : (own, note.basePath[...])
    }

    init() {}

    init(notes: [ParsedNote]) {
        // The tables do not depend on each other: half of them built on each of two cores.
        let capacity = notes.count
        let halves = Compiler.parallelMap([false, true]) { byName -> NoteTables in
            var tables = NoteTables()
            if byName {
                tables.byName = PlaceTable(capacity: capacity)
                tables.byNameLowercased = PlaceTable(capacity: capacity)
            } else {
                tables.byPath = PlaceTable(capacity: capacity)
                tables.byPathLowercased = PlaceTable(capacity: capacity)
            }
            func add(_ path: Substring, _ index: Int) {
                if byName {
                    let name = VaultPath.fileName(in: path)
                    tables.byName.add(name, index)
                    tables.byNameLowercased.add(name.lowercasedSharing, index)
                } else {
                    tables.byPath.add(path, index)
                    tables.byPathLowercased.add(path.lowercasedSharing, index)
                }
            }
            for (index, note) in notes.enumerated() {
                let (own, base) = Self.pathKeys(note)
                add(own, index)
                if let base { add(base, index) }
                if byName {
                    for alias in note.frontmatter.aliases {
                        tables.byAlias.add(Substring(alias.lowercased()), index)
                    }
                }
            }
            return tables
        }
        (byPath, byPathLowercased) = (halves[0].byPath, halves[0].byPathLowercased)
        (byName, byNameLowercased, byAlias) = (halves[1].byName, halves[1].byNameLowercased, halves[1].byAlias)
    }
}

/// The keys of a ``VaultIndex``'s notes as bytes, side by side: what a question is answered
/// by, without the tables, in a loop over bytes rather than over the notes' strings.
///
/// Paths and link targets are NFC, so two that are equal as strings have the same bytes.
private struct NoteKeys: Sendable {
    /// A note's path without its extension, and its base path when that differs: ranges in
    /// ``bytes``, and where the file name starts in each.
    struct Entry: Sendable {
        var own: Range<Int>
        var ownName: Int
        var base: Range<Int>?
        var baseName: Int
    }

    private var bytes: [UInt8] = []
    private var entries: [Entry] = []

    init(notes: [ParsedNote]) {
        entries.reserveCapacity(notes.count)
        bytes.reserveCapacity(notes.count * 32)
        for note in notes {
            var entry = Entry(own: 0..<0, ownName: 0, base: nil, baseName: 0)
            let start = bytes.count
            bytes += note.path.utf8
            let own = bytes.withUnsafeBufferPointer { buffer in
                Self.keyRange(in: UnsafeBufferPointer(rebasing: buffer[start...]), removingExtension: true)
            }
            entry.own = start + own.key.lowerBound..<start + own.key.upperBound
            entry.ownName = start + own.name
            bytes.removeSubrange(entry.own.upperBound...)
            let baseStart = bytes.count
            bytes += note.basePath.utf8
            if bytes[baseStart...].elementsEqual(bytes[entry.own]) {
                bytes.removeSubrange(baseStart...)
            } else {
                let base = bytes.withUnsafeBufferPointer { buffer in
                    Self.keyRange(in: UnsafeBufferPointer(rebasing: buffer[baseStart...]), removingExtension: false)
                }
                entry.base = baseStart..<bytes.count
                entry.baseName = baseStart + base.name
            }
            entries.append(entry)
        }
    }

    /// The places of the notes with `key` as their path without extension (or, `byName`, as
    /// the file name in it), by their own path or their base path: each place as often as the
    /// exact table lists it, in order.
    func places(of key: [UInt8], byName: Bool) -> [Int] {
        var places: [Int] = []
        bytes.withUnsafeBufferPointer { bytes in
            key.withUnsafeBufferPointer { key in
                // Most names of a generated or numbered vault are as long as the key: compared
                // with `memcmp`, not byte by byte.
                func matches(_ range: Range<Int>, name: Int) -> Bool {
                    UnsafeBufferPointer(rebasing: bytes[byName ? name..<range.upperBound : range]).hasSameBytes(as: key)
                }
                for (place, entry) in entries.enumerated() {
                    if matches(entry.own, name: entry.ownName) { places.append(place) }
                    if let base = entry.base, matches(base, name: entry.baseName) { places.append(place) }
                }
            }
        }
        return places
    }

    /// Where the key is in a path's bytes, without the extension when `removingExtension`, and
    /// where its file name starts: cut by ``VaultPath/nameAndExtensionDot(in:)``, as the path's
    /// string is.
    private static func keyRange(
        in bytes: UnsafeBufferPointer<UInt8>, removingExtension: Bool
    ) -> (key: Range<Int>, name: Int) {
        let (name, dot) = VaultPath.nameAndExtensionDot(in: bytes)
        return (0..<(removingExtension ? dot ?? bytes.count : bytes.count), name)
    }
}

/// The note tables of a ``VaultIndex`` made to scan first: built once it has answered
/// ``scansBeforeBuilding`` questions by looking at every note, so that a note with hundreds of
/// links does not look at every note hundreds of times. Shared by the index's copies.
private final class DeferredNoteTables: @unchecked Sendable {
    /// How many questions are answered by looking at every note. Each costs about what
    /// building the tables costs for a fiftieth of the notes.
    static let scansBeforeBuilding = 48

    private let lock = NSLock()
    private var built: NoteTables?
    private var scans = 0
    private var noteKeys: NoteKeys?

    /// The notes' keys as bytes, made at the first question.
    func keys(over notes: [ParsedNote]) -> NoteKeys {
        lock.withLock {
            if let noteKeys { return noteKeys }
            let keys = NoteKeys(notes: notes)
            noteKeys = keys
            return keys
        }
    }

    /// The tables over `notes`, built now when this question is one too many to scan for; nil
    /// while questions are answered by scanning.
    func tables(over notes: [ParsedNote], now: Bool = false) -> NoteTables? {
        lock.withLock {
            if let built { return built }
            scans += 1
            guard now || scans > Self.scansBeforeBuilding else { return nil }
            built = NoteTables(notes: notes)
            return built
        }
    }
}
