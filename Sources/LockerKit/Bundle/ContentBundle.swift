import Foundation

/// A verified bundle: the manifest and every file it lists, each checked against its size and
/// SHA-256 before anything is decoded.
///
/// ```swift
/// let bundle = try ContentBundle(contentsOf: bundleFolder)   // throws BundleError naming the bad file
/// let deck = try bundle.deck(id: "sound-signals", locale: "en")
/// ```
///
/// Opening reads every file once. JSON files stay in memory (they are what an app shows); assets
/// are hashed and dropped, and ``asset(at:)`` verifies them again when read. A bundle value never
/// changes: to pick up new content, open the new bundle.
public struct ContentBundle: Sendable {
    /// The folder holding `manifest.json`.
    public let url: URL
    public let manifest: Manifest
    /// The verified bytes of every JSON file (indexes and documents), by manifest path.
    private let documents: [String: Data]
    /// Manifest entries of documents by kind, then ID, then locale.
    private let entries: [ContentKind: [String: [String: Manifest.File]]]

    /// The locale documents are written in when a translation is missing.
    public var defaultLocale: String { manifest.defaultLocale }
    /// Every locale of the bundle, in the order of `locker.yml`.
    public var locales: [String] { manifest.locales }
    /// The locales whose readers' files were opened; `nil`, all of them.
    public let openedLocales: [String]?
    /// How a locale falls back to another: the rule the build chose documents by.
    public var preference: LocalePreference {
        LocalePreference(locales: manifest.locales, defaultLocale: manifest.defaultLocale)
    }

    /// Opens and verifies the bundle in `folder`.
    ///
    /// - Throws: ``BundleError`` naming the first file that is missing, unsafe, or of the wrong
    ///   size or hash; a manifest that does not decode or does not match its files; or a schema
    ///   major version other than ``BundleSchema/major``. Documents are decoded when read, so
    ///   `undecodable` comes from ``deck(id:locale:)`` and the other readers.
    public init(contentsOf folder: URL) throws(BundleError) {
        try self.init(contentsOf: folder, locales: nil)
    }

    /// Opens and verifies the files of the bundle in `folder` that a reader of `locales` needs
    /// (``Manifest/files(forLocales:)``; `nil`, every file): the folder of a ``ContentUpdater``
    /// that keeps only some locales. Documents of other locales are not there to read.
    public init(contentsOf folder: URL, locales: [String]?) throws(BundleError) {
        url = folder
        let manifestURL = folder.appendingPathComponent("manifest.json")
        let manifestData: Data
        do {
            manifestData = try Data(contentsOf: manifestURL)
        } catch {
            throw .missingManifest(path: "manifest.json")
        }
        manifest = try Self.decodeManifest(manifestData)
        openedLocales = locales

        var documents: [String: Data] = [:]
        var entries: [ContentKind: [String: [String: Manifest.File]]] = [:]
        for file in manifest.files(forLocales: locales) {
            let data = try Self.read(file, in: folder)
            if file.kind == "asset" { continue }
            documents[file.path] = data
            if let id = file.id, let locale = file.locale {
                entries[ContentKind(rawValue: file.kind), default: [:]][id, default: [:]][locale] = file
            }
        }
        self.documents = documents
        self.entries = entries
    }

    /// The IDs of every document of `kind`, sorted.
    public func ids(of kind: ContentKind) -> [String] { (entries[kind] ?? [:]).keys.sorted() }

    /// The locales `kind`/`id` has a version in, in the bundle's order.
    public func locales(of kind: ContentKind, id: String) -> [String] {
        guard let versions = entries[kind]?[id] else { return [] }
        return manifest.locales.filter { versions[$0] != nil }
            + versions.keys.filter { !manifest.locales.contains($0) }.sorted()
    }

    /// The locale `kind`/`id` is read in for `locale`: that locale if it has a version, else the
    /// default locale, else the first locale (in the bundle's order) that has one.
    public func resolvedLocale(of kind: ContentKind, id: String, for locale: String) -> String? {
        guard let versions = entries[kind]?[id] else { return nil }
        return preference.preferred(versions.keys, in: locale) { $0 }
    }

    /// The document `kind`/`id` in `locale`, falling back as ``resolvedLocale(of:id:for:)`` says.
    public func document<Document: Decodable>(
        _ type: Document.Type, kind: ContentKind, id: String, locale: String
    ) throws(BundleError) -> Document {
        guard let resolved = resolvedLocale(of: kind, id: id, for: locale),
            let file = entries[kind]?[id]?[resolved]
        else { throw .notFound(kind: kind, id: id) }
        return try decode(type, at: file.path)
    }

    /// The manifest's entry of the version of `kind`/`id` written in `locale`, if there is one.
    public func file(of kind: ContentKind, id: String, locale: String) -> Manifest.File? {
        entries[kind]?[id]?[locale]
    }

    /// The version of `kind`/`id` written in `locale`, without falling back.
    public func version<Document: Decodable>(
        kind: ContentKind, id: String, locale: String, as type: Document.Type = Document.self
    ) throws(BundleError) -> Document {
        guard let file = entries[kind]?[id]?[locale] else { throw .notFound(kind: kind, id: id) }
        return try decode(type, at: file.path)
    }

    /// A guide in `locale`, else in the default locale.
    public func guide(id: String, locale: String) throws(BundleError) -> Guide {
        try document(Guide.self, kind: .guide, id: id, locale: locale)
    }

    /// A checklist in `locale`, else in the default locale.
    public func checklist(id: String, locale: String) throws(BundleError) -> Checklist {
        try document(Checklist.self, kind: .checklist, id: id, locale: locale)
    }

    /// A deck in `locale`, else in the default locale.
    public func deck(id: String, locale: String) throws(BundleError) -> Deck {
        try document(Deck.self, kind: .deck, id: id, locale: locale)
    }

    /// Every guide, each in `locale` or its fallback, in the order of the guide index.
    public func guides(locale: String) throws(BundleError) -> [Guide] {
        try ordered(.guide, locale: locale).map { id throws(BundleError) in try guide(id: id, locale: locale) }
    }

    /// Every deck, each in `locale` or its fallback, in the order of the deck index.
    public func decks(locale: String) throws(BundleError) -> [Deck] {
        try ordered(.deck, locale: locale).map { id throws(BundleError) in try deck(id: id, locale: locale) }
    }

    /// Every checklist, each in `locale` or its fallback, in the order of the checklist index.
    public func checklists(locale: String) throws(BundleError) -> [Checklist] {
        try ordered(.checklist, locale: locale).map { id throws(BundleError) in try checklist(id: id, locale: locale) }
    }

    /// The index of `kind` for `locale` (the default locale's when the bundle has none for it);
    /// `nil` when the bundle has no index of that kind.
    public func index(of kind: ContentKind, locale: String) throws(BundleError) -> ContentIndex? {
        let indexes = manifest.files.filter {
            $0.kind == "index" && $0.lists == kind.rawValue && documents[$0.path] != nil
        }
        guard let file = preference.preferred(indexes, in: locale, localeOf: { $0.locale ?? "" }) else { return nil }
        return try decode(ContentIndex.self, at: file.path)
    }

    /// The bytes of an asset (an image a document embeds), verified again as they are read.
    ///
    /// - Parameter path: the `src` of an image block, relative to the bundle folder.
    public func asset(at path: String) throws(BundleError) -> Data {
        guard let file = manifest.files.first(where: { $0.path == path && $0.kind == "asset" }) else {
            throw .missingFile(path: path)
        }
        return try Self.read(file, in: url)
    }

    // MARK: - Reading

    /// IDs of `kind` in the index's order, then any the index does not list.
    private func ordered(_ kind: ContentKind, locale: String) throws(BundleError) -> [String] {
        var ids = (try index(of: kind, locale: locale))?.entries.map(\.id) ?? []
        let listed = Set(ids)
        ids += self.ids(of: kind).filter { !listed.contains($0) }
        return ids.filter { entries[kind]?[$0] != nil }
    }

    private func decode<T: Decodable>(_ type: T.Type, at path: String) throws(BundleError) -> T {
        guard let data = documents[path] else { throw .missingFile(path: path) }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw .undecodable(path: path, reason: Self.reason(error))
        }
    }

    /// Decodes and checks a manifest's bytes: its schema major first, then its fields, then its
    /// `contentVersion` against its files, and every path (``isSafe(_:)``).
    public static func decodeManifest(_ data: Data) throws(BundleError) -> Manifest {
        // The schema version first, so a future major that changed other fields is reported as
        // unsupported rather than as unreadable.
        struct Version: Decodable { var schemaVersion: String }
        let path = "manifest.json"
        let version: String
        do {
            version = try JSONDecoder().decode(Version.self, from: data).schemaVersion
        } catch {
            throw .unreadableManifest(path: path, reason: reason(error))
        }
        let major = version.split(separator: ".", maxSplits: 1).first.flatMap { Int($0) }
        guard major == BundleSchema.major else { throw .unsupportedSchema(path: path, version: version) }
        let manifest: Manifest
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: data)
        } catch {
            throw .unreadableManifest(path: path, reason: reason(error))
        }
        guard Manifest.contentVersion(of: manifest.files) == manifest.contentVersion else {
            throw .inconsistentManifest(path: path)
        }
        if let unsafe = manifest.files.first(where: { !isSafe($0.path) }) { throw .unsafePath(path: unsafe.path) }
        return manifest
    }

    /// Reads a file and checks its size and hash against the manifest.
    private static func read(_ file: Manifest.File, in folder: URL) throws(BundleError) -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: folder.appendingPathComponent(file.path))
        } catch {
            throw .missingFile(path: file.path)
        }
        guard data.count == file.size else {
            throw .sizeMismatch(path: file.path, expected: file.size, actual: data.count)
        }
        let actual = ContentHash.sha256Hex(data)
        guard actual == file.sha256.lowercased() else {
            throw .hashMismatch(path: file.path, expected: file.sha256, actual: actual)
        }
        return data
    }

    /// Whether a manifest's path is relative and stays inside the bundle folder: not empty, not
    /// absolute, no `.`, `..` or empty segment, no `\\` or NUL.
    public static func isSafe(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\\"), !path.contains("\0") else { return false }
        return !path.split(separator: "/", omittingEmptySubsequences: false).contains {
            $0 == ".." || $0.isEmpty || $0 == "."
        }
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
            DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let at = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return at.isEmpty ? context.debugDescription : "\(at): \(context.debugDescription)"
        default:
            return String(describing: error)
        }
    }
}
