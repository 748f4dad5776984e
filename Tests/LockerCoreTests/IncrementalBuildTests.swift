import Foundation
import LockerKit
import LockerTestSupport
import Testing

@testable import LockerCore

/// A build into memory over the previous one's output (``MemoryBuilds``, what `locker serve`
/// does) gives exactly what a clean build gives, and keeps only what nothing it was made from
/// changed. The same rules over an output folder: `NoteRecordTests`, `PageInputsTests`.
@Suite struct IncrementalBuildTests {
    static let environment = ["SOURCE_DATE_EPOCH": "1700000000"]

    /// The default vault, with a deck of card notes and an embedded image added.
    static func baseVault() throws -> TestVault {
        let vault = try TestVault([:])
        let content = SiteTests.defaultVault.path
        let fileManager = FileManager.default
        let paths = try #require(fileManager.enumerator(atPath: content)).compactMap { $0 as? String }
        for path in paths.sorted() {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: content + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { continue }
            try vault.write(path, try Data(contentsOf: URL(fileURLWithPath: content + "/" + path)))
        }
        let config = try String(contentsOf: vault.root.appendingPathComponent("locker.yml"), encoding: .utf8)
        try vault.write(
            "locker.yml",
            Data(config.replacingOccurrences(of: "  site: page\n", with: "  site: page\n  cards: deck\n").utf8))
        try vault.write("cards/Ball.md", Data("---\nid: ball\n---\n# Шар\n\nСудно на якоре. См. [[anchoring]].\n".utf8))
        try vault.write(
            "cards/Ball.en.md",
            Data("---\nid: ball\n---\n# Ball\n\nA vessel at anchor. See [[anchoring#Anchor watch]].\n".utf8))
        try vault.write("cards/Cone.md", Data("# Конус\n\nПарусное судно под мотором.\n".utf8))
        try vault.write("guides/images/boat.png", Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3]))
        try vault.write(
            "guides/picture.md",
            Data(
                "---\ntitle: Picture\n---\n## The boat\n\n![[boat.png]]\n\nA boat. ^boat\n\n## Rigging\n\nLines.\n".utf8
            ))
        return vault
    }

    /// A clean build of the vault.
    private static func clean(_ vault: TestVault) throws -> Compilation {
        try Compiler(vault: vault.root, environment: environment).compile()
    }

    /// A build of the vault over the last good one of `builds`, with its files and the paths of
    /// those it kept.
    private static func rebuild(_ vault: TestVault, _ builds: MemoryBuilds) throws -> (Compilation, kept: [String]) {
        var (compilation, output) = try builds.build(Compiler(vault: vault.root, environment: environment))
        if !compilation.failed { compilation.files = output.files }
        return (compilation, output.kept)
    }

    /// How many of `kept` are the guides' index pages. (Bundle indexes are listed and encoded
    /// again, and written with the same bytes: ``guideIndex(_:)``.)
    private static func indexes(_ kept: [String]) -> Int {
        kept.count { $0 == "site/guides/index.html" }
    }

    /// The path of the guides' bundle index, named by its hash.
    private static func guideIndex(_ compilation: Compilation) -> String? {
        compilation.files.first { $0.path.hasPrefix("bundles/v1/guide/en/index.") }?.path
    }

    /// Where two compilations differ, for a failure message; empty when they agree.
    private static func differences(_ incremental: Compilation, _ clean: Compilation) -> [String] {
        var found: [String] = []
        if incremental.diagnostics != clean.diagnostics {
            let left = Set(incremental.diagnostics)
            let right = Set(clean.diagnostics)
            found += left.subtracting(right).map { "only incremental: \($0.message) (\($0.file))" }
            found += right.subtracting(left).map { "only clean: \($0.message) (\($0.file))" }
            if found.isEmpty { found.append("diagnostics in another order") }
        }
        let left = Dictionary(incremental.files.map { ($0.path, $0.data) }, uniquingKeysWith: { a, _ in a })
        let right = Dictionary(clean.files.map { ($0.path, $0.data) }, uniquingKeysWith: { a, _ in a })
        for path in Set(left.keys).union(right.keys).sorted() where left[path] != right[path] {
            found.append(
                left[path] == nil
                    ? "only clean: \(path)" : right[path] == nil ? "only incremental: \(path)" : "differs: \(path)")
        }
        if incremental.stamps != clean.stamps { found.append("ID stamps differ") }
        if incremental.noteCount != clean.noteCount { found.append("note counts differ") }
        return found
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func randomEditsGiveTheCleanBuildsOutput(seed: UInt64) throws {
        let vault = try Self.baseVault()
        defer { vault.remove() }
        var editor = VaultEditor(vault: vault, seed: seed)
        let builds = MemoryBuilds()
        let (first, _) = try Self.rebuild(vault, builds)
        #expect(!first.files.isEmpty, "the base vault builds")
        var kept = 0
        for step in 1...20 {
            try editor.randomEdit(step: step)
            let (incremental, _) = try Self.rebuild(vault, builds)
            kept += incremental.keptGuides.count
            let differences = Self.differences(incremental, try Self.clean(vault))
            #expect(
                differences.isEmpty,
                "seed \(seed), after: \(editor.log.joined(separator: "; "))\n\(differences.prefix(10).joined(separator: "\n"))"
            )
            if !differences.isEmpty { break }
        }
        #expect(kept > 0, "later builds kept guides")
    }

    /// Four notes: `b` links to a heading of `a`, `d` embeds `a`, `c` stands alone.
    static func smallVault() throws -> TestVault {
        try TestVault([
            "a.md": "# A\n\n## Alpha\n\nText of a.\n",
            "b.md": "# B\n\nSee [[a#Alpha]].\n",
            "c.md": "# C\n\nAlone.\n",
            "d.md": "# D\n\n![[a]]\n",
        ])
    }

    @Test func aRenamedHeadingRebuildsTheNotesThatLinkToItAndEmbedIt() throws {
        let vault = try Self.smallVault()
        defer { vault.remove() }
        let builds = MemoryBuilds()
        let (first, keptFirst) = try Self.rebuild(vault, builds)
        #expect(first.builtDocuments == 4)
        #expect(keptFirst.isEmpty)

        try vault.write("a.md", Data("# A\n\n## Alpha renamed\n\nText of a.\n".utf8))
        let (compilation, kept) = try Self.rebuild(vault, builds)
        // c is kept whole; a, the note linking to its heading and the note embedding it are
        // built again. The indexes show titles alone: every one is kept.
        #expect(compilation.keptGuides == ["c"])
        #expect(compilation.builtDocuments == 3)
        // c's bundle file and page, and the guides' index page; their bundle index has its bytes.
        #expect(
            kept == [
                "bundles/v1/guide/en/\(try Self.bundleName(of: "c", in: first))", "site/guides/c/index.html",
                "site/guides/index.html",
            ])
        #expect(Self.guideIndex(compilation) == Self.guideIndex(first))
        let broken = compilation.diagnostics.map { "\($0.file):\($0.position.line) \($0.code.rawValue)" }
        #expect(broken == ["b.md:3 link.broken-heading"])
        #expect(Self.differences(compilation, try Self.clean(vault)).isEmpty)
    }

    /// The file name of the guide `id`'s bundle file in `compilation`.
    private static func bundleName(of id: String, in compilation: Compilation) throws -> String {
        let file = try #require(compilation.manifest?.files.first { $0.kind == "guide" && $0.id == id })
        return String(try #require(file.path.split(separator: "/").last))
    }

    @Test func anUnchangedVaultKeepsEverything() throws {
        let vault = try Self.smallVault()
        defer { vault.remove() }
        let builds = MemoryBuilds()
        let (first, _) = try Self.rebuild(vault, builds)
        try vault.write("c.md", Data("# C\n\nAlone.\n".utf8))
        let (second, kept) = try Self.rebuild(vault, builds)
        #expect(second.keptGuides == ["a", "b", "c", "d"])
        #expect(second.builtDocuments == 0)
        // Every page and bundle file, but what each build writes again: the manifest, the
        // shared site files, the record.
        #expect(kept.count { $0.hasSuffix("index.html") } == 5)
        #expect(first.files == second.files)
    }

    @Test func aNewNoteRebuildsEveryNote() throws {
        let vault = try Self.smallVault()
        defer { vault.remove() }
        let builds = MemoryBuilds()
        _ = try Self.rebuild(vault, builds)
        // A new note named like a link target could change what every link means.
        try vault.write("e.md", Data("# E\n\nNew.\n".utf8))
        let (compilation, kept) = try Self.rebuild(vault, builds)
        #expect(compilation.keptGuides == [])
        #expect(compilation.builtDocuments == 5)
        #expect(!kept.contains { $0.hasSuffix("index.html") })
        #expect(Self.differences(compilation, try Self.clean(vault)).isEmpty)
    }

    @Test func anEditBelowTheTitleLeavesTheIndexesAsTheyWere() throws {
        let vault = try Self.smallVault()
        defer { vault.remove() }
        let builds = MemoryBuilds()
        let (first, _) = try Self.rebuild(vault, builds)
        let indexes = 1

        try vault.write("c.md", Data("# C\n\nAlone, and edited.\n".utf8))
        let (edited, keptEdited) = try Self.rebuild(vault, builds)
        #expect(edited.builtDocuments == 1)
        #expect(Self.indexes(keptEdited) == indexes)
        #expect(Self.guideIndex(edited) == Self.guideIndex(first))
        #expect(Self.differences(edited, try Self.clean(vault)).isEmpty)

        // A new title shows in the guides' bundle index and on their index page.
        try vault.write("c.md", Data("# C, renamed\n\nAlone, and edited.\n".utf8))
        let (renamed, keptRenamed) = try Self.rebuild(vault, builds)
        #expect(Self.indexes(keptRenamed) == indexes - 1)
        #expect(Self.guideIndex(renamed) != Self.guideIndex(first))
        #expect(Self.differences(renamed, try Self.clean(vault)).isEmpty)
    }

    /// Indexes and the duplicate-ID check follow titles and IDs through a change, a change
    /// undone, and a failed build between two good ones.
    @Test func indexesAndIDChecksFollowTitlesAndIDsThroughChangesUndoneAndFailedBuilds() throws {
        let vault = try Self.smallVault()
        defer { vault.remove() }
        let builds = MemoryBuilds()
        _ = try Self.rebuild(vault, builds)
        let indexes = 1
        let steps: [(path: String, text: String, failed: Bool, indexesKept: Int?)] = [
            // Below the title: the index page kept.
            ("c.md", "# C\n\nAlone, and edited.\n", false, indexes),
            // A new title: the index page is not.
            ("c.md", "# C, renamed\n\nAlone, and edited.\n", false, indexes - 1),
            // The title as it was before: listed again, and the same as two builds ago.
            ("c.md", "# C\n\nAlone, and edited.\n", false, indexes - 1),
            // A failed build changes a title; the next good build must not take the index of
            // the build before the failure.
            ("a.md", "# A, renamed\n\n## Alpha\n\nText of a.\n", false, nil),
            ("b.md", "---\nid: [\n---\n# B\n", true, nil),
            ("b.md", "# B\n\nSee [[a#Alpha]].\n", false, nil),
            // Two documents with one ID, then apart again, then together under the same shape.
            ("c.md", "---\nid: a\n---\n# C\n\nAlone.\n", true, nil),
            ("c.md", "# C\n\nAlone.\n", false, nil),
            ("c.md", "# C\n\nAlone, again.\n", false, indexes),
            ("c.md", "---\nid: a\n---\n# C\n\nAlone.\n", true, nil),
        ]
        for (number, step) in steps.enumerated() {
            try vault.write(step.path, Data(step.text.utf8))
            let (incremental, kept) = try Self.rebuild(vault, builds)
            #expect(incremental.failed == step.failed, "step \(number)")
            if let expected = step.indexesKept {
                #expect(Self.indexes(kept) == expected, "step \(number)")
            }
            let differences = Self.differences(incremental, try Self.clean(vault))
            #expect(differences.isEmpty, "step \(number): \(differences.joined(separator: "; "))")
        }
    }

    /// A note leaving a deck of its own for its folder's deck keeps its kind, ID and locale;
    /// the folder's deck must be built again with it (found by a helper's fuzzing).
    @Test func aNoteJoiningItsFoldersDeckRebuildsTheDeck() throws {
        let vault = try TestVault(
            [
                "d/_deck.md": "---\ntype: deck\nid: dd\nlang: en\n---\n# Deck\n\n## Ball\n\nA vessel at anchor.\n",
                "d/x.md": "---\ntype: deck\nid: dd\nlang: ru\n---\n# Колода\n\n## Шар\n\nСудно на якоре.\n",
            ],
            config: "locales: [en, ru]\ndefaultLocale: en\n")
        defer { vault.remove() }
        let builds = MemoryBuilds()
        let (first, _) = try Self.rebuild(vault, builds)
        #expect(first.decks.map(\.locale).sorted() == ["en", "ru"])
        try vault.write("d/x.md", Data("---\nid: dd\nlang: ru\n---\n# Колода\n\n## Шар\n\nСудно на якоре.\n".utf8))
        let (incremental, _) = try Self.rebuild(vault, builds)
        let clean = try Self.clean(vault)
        #expect(incremental.decks.map(\.locale).sorted() == clean.decks.map(\.locale).sorted())
        #expect(Self.differences(incremental, clean).isEmpty, "\(Self.differences(incremental, clean))")
    }

    @Test func aChangedImageRebuildsTheNotesThatEmbedIt() throws {
        let vault = try TestVault([
            "a.md": "# A\n\n![[boat.png]]\n",
            "b.md": "# B\n\nNo image.\n",
        ])
        defer { vault.remove() }
        try vault.write("boat.png", Data([1, 2, 3]))
        let builds = MemoryBuilds()
        _ = try Self.rebuild(vault, builds)
        try vault.write("boat.png", Data([4, 5, 6, 7]))
        let (compilation, _) = try Self.rebuild(vault, builds)
        #expect(compilation.keptGuides == ["b"])
        #expect(Self.differences(compilation, try Self.clean(vault)).isEmpty)
        let assets = compilation.files.map(\.path).filter { $0.hasPrefix("bundles/v1/assets/") }
        #expect(assets == ["bundles/v1/assets/\(ContentHash.sha256Hex(Data([4, 5, 6, 7])).prefix(16)).png"])
    }

    @Test func aChangedDrawingRebuildsTheNotesThatEmbedItAndKeepsItsProblems() throws {
        let vault = try TestVault([
            "a.md": "# A\n\n![[shapes.drawing]]\n",
            "b.md": "# B\n\nNo drawing.\n",
            "shapes.drawing": "day\nball\n",
        ])
        defer { vault.remove() }
        let builds = MemoryBuilds()
        let (first, _) = try Self.rebuild(vault, builds)
        try vault.write("shapes.drawing", Data("day\ncone-down\ncone-up\n".utf8))
        let (changed, _) = try Self.rebuild(vault, builds)
        #expect(changed.keptGuides == ["b"])
        #expect(Self.differences(changed, try Self.clean(vault)).isEmpty)
        let assets = { (compilation: Compilation) in
            compilation.files.map(\.path).filter { $0.hasPrefix("bundles/v1/assets/") && $0.hasSuffix(".svg") }
        }
        #expect(assets(changed).count == 1)
        #expect(assets(changed) != assets(first))
        // A problem in the description is reported by a rebuild that keeps the guide embedding it.
        try vault.write("shapes.drawing", Data("day\nball\nbal\n".utf8))
        let (broken, _) = try Self.rebuild(vault, builds)
        #expect(broken.diagnostics.map(\.code) == [.drawingUnknownShape])
        try vault.write("b.md", Data("# B\n\nStill no drawing.\n".utf8))
        let (again, _) = try Self.rebuild(vault, builds)
        #expect(again.diagnostics.map(\.code) == [.drawingUnknownShape])
        #expect(again.diagnostics.first?.position == SourcePosition(line: 3, column: 1))
    }

    @Test func aBuildWithErrorsLeavesTheLastGoodOutputToTheNext() throws {
        let vault = try Self.smallVault()
        defer { vault.remove() }
        let builds = MemoryBuilds()
        _ = try Self.rebuild(vault, builds)
        try vault.write("c.md", Data("---\nid: [\n---\n# C\n".utf8))
        let (failed, keptFailing) = try Self.rebuild(vault, builds)
        #expect(failed.failed)
        #expect(failed.files.isEmpty && keptFailing.isEmpty)
        try vault.write("c.md", Data("# C\n\nAlone.\n".utf8))
        let (recovered, _) = try Self.rebuild(vault, builds)
        #expect(recovered.keptGuides == ["a", "b", "c", "d"])
        #expect(Self.differences(recovered, try Self.clean(vault)).isEmpty)
    }

    @Test func aBuildWithErrorsDoesNotLeaveAnOlderBundleFileValid() throws {
        // The edit between two good builds is built in the failed one; the next good build must
        // not take the bundle file of the build before the failure for it.
        let vault = try Self.smallVault()
        defer { vault.remove() }
        let builds = MemoryBuilds()
        _ = try Self.rebuild(vault, builds)
        try vault.write("c.md", Data("# C\n\nAlone, edited.\n".utf8))
        try vault.write("b.md", Data("---\nid: [\n---\n# B\n".utf8))
        #expect(try Self.rebuild(vault, builds).0.failed)
        try vault.write("b.md", Data("# B\n\nSee [[a#Alpha]].\n".utf8))
        let (recovered, _) = try Self.rebuild(vault, builds)
        #expect(!recovered.keptGuides.contains("c"))
        #expect(Self.differences(recovered, try Self.clean(vault)).isEmpty)
    }

    @Test func anotherUnicodeNormalisationOfTheSameTextIsAChange() throws {
        // "é" as one code point, then as "e" and a combining accent: equal as Swift strings.
        let vault = try TestVault([
            "caf\u{E9}.md": "---\nid: caf\u{E9}\n---\n# Caf\u{E9}\n\n## Men\u{FC}\n\nCr\u{E8}me.\n",
            "b.md": "# B\n\nSee [[caf\u{E9}#Men\u{FC}]].\n",
        ])
        defer { vault.remove() }
        let builds = MemoryBuilds()
        let (first, _) = try Self.rebuild(vault, builds)
        try vault.write(
            "caf\u{E9}.md", Data("---\nid: cafe\u{301}\n---\n# Cafe\u{301}\n\n## Menu\u{308}\n\nCre\u{300}me.\n".utf8))
        let (second, _) = try Self.rebuild(vault, builds)
        #expect(second.files != first.files)
        #expect(Self.differences(second, try Self.clean(vault)).isEmpty)
    }

    @Test func aSettingsChangeRebuildsEveryNote() throws {
        let vault = try TestVault(
            ["a.md": "# A\n\nText.\n", "b.ru.md": "# Б\n\nТекст.\n", "c.md": "# C\n\nSee [[a]].\n"],
            config: "locales: [en, ru]\ndefaultLocale: en\n")
        defer { vault.remove() }
        let builds = MemoryBuilds()
        _ = try Self.rebuild(vault, builds)
        try vault.write("locker.yml", Data("locales: [en, ru]\ndefaultLocale: ru\n".utf8))
        let (compilation, _) = try Self.rebuild(vault, builds)
        #expect(compilation.keptGuides == [])
        #expect(compilation.builtGuides.map(\.locale).sorted() == ["ru", "ru", "ru"])
        #expect(Self.differences(compilation, try Self.clean(vault)).isEmpty)
    }

    /// A folder named for checklists is pointed out from the vault's shape, whatever the record
    /// kept: when it appears by a rename, while its guides are kept unread, once `kinds` maps it
    /// (and its notes become checklists), and not once it is renamed away.
    @Test func aFolderNamedForAKindIsPointedOutAsACleanBuildDoes() throws {
        let vault = try TestVault([
            "a.md": "# A\n\nSee [[engine]].\n",
            "procedures/engine.md": "# Engine\n\n## Before\n\n- [ ] Oil ^oil\n",
            "procedures/fire.md": "# Fire\n\n## Now\n\n- [ ] Alarm ^alarm\n",
        ])
        defer { vault.remove() }
        let builds = MemoryBuilds()
        func pointedOut(_ compilation: Compilation) -> [String] {
            compilation.diagnostics.filter { $0.code == .configKindFolder }.map(\.message)
        }
        func rename(_ from: String, _ to: String) throws {
            try FileManager.default.moveItem(
                at: vault.root.appendingPathComponent(from), to: vault.root.appendingPathComponent(to))
        }
        let pointed = ["Checklists/ is named for checklists, but 2 notes in it are built as guides"]
        #expect(pointedOut(try Self.rebuild(vault, builds).0) == [])

        try rename("procedures", "Checklists")
        let renamed = try Self.rebuild(vault, builds).0
        #expect(pointedOut(renamed) == pointed)
        #expect(Self.differences(renamed, try Self.clean(vault)).isEmpty)

        try vault.write("a.md", Data("# A\n\nSee [[fire]].\n".utf8))
        let kept = try Self.rebuild(vault, builds).0
        #expect(kept.keptGuides == ["checklists/engine", "checklists/fire"])
        #expect(pointedOut(kept) == pointed)
        #expect(Self.differences(kept, try Self.clean(vault)).isEmpty)

        try vault.write("locker.yml", Data("kinds: {Checklists: checklist}\n".utf8))
        let mapped = try Self.rebuild(vault, builds).0
        #expect(pointedOut(mapped) == [])
        #expect(mapped.checklists.map(\.id) == ["checklists/engine", "checklists/fire"])
        #expect(Self.differences(mapped, try Self.clean(vault)).isEmpty)

        try FileManager.default.removeItem(at: vault.root.appendingPathComponent("locker.yml"))
        try rename("Checklists", "procedures")
        let away = try Self.rebuild(vault, builds).0
        #expect(pointedOut(away) == [])
        #expect(away.checklists.isEmpty)
        #expect(Self.differences(away, try Self.clean(vault)).isEmpty)
    }

    @Test func aTemplateChangeRendersEveryPageAgain() throws {
        let vault = try Self.smallVault()
        defer { vault.remove() }
        let builds = MemoryBuilds()
        _ = try Self.rebuild(vault, builds)
        let footer = try String(
            contentsOf: SiteTests.repository.appendingPathComponent("templates/site/footer.mustache"), encoding: .utf8)
        try vault.write("templates/footer.mustache", Data((footer + "<p>Edited.</p>\n").utf8))
        let (compilation, kept) = try Self.rebuild(vault, builds)
        // The template is a file of the vault, which a link could name: the vault's shape changed.
        #expect(compilation.keptGuides == [])
        #expect(!kept.contains { $0.hasSuffix(".html") })
        #expect(Self.differences(compilation, try Self.clean(vault)).isEmpty)
    }
}

/// Random edits of the kinds an author makes, from a seed, so a failure can be replayed.
struct VaultEditor {
    let vault: TestVault
    private var random: SplitMix64
    private(set) var log: [String] = []
    private var added: [String] = []

    init(vault: TestVault, seed: UInt64) {
        self.vault = vault
        random = SplitMix64(seed: seed)
    }

    private func notes() throws -> [String] {
        let paths = try #require(FileManager.default.enumerator(atPath: vault.root.path)).compactMap { $0 as? String }
        return paths.filter { $0.hasSuffix(".md") && $0 != "README.md" }.sorted()
    }

    private func read(_ path: String) throws -> String {
        try String(contentsOf: vault.root.appendingPathComponent(path), encoding: .utf8)
    }

    private func write(_ path: String, _ text: String) throws { try vault.write(path, Data(text.utf8)) }

    private mutating func pick<T>(_ values: [T]) -> T? {
        values.isEmpty ? nil : values[Int(random.next() % UInt64(values.count))]
    }

    private func headings(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("## ") || $0.hasPrefix("### ") }.map {
            String($0.drop { $0 == "#" }.dropFirst())
        }
    }

    private func name(_ path: String) -> String {
        VaultPath.removingExtension(VaultPath.fileName(of: path))
    }

    /// Makes one edit and returns its description (also added to ``log``).
    @discardableResult
    mutating func randomEdit(step: Int) throws -> String {
        let notes = try notes()
        guard let path = pick(notes), let other = pick(notes) else { return "nothing" }
        var text = try read(path)
        let description: String
        switch random.next() % 14 {
        case 0:
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let headingLines = lines.indices.filter { lines[$0].hasPrefix("## ") || lines[$0].hasPrefix("### ") }
            guard let line = pick(headingLines) else { return try appendParagraph(path, text, step) }
            var edited = lines.map(String.init)
            edited[line] += " \(step)"
            text = edited.joined(separator: "\n")
            description = "renamed a heading in \(path)"
        case 1:
            let heading = pick(headings(try read(other))) ?? "Missing"
            text += "\n\nSee [[\(name(other))#\(heading)]].\n"
            description = "linked \(path) to \(other)#\(heading)"
        case 2:
            let heading = pick(headings(try read(other)))
            text += "\n\n![[\(name(other))\(heading.map { "#" + $0 } ?? "")]]\n"
            description = "embedded \(other)\(heading.map { "#" + $0 } ?? "") in \(path)"
        case 3:
            text = text.replacingOccurrences(of: "\n# ", with: "\n# Edited \(step) ")
            description = "retitled \(path)"
        case 4:
            let new = "guides/new-\(step).md"
            try write(new, "---\ntitle: New \(step)\n---\n## Part \(step)\n\nSee [[\(name(other))]]. ^new\(step)\n")
            added.append(new)
            log.append("added \(new)")
            return log.last ?? ""
        case 5:
            guard let victim = pick(added.isEmpty ? notes : added) else { return "nothing" }
            try FileManager.default.removeItem(at: vault.root.appendingPathComponent(victim))
            added.removeAll { $0 == victim }
            log.append("removed \(victim)")
            return log.last ?? ""
        case 6:
            if step % 2 == 0 {
                try vault.write("guides/images/boat.png", Data([0x89, 0x50, 0x4E, 0x47, UInt8(step % 256)]))
                log.append("changed boat.png")
                return log.last ?? ""
            }
            text += "\n\n![[boat.png]]\n"
            description = "embedded boat.png in \(path)"
        case 7:
            var target = try read(other)
            target += "\n\nA marked paragraph. ^mark\(step)\n"
            try write(other, target)
            text = try path == other ? read(path) : text
            text += "\n\nSee [[\(name(other))#^mark\(step)]].\n"
            description = "marked a block in \(other) and linked it from \(path)"
        case 10:
            let config = try read("locker.yml")
            let swapped =
                config.contains("defaultLocale: ru")
                ? config.replacingOccurrences(of: "defaultLocale: ru", with: "defaultLocale: en")
                : config.replacingOccurrences(of: "defaultLocale: en", with: "defaultLocale: ru")
            try write("locker.yml", swapped)
            log.append("switched the default locale")
            return log.last ?? ""
        case 11:
            let footer = try String(
                contentsOf: SiteTests.repository.appendingPathComponent("templates/site/footer.mustache"),
                encoding: .utf8)
            try write("templates/footer.mustache", footer + "<!-- edit \(step) -->\n")
            log.append("overrode the footer template")
            return log.last ?? ""
        case 12:
            // The same text in another Unicode normalisation: equal as Swift strings, not as bytes.
            if let range = text.range(of: "й") {
                text.replaceSubrange(range, with: "и\u{0306}")
                description = "wrote a 'й' of \(path) decomposed"
            } else {
                text += "\n\nCaf\u{E9}.\n"
                description = "added 'Café' to \(path)"
            }
        case 13:
            guard text.hasPrefix("---\n") else { return try appendParagraph(path, text, step) }
            text = "---\naliases: [Alias \(step)]\n" + text.dropFirst(4)
            description = "gave \(path) an alias"
        case 8:
            log.append("saved \(path) unchanged")
            try write(path, text)
            return log.last ?? ""
        default:
            return try appendParagraph(path, text, step)
        }
        try write(path, text)
        log.append(description)
        return description
    }

    private mutating func appendParagraph(_ path: String, _ text: String, _ step: Int) throws -> String {
        try write(path, text + "\n\nA new paragraph \(step).\n")
        log.append("added a paragraph to \(path)")
        return log.last ?? ""
    }
}
