import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// A rebuild that links a few notes answers their questions by looking at every note rather
/// than building the link tables (``VaultIndex/init(notes:assets:scanningFirst:)``): the answers
/// must be the tables' own, in the same order, before and after it builds them after all.
@Suite struct VaultIndexTests {
    /// Notes that share names across folders and cases, translations with a locale suffix, a
    /// note with no extension dot to speak of, aliases and non-ASCII names.
    static let paths = [
        "guides/anchoring.md", "guides/anchoring.ru.md", "practice/anchoring.md", "Practice/Anchoring.md",
        "guides/Knots.md", "guides/knots-2.md", ".hidden-name.md", "top.md", "guides/deep/er/top.md",
        "Практика/Якорная стоянка.md", "практика/якорная стоянка.ru.md", "guides/v1.2.notes.md",
    ]

    static func notes() -> [ParsedNote] {
        var config = VaultConfig()
        config.locales = ["en", "ru"]
        let parser = NoteParser(config: config)
        return paths.enumerated().compactMap { place, path in
            let text = "---\nid: note-\(place)\naliases: [Alias \(place % 3), \(path.uppercased())]\n---\nText.\n"
            return parser.parse(path: path, bytes: Array(text.utf8)).0
        }
    }

    /// Every question asked of both indexes, as text: each note's keys as they are, in upper and
    /// lower case, cut short, and names no note has.
    static func questions(_ notes: [ParsedNote]) -> [String] {
        var keys: [String] = ["", "/", "missing", "guides", "ANCHORING", "top", "er/top", "v1.2", "v1"]
        for note in notes {
            let own = String(VaultPath.removingExtension(from: note.path))
            for key in [own, note.basePath, VaultPath.fileName(of: own), VaultPath.fileName(of: note.basePath)] {
                keys += [key, key.uppercased(), key.lowercased(), String(key.dropFirst()), String(key.dropLast())]
            }
            keys += note.frontmatter.aliases
        }
        return keys.map { $0.precomposedStringWithCanonicalMapping }
    }

    /// Every answer of `index` to `questions`, each kind of question in turn.
    static func answers(_ index: VaultIndex, _ questions: [String]) -> [String] {
        questions.flatMap { key in
            [
                "path \(key): \(index.notes(atPath: key))", "named \(key): \(index.notes(named: key))",
                "aliased \(key): \(index.notes(aliased: key))",
            ]
        } + questions.filter { $0.contains("/") }.map { "partial \($0): \(index.notes(matchingPartialPath: $0))" }
    }

    @Test func scanningGivesTheTablesAnswersBeforeAndAfterItBuildsThem() throws {
        let notes = Self.notes()
        try #require(notes.count == Self.paths.count)
        let questions = Self.questions(notes)
        let tables = VaultIndex(notes: notes, assets: [])
        let expected = Self.answers(tables, questions)
        // Each question asked first: answered by looking at every note when it is exact.
        for question in questions {
            let scanning = VaultIndex(notes: notes, assets: [], scanningFirst: true)
            #expect(Self.answers(scanning, [question]) == Self.answers(tables, [question]))
        }
        // Far more questions than are scanned for: the tables are built partway through.
        #expect(questions.count > 3 * 48)
        #expect(Self.answers(VaultIndex(notes: notes, assets: [], scanningFirst: true), questions) == expected)

        // Exact questions alone, a few: answered without the tables, by their bytes.
        let exact = notes.map { VaultPath.fileName(of: $0.basePath) }
        let scanning = VaultIndex(notes: notes, assets: [], scanningFirst: true)
        #expect(exact.map { scanning.notes(named: $0) } == exact.map { tables.notes(named: $0) })
        #expect(notes.map { scanning.notes(atPath: $0.basePath) } == notes.map { tables.notes(atPath: $0.basePath) })

        // Answers that list a note twice, or several notes, are the sharpest test of the order.
        #expect(tables.notes(named: "anchoring").count == 3)
        #expect(scanning.notes(named: "anchoring") == [0, 1, 2])
        #expect(scanning.notes(named: "Anchoring") == [3])
        #expect(scanning.notes(named: "top") == [7, 8])
    }
}

extension VaultIndexTests {
    /// A rebuild over the output links the one note edited, the others kept from the record:
    /// its links, in every form, find what a clean build finds (``NoteRecordTests/rebuild(_:_:)``
    /// compares files and diagnostics), whether the tables were needed or not.
    @Test func aRebuildThatLinksOneNoteFindsWhatACleanBuildFinds() throws {
        let decomposed = "Якорная стоянка".decomposedStringWithCanonicalMapping
        let links = [
            // Exact: by name, by path, a translation by its shared name, an alias, a non-ASCII
            // name written decomposed, a name in two folders but one in the note's own.
            "[[knots]] [[guides/knots]] [[anchoring]] [[The Bowline Book]] [[\(decomposed)]] [[top]]",
            // In other case, by a path's end: the tables are built.
            "[[KNOTS]] [[deep/under]] [[the bowline book]] [[якорная СТОЯНКА]] [[Anchoring]] [[TOP]]",
        ]
        let vault = try TestVault(
            [
                "guides/editing.md": "---\nid: editing\n---\nLinks.\n",
                "guides/knots.md": "---\nid: knots\naliases: [The Bowline Book]\n---\n## Bowline\n",
                "guides/anchoring.md": "---\nid: anchoring\n---\n## Chain\n",
                "guides/anchoring.ru.md": "---\nid: anchoring\n---\n## Цепь\n",
                "top.md": "---\nid: top\n---\nTop.\n",
                "guides/top.md": "---\nid: guides-top\n---\nTop of the guides.\n",
                "guides/deep/under.md": "---\nid: deep-under\n---\nDeep.\n",
                "Практика/Якорная стоянка.md": "---\nid: yakor\n---\nТекст.\n",
            ],
            config: "locales: [en, ru]\n")
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        _ = try NoteRecordTests.rebuild(vault, output)
        for (step, text) in links.enumerated() {
            try vault.write("guides/editing.md", Data("---\nid: editing\n---\n\(text)\n\nStep \(step).\n".utf8))
            let rebuilt = try NoteRecordTests.rebuild(vault, output)
            #expect(rebuilt.builtGuides.map(\.id) == ["editing"])
            #expect(rebuilt.diagnostics.isEmpty, "\(rebuilt.diagnostics)")
            // Written as it was built: read back from its bundle file.
            guard case .written(let written)? = rebuilt.documents.first(where: { $0.id == "editing" }) else {
                Issue.record("editing was not written as it was built")
                continue
            }
            let file = output.appendingPathComponent(BundleSchema.folder + "/" + written.file.path)
            #expect(try JSONDecoder().decode(Guide.self, from: Data(contentsOf: file)).links.count == 6)
        }
    }
}
