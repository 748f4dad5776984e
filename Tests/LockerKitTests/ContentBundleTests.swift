import Foundation
import LockerKit
import Testing

/// A small bundle written by hand: decks in English and Russian, a checklist, a deck index and an
/// asset, with a manifest listing each file's size and SHA-256.
struct HandBundle {
    struct Entry {
        var path: String
        var kind: String
        var locale: String?
        var id: String?
        var lists: String?
        var data: Data
    }

    var entries: [Entry] = []
    var schemaVersion = BundleSchema.version
    var defaultLocale = "en"
    var locales = ["en", "ru"]

    static func card(_ id: String, deck: String, _ front: String, _ back: String) -> Card {
        Card(
            id: id, uuid: ContentIdentity.uuidString(kind: .deck, id: deck, part: ["card", id]),
            front: [Block(.paragraph([.text(front)]))], back: [Block(.paragraph([.text(back)]))], frontText: front,
            source: "\(deck).md", explicitID: true)
    }

    static func deck(_ id: String, locale: String, title: String, cards: [Card]) -> Deck {
        Deck(
            id: id, uuid: ContentIdentity.uuidString(kind: .deck, id: id), locale: locale, title: title,
            description: nil, tags: ["colregs"], order: nil, source: "\(id)/_deck.md", extra: ["level": .int(2)],
            cards: cards)
    }

    static let flagsEN = deck(
        "flags", locale: "en", title: "Flags",
        cards: [
            card("alpha", deck: "flags", "Alpha", "Diver down"),
            card("bravo", deck: "flags", "Bravo", "Dangerous cargo"),
        ])
    static let flagsRU = deck(
        "flags", locale: "ru", title: "Флаги",
        cards: [
            card("alpha", deck: "flags", "Альфа", "Водолаз"), card("bravo", deck: "flags", "Браво", "Опасный груз"),
        ])
    static let knotsRU = deck(
        "knots", locale: "ru", title: "Узлы", cards: [card("bowline", deck: "knots", "Булинь", "Беседочный")])
    static let checkIn = ChecklistFixtures.checkIn()
    static let asset = Data((0..<64).map { UInt8($0) })

    /// The standard bundle.
    static func standard() throws -> HandBundle {
        var bundle = HandBundle()
        try bundle.add(flagsEN, kind: "deck", locale: "en", id: "flags")
        try bundle.add(flagsRU, kind: "deck", locale: "ru", id: "flags")
        try bundle.add(knotsRU, kind: "deck", locale: "ru", id: "knots")
        try bundle.add(checkIn, kind: "checklist", locale: "en", id: "check-in")
        let index = ContentIndex(
            kind: .deck, locale: "en",
            entries: [
                .init(
                    id: "knots", uuid: knotsRU.uuid, title: "Узлы", subtitle: nil, category: nil, type: nil, tags: [],
                    order: 1, locale: "ru", cardCount: 1),
                .init(
                    id: "flags", uuid: flagsEN.uuid, title: "Flags", subtitle: nil, category: nil, type: nil, tags: [],
                    order: 2, locale: "en", cardCount: 2),
            ])
        bundle.entries.append(
            Entry(
                path: "deck/en/index.json", kind: "index", locale: "en", id: nil, lists: "deck",
                data: try CanonicalJSON.encode(index)))
        bundle.entries.append(
            Entry(path: "assets/boat.png", kind: "asset", locale: nil, id: nil, lists: nil, data: asset))
        return bundle
    }

    mutating func add(_ value: some Encodable, kind: String, locale: String, id: String) throws {
        entries.append(
            Entry(
                path: "\(kind)/\(locale)/\(id).json", kind: kind, locale: locale, id: id, lists: nil,
                data: try CanonicalJSON.encode(value)))
    }

    /// The manifest's file list, sorted by path.
    var files: [Manifest.File] {
        entries.sorted { $0.path < $1.path }.map {
            Manifest.File(
                path: $0.path, kind: $0.kind, locale: $0.locale, id: $0.id, lists: $0.lists,
                sha256: ContentHash.sha256Hex($0.data), size: $0.data.count)
        }
    }

    var manifest: Manifest {
        Manifest(
            schemaVersion: schemaVersion, contentVersion: Manifest.contentVersion(of: files),
            generatedAt: "2026-01-01T00:00:00Z", title: "Sailing", defaultLocale: defaultLocale, locales: locales,
            deepLinkScheme: nil, files: files)
    }

    /// Writes the bundle into a new temporary folder (the bundle is in its `bundle` subfolder).
    func write(manifest: Manifest? = nil) throws -> TemporaryBundle {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-kit-bundle-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("bundle")
        for entry in entries where !entry.path.hasPrefix("../") && !entry.path.hasPrefix("/") {
            let url = folder.appendingPathComponent(entry.path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try entry.data.write(to: url)
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try CanonicalJSON.encode(manifest ?? self.manifest).write(to: folder.appendingPathComponent("manifest.json"))
        return TemporaryBundle(root: root, folder: folder)
    }
}

struct TemporaryBundle {
    let root: URL
    let folder: URL

    func url(_ path: String) -> URL { folder.appendingPathComponent(path) }
    func remove() { try? FileManager.default.removeItem(at: root) }
}

@Suite struct ContentBundleTests {
    @Test func opensAndDecodes() throws {
        let hand = try HandBundle.standard()
        let written = try hand.write()
        defer { written.remove() }
        let bundle = try ContentBundle(contentsOf: written.folder)
        #expect(bundle.manifest == hand.manifest)
        #expect(bundle.defaultLocale == "en")
        #expect(bundle.locales == ["en", "ru"])
        #expect(bundle.ids(of: .deck) == ["flags", "knots"])
        #expect(bundle.ids(of: .checklist) == ["check-in"])
        #expect(bundle.ids(of: .guide) == [])
        #expect(try bundle.deck(id: "flags", locale: "en") == HandBundle.flagsEN)
        #expect(try bundle.deck(id: "flags", locale: "ru") == HandBundle.flagsRU)
        #expect(try bundle.checklist(id: "check-in", locale: "en") == HandBundle.checkIn)
        #expect(try bundle.asset(at: "assets/boat.png") == HandBundle.asset)
        // Decks in the index's order, each in the locale asked for or its fallback.
        #expect(try bundle.decks(locale: "en") == [HandBundle.knotsRU, HandBundle.flagsEN])
        #expect(try bundle.index(of: .deck, locale: "en")?.entries.map(\.id) == ["knots", "flags"])
        #expect(try bundle.index(of: .guide, locale: "en") == nil)
    }

    @Test func fallsBackToAnotherLocale() throws {
        let written = try HandBundle.standard().write()
        defer { written.remove() }
        let bundle = try ContentBundle(contentsOf: written.folder)
        // Only in Russian: asked for in English, it is read in Russian.
        #expect(bundle.resolvedLocale(of: .deck, id: "knots", for: "en") == "ru")
        #expect(try bundle.deck(id: "knots", locale: "en") == HandBundle.knotsRU)
        // A locale the bundle does not have: the default locale.
        #expect(bundle.resolvedLocale(of: .deck, id: "flags", for: "de") == "en")
        #expect(try bundle.deck(id: "flags", locale: "de") == HandBundle.flagsEN)
        // Only in English: asked for in Russian, it is read in the default locale.
        #expect(try bundle.checklist(id: "check-in", locale: "ru") == HandBundle.checkIn)
        #expect(bundle.resolvedLocale(of: .deck, id: "nope", for: "en") == nil)
    }

    @Test func anUnknownIDIsNotFound() throws {
        let written = try HandBundle.standard().write()
        defer { written.remove() }
        let bundle = try ContentBundle(contentsOf: written.folder)
        #expect(throws: BundleError.notFound(kind: .deck, id: "nope")) { try bundle.deck(id: "nope", locale: "en") }
        #expect(throws: BundleError.notFound(kind: .checklist, id: "flags")) {
            try bundle.checklist(id: "flags", locale: "en")
        }
        #expect(BundleError.notFound(kind: .deck, id: "nope").path == nil)
    }

    @Test func aTamperedFileIsAHashMismatchNamingIt() throws {
        let hand = try HandBundle.standard()
        let written = try hand.write()
        defer { written.remove() }
        let path = "deck/en/flags.json"
        let url = written.url(path)
        var data = try Data(contentsOf: url)
        let original = data
        // "Diver down" → "Diver Down": one byte, same size.
        let range = try #require(data.range(of: Data("Diver down".utf8)))
        data[range.lowerBound + 6] = UInt8(ascii: "D")
        #expect(data.count == original.count && data != original)
        try data.write(to: url)
        #expect(
            throws: BundleError.hashMismatch(
                path: path, expected: ContentHash.sha256Hex(original), actual: ContentHash.sha256Hex(data))
        ) { try ContentBundle(contentsOf: written.folder) }
    }

    @Test func aTruncatedFileIsASizeMismatchNamingIt() throws {
        let written = try HandBundle.standard().write()
        defer { written.remove() }
        let path = "checklist/en/check-in.json"
        let data = try Data(contentsOf: written.url(path))
        try data.prefix(data.count - 10).write(to: written.url(path))
        #expect(throws: BundleError.sizeMismatch(path: path, expected: data.count, actual: data.count - 10)) {
            try ContentBundle(contentsOf: written.folder)
        }
    }

    @Test func aMissingFileIsNamed() throws {
        let written = try HandBundle.standard().write()
        defer { written.remove() }
        try FileManager.default.removeItem(at: written.url("deck/ru/knots.json"))
        #expect(throws: BundleError.missingFile(path: "deck/ru/knots.json")) {
            try ContentBundle(contentsOf: written.folder)
        }
    }

    @Test func aTamperedAssetIsCaughtWhenReadAgain() throws {
        let written = try HandBundle.standard().write()
        defer { written.remove() }
        let bundle = try ContentBundle(contentsOf: written.folder)
        var changed = HandBundle.asset
        changed[0] = 0xFF
        try changed.write(to: written.url("assets/boat.png"))
        #expect(
            throws: BundleError.hashMismatch(
                path: "assets/boat.png", expected: ContentHash.sha256Hex(HandBundle.asset),
                actual: ContentHash.sha256Hex(changed))
        ) { try bundle.asset(at: "assets/boat.png") }
        #expect(throws: BundleError.missingFile(path: "assets/none.png")) { try bundle.asset(at: "assets/none.png") }
    }

    @Test func anUnknownSchemaMajorIsUnsupported() throws {
        var hand = try HandBundle.standard()
        hand.schemaVersion = "2.0"
        let written = try hand.write()
        defer { written.remove() }
        #expect(throws: BundleError.unsupportedSchema(path: "manifest.json", version: "2.0")) {
            try ContentBundle(contentsOf: written.folder)
        }
        // A newer minor version of the same major is read.
        hand.schemaVersion = "1.7"
        let newerMinor = try hand.write()
        defer { newerMinor.remove() }
        #expect(try ContentBundle(contentsOf: newerMinor.folder).manifest.schemaVersion == "1.7")
    }

    @Test(arguments: ["not json at all", "{\"schemaVersion\": \"1.1\"}", "[1, 2]", ""])
    func anUnreadableManifestIsReported(_ text: String) throws {
        let written = try HandBundle.standard().write()
        defer { written.remove() }
        try Data(text.utf8).write(to: written.url("manifest.json"))
        let error = #expect(throws: BundleError.self) { try ContentBundle(contentsOf: written.folder) }
        guard case .unreadableManifest(let path, _) = error else {
            Issue.record("expected unreadableManifest, got \(String(describing: error))")
            return
        }
        #expect(path == "manifest.json")
    }

    @Test(arguments: ["../x.json", "/tmp/x.json", "deck/../../x.json", "deck//x.json", "./deck/x.json", "deck\\x.json"])
    func anUnsafePathIsRefused(_ unsafe: String) throws {
        var hand = try HandBundle.standard()
        let data = Data("{}\n".utf8)
        hand.entries.append(.init(path: unsafe, kind: "asset", locale: nil, id: nil, lists: nil, data: data))
        let written = try hand.write()
        defer { written.remove() }
        // The file exists outside the bundle and would verify: it must not be read at all.
        try data.write(to: written.root.appendingPathComponent("x.json"))
        #expect(throws: BundleError.unsafePath(path: unsafe)) { try ContentBundle(contentsOf: written.folder) }
    }

    @Test func aContentVersionThatDoesNotMatchTheFilesIsInconsistent() throws {
        let hand = try HandBundle.standard()
        var manifest = hand.manifest
        manifest.contentVersion = ContentHash.sha256Hex(Data("something else".utf8))
        let written = try hand.write(manifest: manifest)
        defer { written.remove() }
        #expect(throws: BundleError.inconsistentManifest(path: "manifest.json")) {
            try ContentBundle(contentsOf: written.folder)
        }

        // A file left out of the list without updating the content version is inconsistent too.
        var files = hand.manifest.files
        files.removeAll { $0.path == "deck/ru/knots.json" }
        var stale = hand.manifest
        stale.files = files
        let second = try hand.write(manifest: stale)
        defer { second.remove() }
        #expect(throws: BundleError.inconsistentManifest(path: "manifest.json")) {
            try ContentBundle(contentsOf: second.folder)
        }
        // With the content version brought up to date, the shorter list is a valid bundle.
        stale.contentVersion = Manifest.contentVersion(of: files)
        let third = try hand.write(manifest: stale)
        defer { third.remove() }
        #expect(try ContentBundle(contentsOf: third.folder).ids(of: .deck) == ["flags"])
    }

    @Test func aVerifiedFileThatIsNotADeckIsUndecodableWhenAskedFor() throws {
        var hand = try HandBundle.standard()
        let notADeck = Data("{\n  \"hello\": \"world\"\n}\n".utf8)
        hand.entries.append(
            .init(path: "deck/en/broken.json", kind: "deck", locale: "en", id: "broken", lists: nil, data: notADeck))
        let written = try hand.write()
        defer { written.remove() }
        // The bundle opens: documents are decoded when asked for.
        let bundle = try ContentBundle(contentsOf: written.folder)
        let error = #expect(throws: BundleError.self) { try bundle.deck(id: "broken", locale: "en") }
        guard case .undecodable(let path, let reason) = error else {
            Issue.record("expected undecodable, got \(String(describing: error))")
            return
        }
        #expect(path == "deck/en/broken.json")
        #expect(!reason.isEmpty)
        #expect(error?.path == "deck/en/broken.json")
        // The other decks are still read.
        #expect(try bundle.deck(id: "flags", locale: "en") == HandBundle.flagsEN)
    }

    @Test func aFolderWithoutAManifestIsNotABundle() throws {
        let written = try HandBundle.standard().write()
        defer { written.remove() }
        try FileManager.default.removeItem(at: written.url("manifest.json"))
        #expect(throws: BundleError.missingManifest(path: "manifest.json")) {
            try ContentBundle(contentsOf: written.folder)
        }
        let nowhere = written.root.appendingPathComponent("does-not-exist")
        #expect(throws: BundleError.missingManifest(path: "manifest.json")) { try ContentBundle(contentsOf: nowhere) }
    }

    @Test func everyErrorNamesItsFile() {
        let errors: [BundleError] = [
            .missingManifest(path: "manifest.json"), .unreadableManifest(path: "manifest.json", reason: "r"),
            .unsupportedSchema(path: "manifest.json", version: "9.0"), .inconsistentManifest(path: "manifest.json"),
            .unsafePath(path: "../a"), .missingFile(path: "a/b.json"),
            .sizeMismatch(path: "a/b.json", expected: 2, actual: 1),
            .hashMismatch(path: "a/b.json", expected: "aa", actual: "bb"), .undecodable(path: "a/b.json", reason: "r"),
        ]
        for error in errors {
            #expect(error.path.map { error.description.hasPrefix($0 + ": ") } == true, "\(error)")
        }
    }
}
