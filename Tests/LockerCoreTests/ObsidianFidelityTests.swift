import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// Valid Obsidian syntax that Locker once misread, each in the smallest note that shows it.
@Suite struct ObsidianFidelityTests {
    /// The blocks of `note.md` in a vault of `files`, and the build's diagnostics.
    private func blocks(_ files: [String: String]) throws -> (blocks: [Block], diagnostics: [Diagnostic]) {
        let vault = try TestVault(files)
        defer { vault.remove() }
        let compilation = try vault.compile()
        let guide = try #require(
            compilation.guides.first { $0.source == "note.md" }, "\(compilation.diagnostics.rendered)")
        return (guide.blocks, compilation.diagnostics)
    }

    private func spans(_ text: String, with others: [String: String] = [:]) throws -> (
        spans: [Span], diagnostics: [Diagnostic]
    ) {
        let (blocks, diagnostics) = try blocks(others.merging(["note.md": text]) { $1 })
        guard case .paragraph(let spans)? = blocks.first?.content else {
            Issue.record("no paragraph in \(blocks)")
            return ([], diagnostics)
        }
        return (spans, diagnostics)
    }

    private static let target = LinkTarget.document(
        kind: .guide, id: "target", uuid: ContentIdentity.uuidString(kind: .guide, id: "target"), anchor: nil)

    // 1. An escaped bracket is text, in Obsidian as in CommonMark.
    @Test func escapedBracketsAreText() throws {
        let (spans, diagnostics) = try spans(
            ##"using the \[\[double bracket syntax\]\], \#not-a-tag, \==plain== and `\[\[code\]\]`"##)
        #expect(
            spans == [
                .text("using the [[double bracket syntax]], #not-a-tag, ==plain== and "), .code(#"\[\[code\]\]"#),
            ])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    /// An escaped backslash escapes nothing more: `\\[[target]]` is a backslash and a link.
    @Test func anEscapedBackslashLeavesTheLink() throws {
        let (spans, _) = try spans(#"\\[[target]]"#, with: ["target.md": "# Target\n"])
        #expect(spans == [.text(#"\"#), .link(Self.target, [.text("target")])])
    }

    /// An escaped `^` ends no block ID.
    @Test func anEscapedCaretIsNoBlockID() throws {
        let (blocks, _) = try blocks(["note.md": #"Text \^kept"#])
        #expect(blocks == [Block(.paragraph([.text("Text ^kept")]))])
    }

    // 2. A wikilink whose display text has formatting is a link with that formatting.
    @Test func formattedDisplayTextStaysALink() throws {
        let (spans, diagnostics) = try spans(
            "[[target|Example **bold**, *italic*, or ~~strikethrough~~ text]] after", with: ["target.md": "# Target\n"])
        #expect(
            spans == [
                .link(
                    Self.target,
                    [
                        .text("Example "), .bold([.text("bold")]), .text(", "), .italic([.text("italic")]),
                        .text(", or "),
                        .strikethrough([.text("strikethrough")]), .text(" text"),
                    ]),
                .text(" after"),
            ])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    /// A target cmark split with emphasis is read as written: `[[a _b_ c]]` names the note `a _b_ c`.
    @Test func aTargetWithUnderscoresIsReadAsWritten() throws {
        let (spans, diagnostics) = try spans("See [[a _b_ c|it]].", with: ["a _b_ c.md": "# ABC\n"])
        let uuid = ContentIdentity.uuidString(kind: .guide, id: Slug.id(forPath: "a _b_ c"))
        #expect(
            spans == [
                .text("See "),
                .link(.document(kind: .guide, id: Slug.id(forPath: "a _b_ c"), uuid: uuid, anchor: nil), [.text("it")]),
                .text("."),
            ])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    /// A broken link with formatted text is reported where it starts.
    @Test func aBrokenFormattedLinkIsReportedAtItsStart() throws {
        let marked = MarkedText("Some *text* and 1️⃣[[Nowhere|a **bold** name]]")
        let (_, diagnostics) = try spans(marked.text)
        let broken = try #require(diagnostics.with(.linkBroken).first)
        #expect(broken.position == marked.markers["1"])
        #expect(broken.message == "no note named 'Nowhere'")
    }

    // 3. A link to a note's H1 is a link to the note.
    @Test func aLinkToTheH1IsALinkToTheNote() throws {
        let (spans, diagnostics) = try spans(
            "[[target#Heading 1]] [[target#Heading 2]]", with: ["target.md": "# Heading 1\n\nText.\n\n## Heading 2\n"])
        let section = LinkTarget.document(
            kind: .guide, id: "target", uuid: ContentIdentity.uuidString(kind: .guide, id: "target"),
            anchor: "heading-2")
        #expect(
            spans == [
                .link(Self.target, [.text("target > Heading 1")]), .text(" "),
                .link(section, [.text("target > Heading 2")]),
            ])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    /// `![[target#Heading 1]]` embeds the whole note.
    @Test func anEmbedOfTheH1IsTheWholeNote() throws {
        let (blocks, diagnostics) = try blocks([
            "note.md": "![[target#Heading 1]]", "target.md": "# Heading 1\n\nText.\n",
        ])
        guard case .embed(let embed)? = blocks.first?.content else {
            Issue.record("no embed in \(blocks)")
            return
        }
        #expect(embed.target == Self.target)
        #expect(embed.blocks == [Block(.paragraph([.text("Text.")]))])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    // 4. Footnotes, by reference and inline, numbered in the order the note first refers to them.
    @Test func footnotesAreSpansWithTheirText() throws {
        let text = """
            One[^a], inline^[said *here*], again[^a].

            [^a]: The *first*.
            """
        let (spans, diagnostics) = try spans(text)
        let first = Footnote(
            number: 1, blocks: [Block(.paragraph([.text("The "), .italic([.text("first")]), .text(".")]))])
        let inline = Footnote(number: 2, blocks: [Block(.paragraph([.text("said "), .italic([.text("here")])]))])
        #expect(
            spans == [
                .text("One"), .footnote(first), .text(", inline"), .footnote(inline), .text(", again"),
                .footnote(Footnote(number: 1, blocks: [])), .text("."),
            ])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    /// A definition is not a link reference: `[^fn1]: Footnote` names no note.
    @Test func aDefinitionIsNoLink() throws {
        let (blocks, diagnostics) = try blocks(["note.md": "And a footnote [^fn1].\n\n[^fn1]: Footnote\n"])
        #expect(blocks.count == 1)
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    /// A reference without a definition stays text, with a warning where it stands.
    @Test func anUndefinedFootnoteIsReported() throws {
        let marked = MarkedText("Text\nwith 1️⃣[^missing] in it.")
        let (spans, diagnostics) = try spans(marked.text)
        #expect(spans == [.text("Text"), .lineBreak, .text("with [^missing] in it.")])
        let undefined = try #require(diagnostics.with(.footnoteUndefined).first)
        #expect(undefined.position == marked.markers["1"])
        #expect(undefined.severity == .warning)
    }

    /// A link inside an inline footnote resolves, and is reported where it stands when broken.
    @Test func linksInsideAnInlineFootnote() throws {
        let marked = MarkedText("Text^[see [[target]] and 1️⃣[[Nowhere]]].")
        let (spans, diagnostics) = try spans(marked.text, with: ["target.md": "# Target\n"])
        let footnote = Footnote(
            number: 1,
            blocks: [Block(.paragraph([.text("see "), .link(Self.target, [.text("target")]), .text(" and Nowhere")]))])
        #expect(spans == [.text("Text"), .footnote(footnote), .text(".")])
        let broken = try #require(diagnostics.with(.linkBroken).first)
        #expect(broken.position == marked.markers["1"])
    }

    /// Definitions that refer to each other several times are copied once each, not at every
    /// reference: sixteen lines once made a bundle of hundreds of megabytes.
    @Test func nestedFootnotesStayTheSizeOfTheirText() throws {
        var lines = ["Start[^f0]", ""]
        for level in 0..<16 { lines.append("[^f\(level)]: x" + String(repeating: "[^f\(level + 1)]", count: 3)) }
        lines.append("[^f16]: end")
        let (spans, _) = try spans(lines.joined(separator: "\n"))
        let size = try JSONEncoder().encode(spans).count
        #expect(size < 10_000, "\(size) bytes")
        // The chain is there once: f0 holds f1 holds … f16.
        var depth = 0
        var current = spans
        while case .footnote(let footnote)? = current.first(where: { if case .footnote = $0 { true } else { false } }),
            case .paragraph(let inner)? = footnote.blocks.first?.content
        {
            depth += 1
            current = inner
        }
        #expect(depth == 17)
    }

    /// A reference inside link text is numbered like any other.
    @Test func aFootnoteInLinkTextIsNumbered() throws {
        let (spans, _) = try spans("[see[^a]](https://example.org)\n\n[^a]: A\n")
        let footnote = Footnote(number: 1, blocks: [Block(.paragraph([.text("A")]))])
        #expect(spans == [.link(.url("https://example.org"), [.text("see"), .footnote(footnote)])])
    }

    // Math: TeX is not markdown.
    @Test func inlineMathIsTeXNotMarkdown() throws {
        let (spans, diagnostics) = try spans(##"Area $a_1 * b_2 * c$, a sign \$x$ and `$code$`."##)
        #expect(
            spans == [.text("Area "), .math("a_1 * b_2 * c"), .text(", a sign $x$ and "), .code("$code$"), .text(".")])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
        // A `$` with a space inside it, or a digit after it, does not close: this is money.
        #expect(try self.spans("Fuel $5 and oil $10.").spans == [.text("Fuel $5 and oil $10.")])
    }

    @Test func displayMathIsABlock() throws {
        let (blocks, _) = try blocks([
            "note.md": ##"""
            $$
            \begin{vmatrix}a & b\\
            c & d
            \end{vmatrix}
            $$

            Text $$\sqrt{2}$$ and text.

            > [!note] In a callout
            > $$
            > x^2 \{y\}
            > $$

            ```math
            E = mc^2
            ```

                indented $code$ and [a link](https://example.com/?a=$x$y)

            Unclosed $$ stays text
            """##
        ])
        #expect(
            blocks == [
                Block(.math(##"\begin{vmatrix}a & b\\"## + "\n" + "c & d\n" + ##"\end{vmatrix}"##)),
                Block(.paragraph([.text("Text")])), Block(.math(##"\sqrt{2}"##)),
                Block(.paragraph([.text("and text.")])),
                Block(
                    .callout(
                        Block.Callout(
                            calloutType: "note", title: [.text("In a callout")], fold: nil,
                            blocks: [Block(.math(##"x^2 \{y\}"##))]))),
                Block(.math("E = mc^2")),
                Block(.code(language: nil, text: "indented $code$ and [a link](https://example.com/?a=$x$y)")),
                Block(.paragraph([.text("Unclosed $$ stays text")])),
            ])
    }

    /// Math and code on one line stay apart; a URL's dollars are the URL's.
    @Test func mathBesideCodeAndURLs() throws {
        let (spans, _) = try spans("A $x$ and `x`, $a$$b$, <https://example.com/$x$y>.")
        #expect(
            spans == [
                .text("A "), .math("x"), .text(" and "), .code("x"), .text(", "), .math("a"), .math("b"), .text(", "),
                .link(.url("https://example.com/$x$y"), [.text("https://example.com/$x$y")]), .text("."),
            ])
    }

    /// cmark counts no line inside math over lines: what follows in the paragraph is put right.
    @Test(arguments: [
        "$$a\nb\nc$$ ok\nmore\n1️⃣![i](nope.png)\n",
        "$$a\nb$$ 1️⃣![i](nope.png)\n",
        "> $$[[x]]\n> b$$ 1️⃣![i](nope.png)\n",
    ])
    func positionsAfterMathOverLinesHold(_ text: String) throws {
        let marked = MarkedText(text)
        let (_, diagnostics) = try blocks(["note.md": marked.text])
        let broken = try #require(diagnostics.with(.linkBroken).first { $0.message.contains("nope.png") })
        #expect(broken.position == marked.markers["1"])
    }

    /// Math keeps every later position true: the fences change length, no other line does.
    @Test func positionsAfterMathHold() throws {
        let marked = MarkedText("$$\nx^2\n$$\n\nSee $f([[Nowhere]])$ and 1️⃣[[Nowhere]].\n")
        let (_, diagnostics) = try blocks(["note.md": marked.text])
        let broken = try #require(diagnostics.with(.linkBroken).first)
        #expect(broken.position == marked.markers["1"])
    }

    // 5. An image with a fragment is the image: Obsidian's `#…` after a file is display data.
    @Test func anImageFragmentIsNotPartOfItsName() throws {
        let (blocks, diagnostics) = try blocks([
            "note.md": "![[pic.png#interface]]\n\n![alt](pic.png#interface)\n", "pic.png": "\u{89}PNG",
        ])
        #expect(blocks.count == 2)
        for block in blocks {
            guard case .image(let image) = block.content else {
                Issue.record("not an image: \(block)")
                continue
            }
            #expect(image.src.hasPrefix("assets/") && image.src.hasSuffix(".png"))
        }
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    // 6. An ambiguous name resolves as Obsidian resolves it, with a warning, and the build goes on.
    @Test func anAmbiguousNameWarnsAndBuilds() throws {
        let marked = MarkedText("See 1️⃣[[Шаблоны]].")
        let (spans, diagnostics) = try spans(
            marked.text, with: ["Плагины/Шаблоны.md": "# A\n", "Справка/Шаблоны.md": "# B\n"])
        let id = Slug.id(forPath: "Плагины/Шаблоны")
        let chosen = LinkTarget.document(
            kind: .guide, id: id, uuid: ContentIdentity.uuidString(kind: .guide, id: id), anchor: nil)
        #expect(spans == [.text("See "), .link(chosen, [.text("Шаблоны")]), .text(".")])
        let ambiguous = try #require(diagnostics.with(.linkAmbiguous).first)
        #expect(ambiguous.severity == .warning)
        #expect(ambiguous.position == marked.markers["1"])
        #expect(!diagnostics.contains { $0.severity == .error })
    }
}
