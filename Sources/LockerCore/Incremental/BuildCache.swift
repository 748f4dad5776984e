import Foundation
import LockerKit

/// What one build keeps for the next, in memory: what an incremental build (`locker serve`) reuses.
///
/// Four stages are remembered, each with what it was made from:
/// - each note's parse, by path and content hash;
/// - each note's built document (or deck, or landing page) with a ``BuildTrace``: the notes it
///   read (its own, the notes it links to and embeds) by content hash, the assets it embeds, and
///   the vault's shape (``LinkSurface``);
/// - each document's bundle file, by the document's value;
/// - each document's page, by the document's value and everything else a page shows (``SiteSurface``).
///
/// An entry is reused only when all of that is unchanged, so the output is byte-identical to a
/// clean build: a renamed heading rebuilds the notes that link to it, an edited note the notes
/// that embed it, and a note added, removed or renamed every note. Entries a build did not use
/// are dropped at its end.
public final class BuildCache: @unchecked Sendable {
    /// How many results the last build reused, per stage; for tests and the preview's status line.
    public struct Reuse: Sendable, Equatable {
        public var parsed = 0
        public var linked = 0
        public var encoded = 0
        public var rendered = 0
        /// How many notes and decks were built again rather than reused.
        public var rebuilt = 0
        /// How many notes were not read at all, their stamps unchanged.
        public var unread = 0
    }

    struct ParseKey: Hashable {
        var path: String
        var sha256: String
    }

    /// A note's, deck's or landing page's built result, with what it was made from.
    struct Linked: Sendable {
        var trace: BuildTrace
        var document: Document?
        var page: LandingPage?
        var diagnostics: [Diagnostic]
    }

    /// A deck in all its locales, with what it was made from.
    struct BuiltDeck: Sendable {
        var trace: BuildTrace
        var decks: [Deck]
        var diagnostics: [Diagnostic]
        var stamps: [IDStamp]
        var versions: [VersionParts]
    }

    /// A document's bundle file.
    struct Encoded: Sendable {
        var document: Document
        var data: Data
        var sha256: String
    }

    /// A document's page.
    struct Rendered: Sendable {
        var document: Document
        var surface: Int
        var html: Data
    }

    /// A list of documents (an index page, or a bundle index), by what it lists.
    struct RenderedIndex: Sendable {
        var entries: [ContentIndex.Entry]
        var surface: Int = 0
        var data: Data
        var sha256: String = ""
    }

    /// A note file's content hash, trusted while its stamp (size, inode, modification and
    /// change times) is the same. A stamp is kept only for a file that last changed
    /// ``settlingTime`` before it was read: a second save within the file system's clock tick
    /// would keep the stamp of the first (the "racy clean" case version control systems know).
    struct Hashed: Sendable {
        var stamp: String
        var sha256: String
    }

    let hashes = Memo<String, Hashed>()
    let parses = Memo<ParseKey, (ParsedNote?, [Diagnostic])>()
    let indexPages = Memo<String, RenderedIndex>()
    let bundleIndexes = Memo<String, RenderedIndex>()
    let linked = Memo<String, Linked>()
    let decks = Memo<String, BuiltDeck>()
    let encoded = Memo<String, Encoded>()
    let rendered = Memo<String, Rendered>()

    private let lock = NSLock()
    private var linkSurface: (LinkSurface, Int)?
    private var siteSurface: (SiteSurface, Int)?
    private var vaultIndex: (index: VaultIndex, surface: Int)?
    private var surfaces = 0

    /// How long after its last change a note's stamp is trusted (see ``hashes``).
    let settlingTime: Int

    public init() { settlingTime = 2 }

    /// A cache that trusts stamps `settlingTime` seconds after a change; for tests.
    init(settlingTime: Int) { self.settlingTime = settlingTime }

    /// How many results the last build reused.
    public var reuse: Reuse {
        Reuse(
            parsed: parses.hits, linked: linked.hits + decks.hits, encoded: encoded.hits, rendered: rendered.hits,
            rebuilt: linked.misses + decks.misses, unread: hashes.hits)
    }

    /// Starts a build: counts restart, and what the build does not use is dropped at ``finish()``.
    func start() {
        for memo in [hashes, parses, linked, decks, encoded, rendered, indexPages, bundleIndexes]
            as [any MemoGeneration]
        { memo.advance() }
    }

    /// Ends a build, dropping every entry it did not use. A build that stopped before its output
    /// (the vault has errors) keeps the bundle files and pages for the next.
    func finish(emitted: Bool) {
        let stages: [any MemoGeneration] =
            emitted
            ? [hashes, parses, linked, decks, encoded, rendered, indexPages, bundleIndexes]
            : [hashes, parses, linked, decks]
        for memo in stages { memo.prune() }
    }

    /// A number naming this vault shape: the same as last build's when the shape is unchanged.
    func identify(_ surface: LinkSurface) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let (known, number) = linkSurface, known == surface { return number }
        surfaces += 1
        linkSurface = (surface, surfaces)
        return surfaces
    }

    /// The link tables of the vault shape numbered `surface`, when the last build had that shape.
    func index(for surface: Int) -> VaultIndex? {
        lock.lock()
        defer { lock.unlock() }
        return vaultIndex?.surface == surface ? vaultIndex?.index : nil
    }

    /// Keeps the link tables for the next build.
    func keep(_ index: VaultIndex, for surface: Int) {
        lock.lock()
        vaultIndex = (index, surface)
        lock.unlock()
    }

    /// A number naming what pages show besides their document: the same as last build's when unchanged.
    func identify(_ surface: SiteSurface) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let (known, number) = siteSurface, known == surface { return number }
        surfaces += 1
        siteSurface = (surface, surfaces)
        return surfaces
    }
}

/// What a built result was made from, checked before it is reused.
struct BuildTrace: Sendable {
    /// The ``LinkSurface`` number it was built under.
    var surface: Int
    /// Every note it read, by path, with its content hash.
    var notes: [String: String]
    /// Every vault file it embeds, with how, and its content hash (nil when it could not be read).
    var assets: [AssetUse]

    /// Whether nothing it was made from changed. Assets are looked up again, which also counts
    /// them as used by this build.
    func holds(surface: Int, hashes: [String: String], assets catalog: AssetCatalog) -> Bool {
        guard surface == self.surface else { return false }
        for (path, sha256) in notes where hashes[path] != sha256 { return false }
        for use in assets where catalog.use(use.path, bundled: use.bundled) != use.sha256 { return false }
        return true
    }
}

/// A vault file a document embeds: in the bundle, or on its page alone.
struct AssetUse: Sendable, Hashable {
    var path: String
    var bundled: Bool
    var sha256: String?
}

/// Everything besides the notes' content that decides how links resolve: the settings, and each
/// note's path, kind, ID, locale and aliases, and the vault's other files.
struct LinkSurface: Sendable, Equatable {
    struct Note: Sendable, Equatable {
        var path: String
        var kind: ContentKind
        var id: String
        var locale: String
        var explicitLocale: Bool
        var aliases: [String]
    }

    var config: Data?
    var notes: [Note]
    var assets: [String]

    init(config: Data?, notes: [ParsedNote], assets: [String]) {
        self.config = config
        self.notes = notes.map {
            Note(
                path: $0.path, kind: $0.kind, id: $0.id, locale: $0.locale, explicitLocale: $0.explicitLocale,
                aliases: $0.frontmatter.aliases)
        }
        self.assets = assets
    }
}

/// Everything besides its document that a document's page shows: the settings, templates and
/// address, every document's and landing page's place, and the shared files' names.
struct SiteSurface: Sendable, Equatable {
    var config: VaultConfig
    var templates: [String: String]
    var baseURL: String?
    /// Kind, ID and locale of every document.
    var documents: [String]
    var pages: [LandingPage]
    var sharedFiles: [String]
}

protocol MemoGeneration: AnyObject {
    func advance()
    func prune()
}

/// Results by key, shared by the threads of a build; entries a build did not use are dropped at its end.
final class Memo<Key: Hashable & Sendable, Value: Sendable>: MemoGeneration, @unchecked Sendable {
    private var entries: [Key: (value: Value, used: Int)] = [:]
    private var generation = 0
    private let lock = NSLock()
    /// How many lookups in this build returned a value, and how many did not.
    private(set) var hits = 0
    private(set) var misses = 0

    /// The value stored under `key` when `valid` accepts it, counted as used by this build.
    func lookup(_ key: Key, where valid: (Value) -> Bool = { _ in true }) -> Value? {
        lock.lock()
        let found = entries[key]?.value
        lock.unlock()
        guard let found, valid(found) else {
            lock.lock()
            misses += 1
            lock.unlock()
            return nil
        }
        lock.lock()
        entries[key]?.used = generation
        hits += 1
        lock.unlock()
        return found
    }

    func store(_ value: Value, for key: Key) {
        lock.lock()
        entries[key] = (value, generation)
        lock.unlock()
    }

    func advance() {
        lock.lock()
        generation += 1
        hits = 0
        misses = 0
        lock.unlock()
    }

    func prune() {
        lock.lock()
        let current = generation
        entries = entries.filter { $0.value.used == current }
        lock.unlock()
    }
}
