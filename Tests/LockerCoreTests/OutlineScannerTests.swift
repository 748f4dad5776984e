import Foundation
import LockerKit
import LockerTestSupport
import Testing

@testable import LockerCore

/// A guide is held in outline after the parse (``OutlineScanner``) and parsed whole when it is
/// built: every outline the scanner gives must be the one the whole parse gives, and a note the
/// scanner cannot read for certain is parsed whole at once.
@Suite struct OutlineScannerTests {
    static let parser = NoteParser(config: VaultConfig())

    /// The note held in outline, when the scanner reads it, and the note parsed whole.
    static func both(_ text: String, path: String = "guide.md") -> (outline: ParsedNote?, whole: ParsedNote?) {
        let bytes = Array(text.utf8)
        let outline = parser.parse(path: path, bytes: bytes, reading: .outliningGuides).0
        return (outline?.holding == .outline ? outline : nil, parser.parse(path: path, bytes: bytes).0)
    }

    /// Whether the outline, when there is one, is the whole note's: title, headings, no block IDs.
    static func agrees(_ text: String) -> Bool {
        let (outline, whole) = both(text)
        guard let outline else { return true }
        guard let whole else { return false }
        return outline.title == whole.title && outline.headings == whole.headings && whole.blockIDs.isEmpty
    }

    @Test func theScannerReadsPlainHeadingsAsTheParserDoes() throws {
        let text = """
            ---
            title: From the frontmatter
            ---
            # Anchoring
            Some text, and a [[link]] with *emphasis*.

            ## Setting the anchor
            - a list
            ### Setting the anchor
            #### Deeper (one)
            ##### Five is bold text
            # A second H1 is a section
            ## Якорь и цепь
            ```
            # not a heading
            ```
            ##
            """
        let (outline, whole) = Self.both(text)
        let held = try #require(outline)
        let parsed = try #require(whole)
        #expect(held.headings == parsed.headings)
        #expect(held.title == "From the frontmatter")
        #expect(
            held.headings == [
                "anchoring": "", "setting the anchor": "setting-the-anchor", "deeper (one)": "deeper-one",
                "a second h1 is a section": "a-second-h1-is-a-section", "якорь и цепь": "якорь-и-цепь", "": "section",
            ])
        #expect(held.sections.isEmpty && held.blocks.isEmpty)
    }

    @Test func theH1IsTheTitleOnlyBeforeAnyContent() throws {
        let first = try #require(Self.both("# Title\n\ntext\n").outline)
        #expect(first.title == "Title")
        let late = try #require(Self.both("text\n\n# Title\n").outline)
        #expect(late.title == "guide")
        #expect(late.headings == ["title": "title"])
    }

    /// Each of these could make a line a heading, or hide one, in a way the scanner does not
    /// follow: the note is parsed whole.
    @Test(arguments: [
        "text\n---\n", "text\n===\n", "  ## indented\n", "- item\n\n  ```\n  # code\n  ```\n", "<div>\n\n# x\n</div>\n",
        "a ^block\n", "## Heading ^id\n", "%% hidden\n# x\n%%\n", "$$\n# x\n$$\n", "[ref]: /url\n",
        "## with *emphasis*\n",
        "## C# and F#\n", "## a [[link]]\n", "## `code`\n", "## a &amp; b\n", "## ==marked==\n",
        "text <!-- c\n# x\n-->\n",
        "\t# tab\n",
    ])
    func whatTheScannerDoesNotFollowIsParsedWhole(_ text: String) {
        #expect(Self.both(text).outline == nil)
    }

    /// Thousands of notes made of lines that are, or nearly are, headings, fences, lists, quotes,
    /// setext underlines and tables, in random order: each outline the scanner gives is the
    /// parser's, and it gives many.
    @Test func randomNotesGiveTheParsersOutline() {
        let lines = [
            "# Title", "## Section", "##  Spaced  out  ", "### Detail", "#### Deeper", "##### Five", "###### Six",
            "####### Seven", "#tag at the start", "#", "##", "## Section", "# Second", "text", "more text", "",
            "", "- item", "- ## heading in an item", "1. numbered", "  continued", "> quote", "> ## in a quote",
            "> [!note] Callout", "```", "```swift", "````", "~~~", "~~~ info", "```a`b", "---", "***", "-", "=",
            "| a | b |", "|---|---|", "Якорь", "## Якорь", "## Ёлка ёлка", "## Dup", "## dup", "## Tab\tinside",
            "##\tTab after", "## Section (2)", "## 1. Numbered heading", "#5 no space", "text with a colon: here",
            "  ## two spaces in", "   # three spaces in", "    # four spaces in", "\t## a tab in", " ```", "  ~~~",
        ]
        var random = SplitMix64(seed: 2026)
        var read = 0
        for _ in 0..<4000 {
            let count = Int(random.next() % 14) + 1
            let text = (0..<count).map { _ in lines[Int(random.next() % UInt64(lines.count))] }.joined(separator: "\n")
            let agrees = Self.agrees(text)
            #expect(agrees, "\(text)")
            if !agrees { return }
            if Self.both(text).outline != nil { read += 1 }
        }
        #expect(read > 1000)
    }

    /// The default vault and every fixture: each guide the scanner reads gets the parser's
    /// outline, and most guides are read.
    @Test func theVaultsGuidesGiveTheParsersOutline() throws {
        var (guides, read) = (0, 0)
        for root in [DefaultContentTests.vault, GoldenTests.fixtures] {
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
            for path in files where path.hasSuffix(".md") {
                let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                guard Self.both(text, path: path).whole?.kind == .guide else { continue }
                guides += 1
                #expect(Self.agrees(text), "\(path)")
                if Self.both(text, path: path).outline != nil { read += 1 }
            }
        }
        #expect(guides > 100)
        #expect(read * 2 > guides)
    }

    /// A build whose outlines are read wrong finds it out as it builds the guides, forgets what it
    /// wrote, and builds again with every note parsed whole: its output and diagnostics are a
    /// clean build's, over nothing and over its previous output.
    @Test func aBuildWhoseOutlinesAreReadWrongStartsAgainWhole() throws {
        let vault = try TestVault([
            "a.md": "# A\n\n## Real\n\nSee [[b#Other]] and [[b#Part]].\n", "b.md": "# B\n\n## Part\n\nText.\n",
            "c.md": "# C\n\nPlain.\n",
        ])
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        let clean = try Compiler(vault: vault.root, environment: IncrementalBuildTests.environment).compile()
        for _ in 0..<2 {
            let transaction = try OutputWriter.begin(replacing: output)
            var compiler = Compiler(vault: vault.root, environment: IncrementalBuildTests.environment)
            compiler.outlines = { _ in OutlineScanner.Outline(h1: "Wrong", headings: ["other": "other"]) }
            let built = try compiler.compile(into: transaction)
            try transaction.commit()
            #expect(built.diagnostics == clean.diagnostics)
            #expect(
                BuildOutputTests.differences(
                    try PageInputsTests.tree(output), clean.files.map { ($0.path, $0.data) }) == [])
        }
    }

    /// A note whose outline is not the one its text gives is found out when it is read whole,
    /// and the compile then parses every note whole.
    @Test func anOutlineThatIsNotTheTextsIsFoundOut() throws {
        let vault = try TestVault(["guide.md": "# Guide\n\n## Real heading\n"])
        let text = Array("# Guide\n\n## Real heading\n".utf8)
        let held = try #require(Self.parser.parse(path: "guide.md", bytes: text, reading: .outliningGuides).0)
        let loader = NoteLoader(vault: vault.root, parser: Self.parser, hashes: [ContentHash.sha256Hex(text)])
        #expect(loader.read(0, held).note.sections.count == 1)
        #expect(!loader.outlineFailed)
        let wrong = ParsedNote(
            path: held.path, kind: held.kind, id: held.id, idPosition: held.idPosition, locale: held.locale,
            explicitLocale: false, frontmatter: held.frontmatter, title: held.title, headings: ["other": "other"],
            basePath: held.basePath, holding: .outline)
        #expect(loader.read(0, wrong).note.sections.count == 1)
        #expect(loader.outlineFailed)
        #expect(loader.problems.isEmpty)
    }
}
