import Foundation
import LockerKit
import LockerTestSupport
import Testing

/// `locker export anki`, checked by Anki itself: each package is imported into a fresh
/// collection by the `anki` package of PyPI (Tests/anki/import_apkg.py), and the collection's
/// notes, cards, decks and media are compared with the bundle.
@Suite struct AnkiExportTests {
    /// The pin in Tests/browser/requirements.txt, and the version `anki.buildinfo` reports for it.
    static let anki = "anki==26.9.3"
    static let ankiVersion = "26.09.3"

    // MARK: The default vault

    @Test func everyCardOfTheDefaultVaultBecomesANoteAnkiImports() throws {
        let folder = try BuiltContent.folder()
        let bundle = try BuiltContent.bundle()
        let work = try Scratch()
        defer { work.remove() }
        let run = try work.export(["--bundle", folder.path])
        #expect(run.status == 0, "\(run.stderr)")
        let decks = try bundle.decks(locale: "ru")
        let cards = decks.reduce(0) { $0 + $1.cards.count }
        // The cards' drawings, each once.
        let images = Set(
            decks.flatMap(\.cards).flatMap { $0.front + $0.back }.compactMap { block -> String? in
                if case .image(let image) = block.content { return image.src }
                return nil
            })
        #expect(!images.isEmpty)
        #expect(
            run.stdout
                == "Wrote out.apkg: \(cards) notes, \(cards) cards, \(decks.count + 1) decks, \(images.count) images (ru).\n"
        )

        let state = try work.importing([work.package])
        #expect(state.imports == [.init(new: cards)])
        // The default vault has no reversible cards: one note, one card each.
        #expect(state.notes.count == cards)
        #expect(state.notes.allSatisfy { $0.notetype == "Locker Basic" && $0.cards.map(\.ord) == [0] })
        #expect(Set(state.notes.map(\.notetypeID)).count == 1)
        #expect(
            state.decks
                == (["Captain's Locker (ru)", "Default"] + decks.map { "Captain's Locker (ru)::\($0.title)" }).sorted())

        // Each note's GUID is the derivation's for its card, and lies in its card's deck.
        let expected = try Self.guids(decks.flatMap { deck in deck.cards.map { ($0.uuid, "ru") } })
        let notes = Dictionary(uniqueKeysWithValues: state.notes.map { ($0.guid, $0) })
        for deck in decks {
            for card in deck.cards {
                let guid = try #require(expected[card.uuid + "/ru"])
                let note = try #require(notes[guid], "no note for \(deck.id)/\(card.id)")
                #expect(note.cards.map(\.deck) == ["Captain's Locker (ru)::\(deck.title)"])
                #expect(note.tags == deck.tags.sorted())
            }
        }
        // A card of plain text: the text itself in both fields.
        let card = try #require(
            try bundle.deck(id: "sound-signals", locale: "ru").cards.first { card in
                (card.front + card.back).allSatisfy { if case .paragraph = $0.content { true } else { false } }
            })
        let plainGUID = try #require(expected[card.uuid + "/ru"])
        let plain = try #require(notes[plainGUID])
        #expect(
            plain.fields == ["Front": Self.escaped(card.front.plainText), "Back": Self.escaped(card.back.plainText)])
    }

    @Test func theSameBundleGivesTheSameBytes() throws {
        let folder = try BuiltContent.folder()
        let work = try Scratch()
        defer { work.remove() }
        #expect(try work.export(["--bundle", folder.path, "--locale", "all"]).status == 0)
        let first = try Data(contentsOf: work.package)
        #expect(try work.export(["--bundle", folder.path, "--locale", "all"]).status == 0)
        #expect(try Data(contentsOf: work.package) == first)
    }

    @Test func eachLocaleHasItsOwnNotesAndDecks() throws {
        let folder = try BuiltContent.folder()
        let bundle = try BuiltContent.bundle()
        let work = try Scratch()
        defer { work.remove() }
        let run = try work.export(["sound-signals", "Дневные знаки", "--bundle", folder.path, "--locale", "all"])
        #expect(run.status == 0, "\(run.stderr)")
        let state = try work.importing([work.package])
        var expectedDecks = ["Default"]
        var cards: [(uuid: String, locale: String)] = []
        for locale in ["ru", "en"] {
            expectedDecks.append("Captain's Locker (\(locale))")
            for id in ["sound-signals", "day-shapes"] {
                let deck = try bundle.deck(id: id, locale: locale)
                expectedDecks.append("Captain's Locker (\(locale))::\(deck.title)")
                cards += deck.cards.map { ($0.uuid, locale) }
            }
        }
        #expect(state.decks == expectedDecks.sorted())
        #expect(state.notes.count == cards.count)
        // The same card in two languages is two notes.
        let expected = try Self.guids(cards)
        #expect(Set(state.notes.map(\.guid)) == Set(expected.values))
        #expect(Set(expected.values).count == cards.count)

        let oneShort = try #require(
            state.notes.first { $0.guid == expected[Self.uuid("sound-signals", "one-short") + "/en"] })
        #expect(oneShort.cards.map(\.deck) == ["Captain's Locker (en)::Sound signals"])
        // "I am altering my course to starboard" (Rule 34…), in quotes: escaped as HTML.
        let back = try bundle.deck(id: "sound-signals", locale: "en").cards.first { $0.id == "one-short" }?.back
        let text = try #require(back?.plainText)
        #expect(text.hasPrefix("\"I am altering my course to starboard\""))
        #expect(oneShort.fields["Back"] == Self.escaped(text))
    }

    // MARK: Reverse cards, images, links and nested decks, and importing again

    @Test func reverseCardsImagesLinksAndNestedDecksSurviveAndAReimportUpdates() throws {
        let work = try Scratch()
        defer { work.remove() }
        let vault = work.root.appendingPathComponent("vault")
        try FileManager.default.copyItem(at: BuiltContent.repository.appendingPathComponent("content"), to: vault)
        try work.write(Self.knots, in: vault)

        let first = try work.buildAndExport(vault, time: 1_000_000_000, as: "first.apkg")
        let bundle = try ContentBundle(contentsOf: work.root.appendingPathComponent("build/bundles/v1"))
        let knots = try bundle.deck(id: "knots", locale: "en")
        #expect(knots.cards.map(\.id) == ["bowline", "bowline-reverse", "reef", "bowline-picture"])
        let decks = try bundle.decks(locale: "en")
        let cardCount = decks.reduce(0) { $0 + $1.cards.count }

        let state = try work.importing([first])
        // One note less than cards: the bowline and its reverse are one note.
        #expect(state.imports == [.init(new: cardCount - 1)])
        #expect(state.notes.reduce(0) { $0 + $1.cards.count } == cardCount)
        #expect(state.decks.contains("Captain's Locker (en)::Seamanship::Knots"))
        #expect(state.decks.contains("Captain's Locker (en)::Seamanship"))

        let expected = try Self.guids(knots.cards.map { ($0.uuid, "en") })
        let note = { (id: String) throws -> Note in
            let guid = try #require(expected[Self.uuid("knots", id) + "/en"])
            return try #require(state.notes.first { $0.guid == guid }, "no note for \(id)")
        }
        let bowline = try note("bowline")
        #expect(bowline.notetype == "Locker Basic (and reversed card)")
        #expect(bowline.cards == [.init(ord: 0, deck: Self.knotsDeck), .init(ord: 1, deck: Self.knotsDeck)])
        #expect(bowline.fields == ["Front": "Bowline", "Back": "A fixed loop that neither slips nor jams"])
        #expect(bowline.tags == ["knots"])
        #expect(!state.notes.contains { $0.guid == Self.uuid("knots", "bowline-reverse") }, "no note of its own")

        let reef = try note("reef")
        #expect(reef.notetype == "Locker Basic")
        #expect(reef.fields["Front"] == "<strong>Reef knot</strong>")
        #expect(
            reef.fields["Back"]
                == "Joins two ends of one line, as at <a href=\"https://captainslocker.example/en/guides/anchoring/\">anchor</a>"
        )

        let picture = try note("bowline-picture")
        guard case .image(let image)? = knots.cards.last?.front.first?.content else {
            Issue.record("the picture card's front is no image: \(knots.cards.last?.front ?? [])")
            return
        }
        let media = "locker-" + URL(fileURLWithPath: image.src).lastPathComponent
        #expect(picture.fields["Front"] == "<p><img src=\"\(media)\" alt=\"\"></p>")
        // The picture, beside the drawings of the default vault's cards.
        #expect(state.media[media] == ContentHash.sha256Hex(Self.png))
        #expect(state.media.keys.filter { !$0.hasSuffix(".svg") } == [media])

        // The bowline's answer edited, built later: importing that export over the first updates
        // every note in place; the first export again is older and changes nothing.
        let deckNote = vault.appendingPathComponent("decks/seamanship/knots/_deck.md")
        let text = try String(contentsOf: deckNote, encoding: .utf8)
        try text.replacingOccurrences(of: "neither slips nor jams", with: "does not slip").write(
            to: deckNote, atomically: true, encoding: .utf8)
        let second = try work.buildAndExport(vault, time: 1_100_000_000, as: "second.apkg")
        let again = try work.importing([first, second, first])
        #expect(
            again.imports == [
                .init(new: cardCount - 1), .init(updated: cardCount - 1), .init(duplicate: cardCount - 1),
            ])
        #expect(again.notes.count == state.notes.count)
        #expect(Set(again.notes.map(\.guid)) == Set(state.notes.map(\.guid)))
        #expect(again.notes.first { $0.guid == bowline.guid }?.fields["Back"] == "A fixed loop that does not slip")
        #expect(again.notetypes.filter { $0.name.hasPrefix("Locker") }.count == 2, "\(again.notetypes)")
    }

    static let knotsDeck = "Captain's Locker (en)::Seamanship::Knots"

    /// Two nested decks in English and Russian: a reversible card, formatting, a link to a guide, an image.
    static let knots: [String: String] = [
        "decks/seamanship/_deck.md": """
        ---
        type: deck
        id: seamanship
        title: Seamanship
        lang: en
        ---
        What is a bight?::A loop made in the middle of a line ^bight

        """,
        "decks/seamanship/_deck.ru.md": """
        ---
        type: deck
        id: seamanship
        title: Морская практика
        lang: ru
        ---
        Что такое шлаг?::Петля, сделанная в середине троса ^bight

        """,
        "decks/seamanship/knots/_deck.md": """
        ---
        type: deck
        id: knots
        title: Knots
        lang: en
        tags: [knots]
        ---
        Bowline:::A fixed loop that neither slips nor jams ^bowline
        **Reef knot**::Joins two ends of one line, as at [[anchoring|anchor]] ^reef
        ![[bowline.png]]::The knot in the picture ^bowline-picture

        """,
        "decks/seamanship/knots/_deck.ru.md": """
        ---
        type: deck
        id: knots
        title: Узлы
        lang: ru
        tags: [knots]
        ---
        Беседочный узел:::Незатягивающаяся петля ^bowline
        **Рифовый узел**::Связывает два конца одного троса, как при [[anchoring|якорении]] ^reef
        ![[bowline.png]]::Узел на картинке ^bowline-picture

        """,
    ]

    /// A 1×1 PNG.
    static let png =
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
        ?? Data()

    // MARK: Errors

    /// Every vault `locker init` makes has the deck `knots` and the card `bowline`, so the same
    /// card uuids: two schools' exports in one collection must stay two sets of notes and decks.
    @Test func twoVaultsWithTheSameCardIDsStayApartInOneCollection() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var packages: [URL] = []
        for school in ["North", "South"] {
            let vault = scratch.root.appendingPathComponent(school)
            let deck = "---\ntype: deck\nid: knots\n---\nBowline::A loop, as \(school) teaches it ^bowline\n"
            for (path, text) in ["locker.yml": "title: \(school) school\n", "decks/knots/_deck.md": deck] {
                let url = vault.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
            }
            let build = try LockerRun(
                ["build", vault.path, "--out", "build-\(school)"], in: scratch.root,
                environment: ["SOURCE_DATE_EPOCH": "1800000000"])
            try #require(build.status == 0, "\(build.stdout)\(build.stderr)")
            let run = try scratch.export(["--bundle", "build-\(school)/bundles/v1"], out: "\(school).apkg")
            try #require(run.status == 0, "\(run.stderr)")
            packages.append(scratch.root.appendingPathComponent("\(school).apkg"))
        }
        let state = try scratch.importing(packages)
        #expect(state.imports.map(\.new) == [1, 1], "the second school's note is new, not an update of the first's")
        #expect(state.notes.count == 2)
        #expect(Set(state.notes.flatMap { $0.cards.map(\.deck) }) == ["North school::knots", "South school::knots"])
        let uuid = Self.uuid("knots", "bowline")
        for school in ["North", "South"] {
            let guid = try #require(try Self.guids([(uuid, "en")], collection: "\(school) school")[uuid + "/en"])
            let note = try #require(state.notes.first { $0.guid == guid })
            #expect(note.fields["Back"] == "A loop, as \(school) teaches it")
        }
    }

    @Test func anUnknownDeckOrLocaleIsAUsageErrorAndWritesNothing() throws {
        let folder = try BuiltContent.folder()
        let work = try Scratch()
        defer { work.remove() }
        let deck = try work.export(["knots", "--bundle", folder.path])
        #expect(deck.status == 2)
        #expect(
            deck.stderr
                == "locker: no deck 'knots'. Decks: sound-signals, navigation-lights, colregs-rules, day-shapes.\n")
        let locale = try work.export(["--bundle", folder.path, "--locale", "de"])
        #expect(locale.status == 2)
        #expect(locale.stderr == "locker: --locale de: the bundle has ru, en.\n")
        let noOut = try LockerRun(["export", "anki", "--bundle", folder.path], in: work.root)
        #expect(noOut.status == 2)
        #expect(noOut.stderr.contains("Missing expected argument '--out <out>'"), "\(noOut.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.package.path))
    }

    @Test func aBundleFailingVerificationExitsThreeAndWritesNothing() throws {
        let work = try Scratch()
        defer { work.remove() }
        let bundle = work.root.appendingPathComponent("bundle")
        try FileManager.default.copyItem(at: try BuiltContent.folder(), to: bundle)
        let decks = bundle.appendingPathComponent("deck/en")
        let file = try #require(
            try FileManager.default.contentsOfDirectory(atPath: decks.path).sorted().first { !$0.hasPrefix("index.") })
        var data = try Data(contentsOf: decks.appendingPathComponent(file))
        data[data.count - 3] ^= 0x01
        try data.write(to: decks.appendingPathComponent(file))
        let run = try work.export(["--bundle", bundle.path])
        #expect(run.status == 3)
        #expect(run.stderr.hasPrefix("locker: bundle: "), "\(run.stderr)")
        #expect(run.stderr.contains("deck/en/\(file)"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.package.path))
    }

    // MARK: Support

    /// Text as HTML escapes it: `&`, `<`, `>` and both quotes.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    /// A card's uuid, as bundle-format.md derives it.
    static func uuid(_ deck: String, _ card: String) -> String {
        ContentIdentity.uuidString(kind: .deck, id: deck, part: ["card", card])
    }

    /// The GUIDs docs/runtime.md derives, computed apart from Locker: Anki's base91 (from the
    /// `anki` package) of the first 8 bytes of SHA-256 of `<card uuid>/<locale>`; by that text.
    /// The GUID of each card's note, by `<card uuid>/<locale>`, computed with Anki's base91 in
    /// the collection named `collection` (the vault's title).
    static func guids(_ cards: [(uuid: String, locale: String)], collection: String = "Captain's Locker") throws
        -> [String: String]
    {
        let script = """
            import hashlib, json, sys
            from anki.utils import base91
            collection, names = json.load(open(sys.argv[1]))
            digest = lambda name: int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
            json.dump({name: base91(digest(collection + "/" + name)) for name in names}, open(sys.argv[2], "w"))
            """
        let names: [String] = cards.map { $0.uuid + "/" + $0.locale }
        let input = try JSONSerialization.data(withJSONObject: [collection, names] as [Any])
        let output = try PythonReference.run(script, input: input, package: anki)
        return try JSONDecoder().decode([String: String].self, from: output)
    }

    /// What Tests/anki/import_apkg.py writes.
    struct Collection: Decodable {
        var version: String
        var imports: [Log]
        var notes: [Note]
        var decks: [String]
        var notetypes: [Notetype]
        /// SHA-256 by file name.
        var media: [String: String]
    }

    /// What one import did to how many notes.
    struct Log: Decodable, Equatable {
        var new = 0
        var updated = 0
        var duplicate = 0
        var conflicting = 0
    }

    struct Note: Decodable {
        var guid: String
        var notetype: String
        var notetypeID: Int
        var fields: [String: String]
        var tags: [String]
        var cards: [Card]

        struct Card: Decodable, Equatable {
            var ord: Int
            var deck: String
        }
    }

    struct Notetype: Decodable {
        var id: Int
        var name: String
    }

    /// A folder for one test: the package is `out.apkg`, the collection `collection.anki2`.
    struct Scratch {
        let root: URL
        var package: URL { root.appendingPathComponent("out.apkg") }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("locker-anki-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }

        /// `locker export anki … --out out.apkg`.
        func export(_ arguments: [String], out: String = "out.apkg") throws -> LockerRun {
            try LockerRun(["export", "anki"] + arguments + ["--out", out], in: root)
        }

        func write(_ files: [String: String], in vault: URL) throws {
            for (path, text) in files {
                let url = vault.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
            }
            try AnkiExportTests.png.write(to: vault.appendingPathComponent("decks/seamanship/knots/bowline.png"))
        }

        /// Builds `vault` into `build/` with the content's time `time`, and exports it in English.
        func buildAndExport(_ vault: URL, time: Int, as name: String) throws -> URL {
            let build = try LockerRun(
                ["build", vault.path, "--out", "build"], in: root, environment: ["SOURCE_DATE_EPOCH": String(time)])
            try #require(build.status == 0, "\(build.stdout)\(build.stderr)")
            let run = try export(["--bundle", "build/bundles/v1", "--locale", "en"], out: name)
            try #require(run.status == 0, "\(run.stderr)")
            return root.appendingPathComponent(name)
        }

        /// Imports `packages` in turn into a new collection with Anki's code, and reads it.
        func importing(_ packages: [URL]) throws -> Collection {
            let collection = root.appendingPathComponent("collection-\(UUID().uuidString).anki2")
            let output = root.appendingPathComponent("collection-\(UUID().uuidString).json")
            try PythonReference.run(
                file: BuiltContent.repository.appendingPathComponent("Tests/anki/import_apkg.py"),
                arguments: [collection.path, output.path] + packages.map(\.path), package: AnkiExportTests.anki)
            let state = try JSONDecoder().decode(Collection.self, from: Data(contentsOf: output))
            try #require(state.version == AnkiExportTests.ankiVersion, "the reference is anki \(state.version)")
            return state
        }
    }
}
