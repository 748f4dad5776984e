import Foundation
import LockerKit

/// What one build keeps for the next, in memory: what an incremental build (`locker serve`) reuses.
///
/// Each stage is remembered with what it was made from:
/// - each note's parse, by path, content hash and the settings' hash;
/// - each note's built document (or deck, or landing page) with a ``BuildTrace``: the notes it
///   read (its own, the notes it links to and embeds) by content hash, the assets it embeds, and
///   the vault's shape (``LinkSurface``); each result gets a new serial number when it is built;
/// - each document's bundle file, by the serial of the result it encodes;
/// - each document's page, by that serial and everything else a page shows (``SiteSurface``);
/// - each index, a bundle file or a page, by what it shows of every document it lists
///   (``IndexListing``): a note edited below its title leaves the indexes as they were.
///
/// An entry is reused only when all of that is unchanged, so the output is byte-identical to a
/// clean build: a renamed heading rebuilds the notes that link to it, an edited note the notes
/// that embed it, and a note added, removed or renamed every note. Nothing is compared as a
/// Swift `String`, whose equality ignores Unicode normalisation while the output is bytes: text
/// is compared by content hash or byte for byte. Entries a build did not use are dropped at its end.
public final class BuildCache: @unchecked Sendable {
    /// How many results the last build reused, per stage; for tests and the preview's status line.
    public struct Reuse: Sendable, Equatable {
        public var parsed = 0
        public var linked = 0
        public var encoded = 0
        public var rendered = 0
        /// Index files (bundle indexes and index pages) reused.
        public var indexes = 0
        /// How many notes and decks were built again rather than reused.
        public var rebuilt = 0
        /// How many notes were not read at all, their stamps unchanged.
        public var unread = 0
    }

    struct ParseKey: Hashable {
        var path: String
        var sha256: String
        /// The hash of `locker.yml`, which decides locales and kinds.
        var config: String
    }

    /// A note's, deck's or landing page's built result, with what it was made from. A class:
    /// a lookup hands over one reference rather than copying every field of a document.
    final class Linked: Sendable {
        let trace: BuildTrace
        let serial: Int
        let document: Document?
        let page: LandingPage?
        let diagnostics: [Diagnostic]

        init(trace: BuildTrace, serial: Int, document: Document?, page: LandingPage?, diagnostics: [Diagnostic]) {
            self.trace = trace
            self.serial = serial
            self.document = document
            self.page = page
            self.diagnostics = diagnostics
        }
    }

    /// A deck in all its locales, with what it was made from.
    final class BuiltDeck: Sendable {
        let trace: BuildTrace
        /// A serial for each deck, in the order of `decks`.
        let serials: [Int]
        let decks: [Deck]
        let diagnostics: [Diagnostic]
        let stamps: [IDStamp]
        let versions: [VersionParts]

        init(
            trace: BuildTrace, serials: [Int], decks: [Deck], diagnostics: [Diagnostic], stamps: [IDStamp],
            versions: [VersionParts]
        ) {
            self.trace = trace
            self.serials = serials
            self.decks = decks
            self.diagnostics = diagnostics
            self.stamps = stamps
            self.versions = versions
        }
    }

    /// A document's bundle file, with its manifest entry and its path in the output. A class,
    /// as ``Linked``: a lookup on two cores at once retains one reference, not each field.
    final class Encoded: Sendable {
        let data: Data
        let sha256: String
        let file: Manifest.File
        let outputPath: String

        init(data: Data, sha256: String, file: Manifest.File, outputPath: String) {
            self.data = data
            self.sha256 = sha256
            self.file = file
            self.outputPath = outputPath
        }
    }

    /// A document's page, with its path in the output; a class, as ``Encoded``.
    final class Rendered: Sendable {
        let surface: Int
        let html: Data
        let outputPath: String

        init(surface: Int, html: Data, outputPath: String) {
            self.surface = surface
            self.html = html
            self.outputPath = outputPath
        }
    }

    /// A list of documents (an index page, or a bundle index), by what it shows of them: a
    /// document rebuilt without a change to its title, order or counts leaves its index as it was.
    struct RenderedIndex: Sendable {
        var listing: IndexListing
        /// The ``SiteSurface`` number, for an index page; 0 for a bundle index.
        var surface: Int = 0
        var data: Data
        /// The content hash of `data`, for a bundle index.
        var sha256: String = ""
        /// The listing version of its kind it was made for (``listingVersions(of:serials:surface:)``);
        /// 0 for none.
        var version = 0
    }

    /// A note file's content hash, trusted while its stamp (size, inode, modification and
    /// change times) is the same. A stamp is kept only for a file that last changed
    /// ``settlingTime`` before it was read: a second save within the file system's clock tick
    /// would keep the stamp of the first (the "racy clean" case version control systems know).
    struct Hashed: Sendable {
        var stamp: FileStamp
        var sha256: String
    }

    let hashes = Memo<String, Hashed>()
    let parses = Memo<ParseKey, (ParsedNote?, [Diagnostic])>()
    let indexPages = Memo<String, RenderedIndex>()
    let bundleIndexes = Memo<String, RenderedIndex>()
    let linked = Memo<String, Linked>()
    let decks = Memo<String, BuiltDeck>()
    /// By the serial of the built result encoded: a serial names one result, whose file never changes.
    let encoded = Memo<Int, Encoded>()
    /// By the serial of the built result shown, as ``encoded``.
    let rendered = Memo<Int, Rendered>()

    private let lock = NSLock()
    private var linkSurface: (LinkSurface, Int)?
    private var siteSurface: (SiteSurface, Int)?
    private var vaultIndex: ShapeKept<VaultIndex>?
    private var siteTables: ShapeKept<SiteTables>?
    /// The vault shape last found without duplicate IDs.
    private var withoutDuplicateIDs: ShapeKept<Void>?
    /// What ``listingVersions(of:serials:surface:)`` last compared against.
    private var listed: (documents: [Document], serials: [Int], surface: Int, versions: [ContentKind: Int])?
    private var surfaces = 0
    private var serials = 0

    /// How long after its last change a note's stamp is trusted, in seconds: longer than any
    /// file system's clock tick (FAT's is two seconds). The one rule for both ``hashes`` and the
    /// ``NoteRecord`` a build leaves (``Compiler/settlingTime``).
    static let settlingTime = 2

    /// How long after its last change a note's stamp is trusted (see ``hashes``).
    let settlingTime: Int

    public init() { settlingTime = Self.settlingTime }

    /// A cache that trusts stamps `settlingTime` seconds after a change; for tests.
    init(settlingTime: Int) { self.settlingTime = settlingTime }

    /// How many results the last build reused.
    public var reuse: Reuse {
        Reuse(
            parsed: parses.hits, linked: linked.hits + decks.hits, encoded: encoded.hits, rendered: rendered.hits,
            indexes: bundleIndexes.hits + indexPages.hits, rebuilt: linked.misses + decks.misses, unread: hashes.hits)
    }

    /// The stages every build goes through, and those only a build without errors reaches.
    private var checkingStages: [any MemoGeneration] { [hashes, parses, linked, decks] }
    private var outputStages: [any MemoGeneration] { [encoded, rendered, indexPages, bundleIndexes] }

    /// Starts a build: counts restart, and what the build does not use is dropped at ``finish(emitted:)``.
    func start() {
        for memo in checkingStages + outputStages { memo.advance() }
    }

    /// Ends a build, dropping every entry it did not use. A build that stopped before its output
    /// (the vault has errors) keeps the bundle files and pages for the next.
    func finish(emitted: Bool) {
        for memo in checkingStages + (emitted ? outputStages : []) { memo.prune() }
    }

    /// A number naming this vault shape: the same as last build's when the shape is unchanged.
    func identify(_ surface: LinkSurface) -> Int { number(surface, last: &linkSurface) }

    /// A number naming what pages show besides their document: the same as last build's when unchanged.
    func identify(_ surface: SiteSurface) -> Int { number(surface, last: &siteSurface) }

    /// The number `last` holds when `surface` equals it, else a new one, which `last` then holds.
    private func number<Surface: Equatable>(_ surface: Surface, last: inout (Surface, Int)?) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let (known, number) = last, known == surface { return number }
        surfaces += 1
        last = (surface, surfaces)
        return surfaces
    }

    /// A number no result built before has: what later stages recognise the result by.
    func newSerial() -> Int {
        lock.lock()
        defer { lock.unlock() }
        serials += 1
        return serials
    }

    /// A number per kind naming what the indexes of that kind list (each document's ID, locale and
    /// index entry, in order): the same as the last call's while no document of the kind was
    /// added, removed or changed in what an index shows of it. An index made for that number
    /// still holds without listing every document again to compare (``RenderedIndex/version``).
    ///
    /// - Parameters:
    ///   - serials: each document's ``BuildOrigins`` serial: a document with the serial it had is
    ///     the same built result, so only the others are compared, byte for byte.
    ///   - surface: the ``LinkSurface`` number, which holds the settings (locales, preference).
    func listingVersions(of documents: [Document], serials: [Int], surface: Int) -> [ContentKind: Int] {
        lock.lock()
        defer { lock.unlock() }
        var changed = Set(ContentKind.known)
        if let last = listed, last.surface == surface, last.documents.count == documents.count,
            last.serials.count == documents.count, serials.count == documents.count
        {
            changed = []
            for offset in documents.indices where serials[offset] != last.serials[offset] {
                let (now, before) = (documents[offset], last.documents[offset])
                if now.kind != before.kind || !Self.listsAlike(now, before) {
                    changed.insert(now.kind)
                    changed.insert(before.kind)
                }
            }
        }
        var versions: [ContentKind: Int] = [:]
        for kind in ContentKind.known {
            if !changed.contains(kind), let version = listed?.versions[kind] {
                versions[kind] = version
            } else {
                surfaces += 1
                versions[kind] = surfaces
            }
        }
        listed = (documents, serials, surface, versions)
        return versions
    }

    /// Whether an index shows two documents the same: ID, locale and entry, as bytes.
    private static func listsAlike(_ lhs: Document, _ rhs: Document) -> Bool {
        lhs.id.utf8.elementsEqual(rhs.id.utf8) && lhs.locale.utf8.elementsEqual(rhs.locale.utf8)
            && IndexListing([lhs.indexEntry]) == IndexListing([rhs.indexEntry])
    }

    /// Whether a build under the vault shape numbered `surface` found no two documents of one
    /// kind and locale sharing an ID (``foundNoDuplicateIDs(surface:)``).
    func hasNoDuplicateIDs(surface: Int) -> Bool { taken(\.withoutDuplicateIDs, for: surface) != nil }

    /// Remembers that the vault shape numbered `surface` has no two documents sharing an ID.
    func foundNoDuplicateIDs(surface: Int) { keep((), for: surface, in: \.withoutDuplicateIDs) }

    /// The site's tables of the last build, when it had the vault shape numbered `surface`.
    func siteTables(for surface: Int) -> SiteTables? { taken(\.siteTables, for: surface) }

    /// Keeps the site's tables for the next build.
    func keep(_ tables: SiteTables, for surface: Int) { keep(tables, for: surface, in: \.siteTables) }

    /// The link tables of the vault shape numbered `surface`, when the last build had that shape.
    func index(for surface: Int) -> VaultIndex? { taken(\.vaultIndex, for: surface) }

    /// Keeps the link tables for the next build.
    func keep(_ index: VaultIndex, for surface: Int) { keep(index, for: surface, in: \.vaultIndex) }

    /// What a build kept in `slot`, when it was made under the vault shape numbered `surface`.
    private func taken<Value>(_ slot: KeyPath<BuildCache, ShapeKept<Value>?>, for surface: Int) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        guard let kept = self[keyPath: slot], kept.surface == surface else { return nil }
        return kept.value
    }

    /// Keeps `value`, made under the vault shape numbered `surface`, in `slot` for the next build.
    private func keep<Value>(
        _ value: Value, for surface: Int, in slot: ReferenceWritableKeyPath<BuildCache, ShapeKept<Value>?>
    ) {
        lock.lock()
        self[keyPath: slot] = ShapeKept(value: value, surface: surface)
        lock.unlock()
    }
}

extension Memo where Key == String, Value == BuildCache.RenderedIndex {
    /// The index stored under `key` with the same listing (and surface), numbered `version` from
    /// now on, so that the next build finds it by its version alone.
    func lookup(_ key: String, listing: IndexListing, version: Int, surface: Int = 0) -> Value? {
        guard var found = lookup(key, where: { $0.surface == surface && $0.listing == listing }) else { return nil }
        if found.version != version {
            found.version = version
            store(found, for: key)
        }
        return found
    }
}

/// What one build keeps for the next, with the number of the vault shape (``LinkSurface``)
/// it was made under: it holds only for a build of the same shape.
struct ShapeKept<Value> {
    var value: Value
    var surface: Int
}

/// What a built result was made from, checked before it is reused.
struct BuildTrace: Sendable {
    /// The ``LinkSurface`` number it was built under.
    var surface: Int
    /// Every note it read, by its place in the vault's notes, with its content hash. Places
    /// name the same notes while the surface is the same: the surface lists every note in order.
    var notes: [(place: Int, sha256: String)]
    /// Every vault file it embeds, with how, and its content hash or why it could not be read.
    var assets: [AssetUse]

    /// Whether nothing it was made from changed, given each note's content hash by its place.
    /// Assets are looked up again, which also counts them as used by this build.
    func holds(surface: Int, hashes: [String], assets catalog: AssetCatalog) -> Bool {
        guard surface == self.surface else { return false }
        for (place, sha256) in notes where place >= hashes.count || hashes[place] != sha256 { return false }
        return Self.holds(assets, in: catalog)
    }

    /// Whether every vault file in `uses` has the state it had: each is looked up again, which
    /// also counts it as used by this build.
    static func holds(_ uses: [AssetUse], in catalog: AssetCatalog) -> Bool {
        uses.allSatisfy { catalog.use($0.path, bundled: $0.bundled) == $0.state }
    }
}

/// A vault file a document embeds: in the bundle, or on its page alone.
struct AssetUse: Sendable, Hashable {
    var path: String
    var bundled: Bool
    /// The content hash, or why the file could not be read.
    var state: String
}

/// Everything besides the notes' content that decides how links resolve: the settings, and each
/// note's path, kind, ID, locale and aliases, and the vault's other files; compared as bytes.
struct LinkSurface: Sendable, Equatable {
    private var bytes = SurfaceBytes()

    /// The SHA-256 of the surface, for ``PageInputs``: hashed at each call.
    var sha256: String { bytes.sha256 }

    /// - Parameter decks: which notes make up each deck. A note can move from a deck of its own
    ///   into its folder's deck keeping its kind, ID and locale; the deck built before must not
    ///   stand for the new one.
    init(config: Data?, notes: [ParsedNote], assets: [String], decks: [DeckCatalog.Group] = []) {
        bytes.add(config)
        // The notes in runs, each on a core, joined in order: the bytes added one by one. Each
        // run and the whole are made at about their size, not grown by doubling: a rebuild
        // touched several times the surface's size in memory for the first time.
        let runs = Compiler.parallelMap(Compiler.runs(of: notes.count, length: 1024)) { run in
            var part = SurfaceBytes()
            part.reserve(run.count * 64)
            for note in notes[run] {
                part.add(text: note.path)
                part.add(text: note.kind.rawValue)
                part.add(text: note.id)
                part.add(text: note.locale)
                part.add(text: note.explicitLocale ? "1" : "0")
                part.endList()
                for alias in note.frontmatter.aliases { part.add(text: alias) }
                part.endList()
            }
            return part
        }
        bytes.reserve(runs.reduce(bytes.count + assets.count * 64) { $0 + $1.count })
        for part in runs { bytes.append(part) }
        bytes.add(assets)
        for group in decks {
            bytes.add([group.id, group.path])
            bytes.add(group.headers.map { $0 < notes.count ? notes[$0].path : "" })
            bytes.add(group.members.map { $0 < notes.count ? notes[$0].path : "" })
        }
    }
}

/// Everything besides its document that a document's page shows: the vault's shape (which
/// holds the settings and every document's kind, ID and locale), the templates, the address,
/// the landing pages (by serial) and the shared files' names; compared as bytes.
struct SiteSurface: Sendable, Equatable {
    var linkSurface: Int
    var pages: [Int]
    private var bytes = SurfaceBytes()

    init(linkSurface: Int, templates: [String: String], baseURL: String?, pages: [Int], sharedFiles: [String]) {
        self.linkSurface = linkSurface
        self.pages = pages
        for (name, text) in templates.sorted(by: { $0.key.utf8Precedes($1.key) }) {
            bytes.add([name, text])
        }
        bytes.add(baseURL.map { Data($0.utf8) })
        bytes.add(sharedFiles)
    }
}

/// What an index lists, in its order: every field of each entry and, for an index page, the
/// path of each entry's page; compared as bytes.
struct IndexListing: Sendable, Equatable {
    private var bytes = SurfaceBytes()

    /// The SHA-256 of the listing, for ``PageInputs``.
    var sha256: String { bytes.sha256 }

    init(_ entries: [ContentIndex.Entry], paths: [String]? = nil) {
        for (offset, entry) in entries.enumerated() {
            bytes.add([
                entry.id, entry.uuid, entry.title, entry.subtitle, entry.category, entry.type,
                entry.order.map(String.init), entry.locale, entry.checklistType?.rawValue,
                entry.itemCount.map(String.init), entry.cardCount.map(String.init), paths?[offset],
            ])
            bytes.add(entry.tags)
        }
    }
}

/// Texts laid end to end as UTF-8, each followed by a byte no UTF-8 text holds: two lists of
/// texts give the same bytes only when they hold the same texts, byte for byte.
struct SurfaceBytes: Sendable, Equatable {
    private var bytes: [UInt8] = []

    /// The SHA-256 of the bytes, in hex: what a later build, in another process, compares.
    var sha256: String { ContentHash.sha256Hex(bytes) }

    /// Appends each text and a separator, then a second separator that ends the list.
    mutating func add(_ texts: [String]) { add(texts.map(Optional.some)) }

    /// Appends each text and a separator, or a marker for an absent text, then the list's end.
    mutating func add(_ texts: [String?]) {
        for text in texts {
            if let text { add(text: text) } else { bytes.append(0xFD) }
        }
        endList()
    }

    /// Appends one text of a list and its separator.
    mutating func add(text: String) {
        bytes += text.utf8
        bytes.append(0xFF)
    }

    /// Ends a list of texts.
    mutating func endList() { bytes.append(0xFE) }

    /// Appends the bytes of another.
    mutating func append(_ other: SurfaceBytes) { bytes += other.bytes }

    /// How many bytes there are.
    var count: Int { bytes.count }

    /// Makes room for `count` bytes in all, so that appending up to them does not grow the bytes.
    mutating func reserve(_ count: Int) { bytes.reserveCapacity(count) }

    /// Appends raw bytes, marked as present or absent.
    mutating func add(_ data: Data?) {
        bytes += data.map { [1] + Array($0) + [0xFE] } ?? [0]
    }
}

/// Which built result (by ``BuildCache`` serial) each document and landing page of a compilation
/// is, and the vault shape's number: what the bundle and site stages reuse their output by.
struct BuildOrigins: Sendable {
    var linkSurface: Int
    /// By the document's offset among the compilation's documents.
    var documents: [Int] = []
    /// By landing page ID and locale.
    var pages: [String: Int] = [:]
    /// What the indexes of each kind list, numbered (``BuildCache/listingVersions(of:serials:surface:)``);
    /// empty without a cache.
    var listings: [ContentKind: Int] = [:]

    static func key(_ page: LandingPage) -> String { page.id + "/" + page.locale }

    /// The serial of the result the document at `offset` comes from; 0 without a cache (nothing recorded).
    func serial(at offset: Int) -> Int { offset < documents.count ? documents[offset] : 0 }

    func serial(of page: LandingPage) -> Int { pages.isEmpty ? 0 : pages[Self.key(page)] ?? 0 }
}

protocol MemoGeneration: AnyObject {
    func advance()
    func prune()
}

/// Results by key, shared by the threads of a build; entries a build did not use are dropped at its end.
///
/// The table is split into shards by key, each with its own lock: a build looks up every note
/// from every core, and one lock for all would have the cores wait on each other.
final class Memo<Key: Hashable & Sendable, Value: Sendable>: MemoGeneration, @unchecked Sendable {
    private final class Shard: @unchecked Sendable {
        let lock = NSLock()
        var entries: [Key: (value: Value, used: Int)] = [:]
        /// How many entries this build used: when all, ``Memo/prune()`` has nothing to drop here.
        var usedCount = 0
        var hits = 0
        var misses = 0

        /// Runs `body` with the shard's lock held.
        func locked<Result>(_ body: (Shard) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(self)
        }
    }

    private let shards = (0..<32).map { _ in Shard() }
    /// The build's number; changed only between builds, when no thread looks anything up.
    private var generation = 0

    private func shard(_ key: Key) -> Shard { shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))] }

    /// How many lookups in this build returned a value, and how many did not.
    var hits: Int { shards.reduce(0) { total, shard in total + shard.locked(\.hits) } }
    var misses: Int { shards.reduce(0) { total, shard in total + shard.locked(\.misses) } }

    /// The value stored under `key` when `valid` accepts it.
    ///
    /// `valid` runs without the lock, so that checking one entry does not hold up the others.
    /// The entry is counted as used by this build as it is found, in the same pass (one hash of
    /// the key, not three), even when `valid` then refuses it: the caller stores what replaces
    /// it, or the next build refuses it again.
    func lookup(_ key: Key, where valid: (Value) -> Bool = { _ in true }) -> Value? {
        let shard = shard(key)
        let generation = self.generation
        let found = shard.locked { shard -> Value? in
            guard let index = shard.entries.index(forKey: key) else { return nil }
            if shard.entries.values[index].used != generation {
                shard.usedCount += 1
                shard.entries.values[index].used = generation
            }
            return shard.entries.values[index].value
        }
        guard let found, valid(found) else {
            shard.locked { $0.misses += 1 }
            return nil
        }
        shard.locked { $0.hits += 1 }
        return found
    }

    func store(_ value: Value, for key: Key) {
        let generation = self.generation
        shard(key).locked { shard in
            // A new entry, or one this build had not used yet, is one more used.
            if shard.entries.updateValue((value, generation), forKey: key)?.used != generation {
                shard.usedCount += 1
            }
        }
    }

    func advance() {
        generation += 1
        for shard in shards {
            shard.locked { shard in
                shard.usedCount = 0
                shard.hits = 0
                shard.misses = 0
            }
        }
    }

    func prune() {
        let generation = self.generation
        for shard in shards {
            shard.locked { shard in
                guard shard.usedCount < shard.entries.count else { return }
                // Few entries go unused from one build to the next: removing them is cheaper
                // than copying the rest into a new table.
                let unused = shard.entries.compactMap { $0.value.used == generation ? nil : $0.key }
                for key in unused { shard.entries.removeValue(forKey: key) }
            }
        }
    }
}
