import Foundation
import LockerKit
import Testing

@testable import LockerCore

@Suite struct LinkResolutionTests {
    /// Compiles a vault and returns the link targets of one note, as `kind/id#anchor`.
    private func targets(of path: String, in files: [String: String], config: String? = nil) throws
        -> (targets: [String], diagnostics: [Diagnostic])
    {
        let vault = try TestVault(files, config: config)
        defer { vault.remove() }
        let compilation = try vault.compile()
        let guide = try #require(compilation.guides.first { $0.source == path }, "\(compilation.diagnostics.rendered)")
        return (guide.links.map(\.target.summary), compilation.diagnostics)
    }

    @Test func resolvesByFileNamePathAndAlias() throws {
        let (found, diagnostics) = try targets(
            of: "note.md",
            in: [
                "note.md": "[[Anchoring]] [[guides/Anchoring]] [[Med]] [[Anchoring.md]]",
                "guides/Anchoring.md": "---\nid: anchoring\n---\n",
                "guides/Mooring.md": "---\naliases: [Med]\n---\n",
            ])
        #expect(found == ["guide/anchoring", "guide/anchoring", "guide/guides/mooring", "guide/anchoring"])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    @Test func resolvesHeadingsAndBlocks() throws {
        let (found, diagnostics) = try targets(
            of: "note.md",
            in: [
                "note.md":
                    "[[target#Setting the Anchor]] [[target#Letting go#Depth]] [[target#^tip]] [[#Local]]\n\n## Local\n",
                "target.md":
                    "## Letting go\n\n### Setting the anchor\n\n#### Depth\n\nUse four times the depth. ^tip\n",
            ])
        #expect(
            found == [
                "guide/target#setting-the-anchor", "guide/target#depth", "guide/target#^tip", "guide/note#local",
            ])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    @Test func prefersTheNoteInTheSameFolderWhenNamesCollide() throws {
        let (found, diagnostics) = try targets(
            of: "b/note.md", in: ["a/x.md": "A", "b/x.md": "B", "b/note.md": "[[x]] [[a/x]]"])
        #expect(found == ["guide/b/x", "guide/a/x"])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    /// Obsidian's rule for a name several notes share: an exact vault path, then the linking
    /// note's folder (an ancestor counts for nothing), then the shortest path, then UTF-8 order.
    @Test func resolvesAmbiguousNamesAsObsidianDoes() throws {
        let notes = [
            "a/b/x.md": "deep", "zzzz/x.md": "z", "zzzz/deep/note.md": "[[x]] [[b/x]]", "a/b/note.md": "[[x]]",
        ]
        // The note at the vault path `x` wins over all, even one beside the linking note.
        let rooted = notes.merging(["x.md": "root"]) { $1 }
        #expect(try targets(of: "a/b/note.md", in: rooted).targets == ["guide/x"])
        #expect(try targets(of: "zzzz/deep/note.md", in: rooted).targets == ["guide/x", "guide/a/b/x"])
        // Else the note beside the linking note; an ancestor's note is not beside it.
        let (beside, besideDiagnostics) = try targets(of: "a/b/note.md", in: notes)
        #expect(beside == ["guide/a/b/x"])
        #expect(besideDiagnostics.with(.linkAmbiguous).filter { $0.file == "a/b/note.md" }.isEmpty)
        // Else the shortest path string: `a/b/x.md` (8 bytes) over `zzzz/x.md` (9), with a warning.
        let (shortest, diagnostics) = try targets(of: "zzzz/deep/note.md", in: notes)
        #expect(shortest == ["guide/a/b/x", "guide/a/b/x"])
        let ambiguous = try #require(diagnostics.with(.linkAmbiguous).first)
        #expect(ambiguous.file == "zzzz/deep/note.md")
        #expect(ambiguous.severity == .warning)
        #expect(
            ambiguous.message
                == "'x' could mean several notes; linked to 'a/b/x.md' as Obsidian does (the shortest path), not zzzz/x.md"
        )
        #expect(ambiguous.hint == "write the path to be sure: [[a/b/x]]")
        // Paths as long: the first in UTF-8 order.
        let (tie, _) = try targets(of: "q/note.md", in: ["b/x.md": "B", "a/x.md": "A", "q/note.md": "[[x]]"])
        #expect(tie == ["guide/a/x"])
    }

    @Test func fallsBackToAnyCase() throws {
        let (found, _) = try targets(
            of: "note.md", in: ["note.md": "[[ANCHORING]] [[Guides/anchoring]]", "guides/Anchoring.md": "x"])
        #expect(found == ["guide/guides/anchoring", "guide/guides/anchoring"])
    }

    @Test func resolvesPathSuffixAndFoldersAboveTheVaultRoot() throws {
        let (found, diagnostics) = try targets(
            of: "note.md",
            in: [
                "note.md":
                    "[[safety/briefing]] [[Captains-Locker/practice/safety/briefing]] [[./practice/safety/briefing]]",
                "practice/safety/briefing.md": "x",
            ])
        #expect(found == Array(repeating: "guide/practice/safety/briefing", count: 3))
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    @Test func resolvesNonASCIINamesWhateverTheirNormalisation() throws {
        // "й" written decomposed (и + combining breve) in the link, composed in the file name.
        let decomposed = "Якорная стоянка".decomposedStringWithCanonicalMapping
        let (found, diagnostics) = try targets(
            of: "заметка.md",
            in: ["заметка.md": "[[\(decomposed)]] [[якорная СТОЯНКА]]", "Практика/Якорная стоянка.md": "x"])
        #expect(found == ["guide/практика/якорная-стоянка", "guide/практика/якорная-стоянка"])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    @Test func pairsTranslationsAsOneDocument() throws {
        let (found, diagnostics) = try targets(
            of: "note.ru.md",
            in: [
                "note.ru.md": "[[anchoring]] [[anchoring#Цепь]]",
                "anchoring.md": "## Chain\n", "anchoring.ru.md": "## Цепь\n",
            ],
            config: "locales: [en, ru]\n")
        #expect(found == ["guide/anchoring", "guide/anchoring#цепь"])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    @Test func keepsSafeURLsAndResolvesMarkdownLinksToNotes() throws {
        let (found, diagnostics) = try targets(
            of: "docs/note.md",
            in: [
                "docs/note.md":
                    "[a](https://example.org/x) [b](mailto:crew@example.org) [c](other.md) [d](../top%20note.md#Part-two)",
                "docs/other.md": "x", "top note.md": "## Part two\n",
            ])
        #expect(
            found == [
                "https://example.org/x", "mailto:crew@example.org", "guide/docs/other", "guide/top-note#part-two",
            ])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    /// A repository's README links to a folder beside the vault: neither an app nor the site's
    /// host holds it, so the link is its text, in the bundle and on the page, with a warning that
    /// `--strict` fails.
    @Test func keepsLinksLeavingTheVaultAsTheirText() throws {
        let files = [
            "README.md":
                "# Vault\n\nFeeding the [`colregs-mcp`](../colregs-mcp) server, see [[../notes/Plan|the plan]].\n"
        ]
        let vault = try TestVault(files)
        defer { vault.remove() }
        let compilation = try vault.compile()
        let warnings = compilation.diagnostics.map {
            "\($0.position.line):\($0.position.column) \($0.severity) \($0.code)"
        }
        #expect(warnings == ["3:13 warning link.leaves-vault", "3:57 warning link.leaves-vault"])
        #expect(
            compilation.diagnostics.first?.message == "link '../colregs-mcp' leads outside the vault: kept as its text")
        let spans: [Span] = [.text("Feeding the "), .code("colregs-mcp"), .text(" server, see the plan.")]
        let guide = try #require(compilation.guides.first)
        #expect(guide.blocks == [Block(.paragraph(spans))])
        let bundled = try #require(compilation.files.first { $0.path.hasPrefix("bundles/v1/guide/en/") })
        let json = String(decoding: bundled.data, as: UTF8.self)
        #expect(
            json.contains(
                #"{"spans":[{"text":"Feeding the ","type":"text"},{"text":"colregs-mcp","type":"code"},"#
                    + #"{"text":" server, see the plan.","type":"text"}],"type":"paragraph"}"#), "\(json)")
        let page = try #require(compilation.files.first { $0.path == "site/guides/readme/index.html" })
        let html = String(decoding: page.data, as: UTF8.self)
        #expect(html.contains("Feeding the <code>colregs-mcp</code> server, see the plan."), "\(html)")
        #expect(!html.contains("colregs-mcp\""), "no address is written for it")
        #expect(try vault.compile(strict: true).failed)
    }

    @Test func expandsEmbedsOfNotesHeadingsAndBlocks() throws {
        let vault = try TestVault([
            "note.md": "![[source]]\n\n![[source#Part]]\n\n![[source#^key]]\n",
            "source.md": "Intro ^key\n\n## Part\n\nInside part.\n",
        ])
        defer { vault.remove() }
        let compilation = try vault.compile()
        let guide = try #require(compilation.guides.first { $0.source == "note.md" })
        let embeds: [Block.Embed] = guide.blocks.compactMap {
            if case .embed(let embed) = $0.content { embed } else { nil }
        }
        #expect(embeds.count == 3)
        #expect(embeds.map(\.target.summary) == ["guide/source", "guide/source#part", "guide/source#^key"])
        #expect(embeds[0].sections.map(\.title) == ["Part"])
        #expect(embeds[1].title == "Part")
        #expect(embeds[1].blocks == [Block(.paragraph([.text("Inside part.")]))])
        #expect(embeds[2].blocks == [Block(.paragraph([.text("Intro")]), blockID: "key")])
        #expect(compilation.diagnostics.isEmpty, "\(compilation.diagnostics.rendered)")
    }

    @Test func copiesEmbeddedImagesUnderTheirContentHash() throws {
        let vault = try TestVault(["note.md": "![[boat.png|300]]\n\n![Deck](img/boat.png)\n"])
        defer { vault.remove() }
        try vault.write("img/boat.png", Data([1, 2, 3]))
        let compilation = try vault.compile()
        let guide = try #require(compilation.guides.first)
        let images: [Block.Image] = guide.blocks.compactMap {
            if case .image(let image) = $0.content { image } else { nil }
        }
        let expectedPath = "assets/039058c6f2c0cb49.png"
        #expect(
            images == [
                Block.Image(src: expectedPath, alt: "", width: 300), Block.Image(src: expectedPath, alt: "Deck"),
            ])
        #expect(compilation.files.contains { $0.path == "bundles/v1/" + expectedPath && $0.data == Data([1, 2, 3]) })
        #expect(compilation.manifest?.files.filter { $0.kind == "asset" }.count == 1)
    }

    @Test func ignoresUnreferencedFilesAndObsidianFolders() throws {
        let vault = try TestVault(
            [
                "note.md": "text", ".obsidian/workspace.md": "not a note", "drafts/wip.md": "draft", ".hidden.md": "x",
            ], config: "exclude: [drafts]\n")
        defer { vault.remove() }
        try vault.write("attachments/unused.png", Data([9]))
        let compilation = try vault.compile()
        #expect(compilation.noteCount == 1)
        #expect(compilation.guides.map(\.source) == ["note.md"])
        #expect(compilation.manifest?.files.contains { $0.kind == "asset" } == false)
    }
}

@Suite struct ObsidianSyntaxTests {
    @Test func stripsCommentsButNotCode() {
        let text = "a %%hidden%% b `%%code%%` c\n```\n%% fenced\n```\nd %%x\ny%% e\n"
        let (stripped, unterminated) = CommentStripper.strip(text)
        #expect(unterminated == nil)
        #expect(stripped == "a            b `%%code%%` c\n```\n%% fenced\n```\nd    \n    e\n")
        #expect(stripped.utf8.count == text.utf8.count, "positions stay true")
    }

    @Test func reportsUnterminatedCommentOnce() {
        let (stripped, unterminated) = CommentStripper.strip("ok %% open\nstill hidden\n")
        #expect(unterminated == 3)
        #expect(stripped == "ok        \n            \n")
    }

    @Test func linksToOtherFilesStayTextWithoutDoubleReports() throws {
        let vault = try TestVault([
            "note.md": "Read ![[manual.pdf]] and [[manual.pdf]] and [[#^top]]\n\n![[note#Nope]]\n"
        ])
        defer { vault.remove() }
        try vault.write("manual.pdf", Data("%PDF".utf8))
        let diagnostics = try vault.diagnostics()
        #expect(
            diagnostics.map(\.code) == [.embedUnsupported, .linkBrokenBlock, .linkBrokenHeading],
            "\(diagnostics.rendered)")
    }

    @Test func resolvesMarkdownPathsFromTheVaultRootAndRelatively() throws {
        let vault = try TestVault([
            "Guides/Knots/Bowline.md": "x", "Guides/index.md": "[a](Guides/Knots/Bowline.md) [b](Knots/Bowline.md)",
        ])
        defer { vault.remove() }
        let compilation = try vault.compile()
        let guide = try #require(compilation.guides.first { $0.source == "Guides/index.md" })
        #expect(guide.links.map(\.target.summary) == ["guide/guides/knots/bowline", "guide/guides/knots/bowline"])
        #expect(compilation.diagnostics.isEmpty, "\(compilation.diagnostics.rendered)")
    }
}
