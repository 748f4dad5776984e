import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// One case: a vault whose file `file` holds a `1️⃣` marker where the diagnostic must point.
struct PositionCase: CustomTestStringConvertible, Sendable {
    var code: DiagnosticCode
    var severity: Severity
    var file = "note.md"
    var files: [String: String]
    var config: String?

    var testDescription: String { code.rawValue }
}

@Suite struct DiagnosticPositionTests {
    static let cases: [PositionCase] = [
        PositionCase(code: .linkBroken, severity: .warning, files: ["note.md": "See 1️⃣[[Nowhere]] now.\n"]),
        PositionCase(
            code: .linkAmbiguous, severity: .warning, file: "c/note.md",
            files: ["a/x.md": "A", "b/x.md": "B", "c/note.md": "Text\nand 1️⃣[[x]]\n"]),
        PositionCase(
            code: .linkBrokenHeading, severity: .warning,
            files: ["target.md": "## Real\n", "note.md": "- item 1️⃣[[target#Unreal]]\n"]),
        PositionCase(
            code: .linkBrokenBlock, severity: .warning,
            files: ["target.md": "text ^real\n", "note.md": "> quoted 1️⃣[[target#^nope]]\n"]),
        // What Locker would read above the vault's root: an embed, an image.
        PositionCase(code: .linkOutsideVault, severity: .error, files: ["note.md": "1️⃣![[../../etc/passwd]]\n"]),
        PositionCase(code: .linkOutsideVault, severity: .error, files: ["note.md": "Text\n\n1️⃣![[../boat.png]]\n"]),
        PositionCase(
            code: .linkOutsideVault, severity: .error, file: "a/note.md",
            files: ["a/note.md": "See 1️⃣![notes](../../x.md)\n"]),
        PositionCase(
            code: .linkOutsideVault, severity: .error,
            files: ["note.md": "| a |\n|---|\n| 1️⃣![[../other]] |\n"]),
        // A link there reads nothing: a warning, the link kept as its text.
        PositionCase(code: .linkLeavesVault, severity: .warning, files: ["note.md": "1️⃣[[../../etc/passwd]]\n"]),
        PositionCase(
            code: .linkLeavesVault, severity: .warning,
            files: ["note.md": "Feeding the 1️⃣[`colregs-mcp`](../colregs-mcp) server.\n"]),
        PositionCase(
            code: .linkLeavesVault, severity: .warning, file: "docs/note.md",
            files: ["docs/note.md": "- the 1️⃣[manual](../../manual.pdf)\n"]),
        PositionCase(
            code: .linkLeavesVault, severity: .warning, files: ["note.md": "Read 1️⃣[[../manual.pdf|the manual]]\n"]),
        PositionCase(
            code: .linkUnsafeURL, severity: .warning, files: ["note.md": "Click 1️⃣[here](javascript:alert(1)).\n"]),
        PositionCase(code: .linkEmpty, severity: .warning, files: ["note.md": "Empty 1️⃣[[]] link\n"]),
        PositionCase(code: .footnoteUndefined, severity: .warning, files: ["note.md": "Text *a* 1️⃣[^nope] here.\n"]),
        PositionCase(
            code: .footnoteUnused, severity: .warning,
            files: ["note.md": "Text[^a].\n\n[^a]: used\n  1️⃣[^b]: never used\n\n```\n[^c]: code\n```\n"]),
        PositionCase(
            code: .embedUnsupported, severity: .warning,
            files: ["note.md": "| a | b |\n|---|---|\n| x | 1️⃣![[pic.png\\|100]] |\n", "pic.png": "png"]),
        PositionCase(
            code: .embedCycle, severity: .error, file: "a.md",
            files: ["a.md": "Intro\n\n1️⃣![[b]]\n", "b.md": "![[a]]\n"]),
        PositionCase(
            code: .embedTooDeep, severity: .error, file: "a.md",
            files: ["a.md": "1️⃣![[b]]\n", "b.md": "![[c]]\n", "c.md": "deep\n"], config: "embedDepth: 1\n"),
        PositionCase(code: .embedUnsupported, severity: .warning, files: ["note.md": "Read 1️⃣![[manual.pdf]]\n"]),
        PositionCase(code: .headingSkippedLevel, severity: .warning, files: ["note.md": "## A\n\n1️⃣#### B\n"]),
        PositionCase(code: .headingExtraH1, severity: .warning, files: ["note.md": "# T\n\ntext\n\n1️⃣# Again\n"]),
        PositionCase(code: .headingTooDeep, severity: .warning, files: ["note.md": "## A\n\n1️⃣##### Deep\n"]),
        PositionCase(code: .blockDuplicateID, severity: .error, files: ["note.md": "one ^x\n\n1️⃣two ^x\n"]),
        PositionCase(code: .htmlDropped, severity: .warning, files: ["note.md": "Text\n\n1️⃣<div>hi</div>\n"]),
        // The 21st level of quotes, list items and emphasis counted together is the first too deep.
        PositionCase(
            code: .markdownTooDeep, severity: .error,
            files: ["note.md": "# N\n\n" + String(repeating: "> - ", count: 10) + "1️⃣> deep\n"]),
        PositionCase(
            code: .markdownTooDeep, severity: .error,
            files: [
                "note.md": "# N\n\n" + String(repeating: "- ", count: 12) + String(repeating: "> ", count: 8)
                    + "1️⃣- deep\n"
            ]),
        PositionCase(code: .commentUnterminated, severity: .warning, files: ["note.md": "Text 1️⃣%% never closed\n"]),
        PositionCase(code: .frontmatterUnterminated, severity: .error, files: ["note.md": "1️⃣---\ntitle: x\n"]),
        PositionCase(code: .frontmatterNotMapping, severity: .error, files: ["note.md": "---\n1️⃣- a\n- b\n---\nBody\n"]),
        PositionCase(
            code: .frontmatterInvalidValue, severity: .error,
            files: ["note.md": "---\ntitle: T\ncategory: 1️⃣sailing\n---\n"]),
        PositionCase(
            code: .frontmatterInvalidValue, severity: .error, files: ["note.md": "---\norder: 1️⃣first\n---\n"]),
        PositionCase(code: .idInvalid, severity: .error, files: ["note.md": "---\nid: 1️⃣bad id!\n---\n"]),
        PositionCase(
            code: .idDuplicate, severity: .error, file: "b.md",
            files: ["a.md": "---\nid: same\n---\n", "b.md": "---\ntitle: B\nid: 1️⃣same\n---\n"]),
        // IDs that differ only in case: one folder on macOS.
        PositionCase(
            code: .idDuplicate, severity: .error, file: "b.md",
            files: ["a.md": "---\nid: Knots\n---\n", "b.md": "---\ntitle: B\nid: 1️⃣knots\n---\n"]),
        PositionCase(
            code: .configInvalid, severity: .error, file: "locker.yml",
            files: ["note.md": "x", "locker.yml": "locales: [en]\nunresolvedLinks: 1️⃣sometimes\n"]),
        PositionCase(
            code: .configInvalid, severity: .error, file: "locker.yml",
            files: ["note.md": "x", "locker.yml": "locales: [en, ru]\ndefaultLocale: 1️⃣de\n"]),
        // An error at the end of a file without a final line break is at the end of its last
        // line, not on the line after it, where libyaml marks it (found by the config fuzzer).
        PositionCase(
            code: .configInvalid, severity: .error, file: "locker.yml",
            files: ["note.md": "x", "locker.yml": "title: T\nlocales: [ru]\nd1️⃣"]),
        PositionCase(
            code: .configInvalid, severity: .error, file: "locker.yml",
            files: ["note.md": "x", "locker.yml": "title: T\nлоцман1️⃣"]),
        PositionCase(
            code: .configInvalid, severity: .error, file: "locker.yml", files: ["note.md": "x", "locker.yml": "---1️⃣"]),
        PositionCase(
            code: .configUnknownKey, severity: .warning, file: "locker.yml",
            files: ["note.md": "x", "locker.yml": "title: T\n1️⃣colour: blue\n"]),
        // Settings a folder's name suggests: at the top of locker.yml, the file to edit.
        PositionCase(
            code: .configKindFolder, severity: .note, file: "locker.yml",
            files: ["Checklists/engine.md": "## Before\n\n- Oil\n", "locker.yml": "1️⃣title: T\n"]),
        PositionCase(code: .fileEmpty, severity: .warning, files: ["note.md": "1️⃣\n"]),
        // Checklists.
        PositionCase(
            code: .checklistEmpty, severity: .error,
            files: ["note.md": "1️⃣---\ntype: checklist\n---\n\n## A\n\nOnly a note.\n"]),
        PositionCase(
            code: .checklistEmptySection, severity: .warning,
            files: ["note.md": "---\ntype: checklist\n---\n\n## A\n\n- one ^one\n\n1️⃣## B\n\nOnly a note.\n"]),
        PositionCase(
            code: .checklistEmptySection, severity: .warning,
            files: ["note.md": "---\ntype: checklist\n---\n\n## A\n\n- one ^one\n\n1️⃣### Sub\n\nOnly a note.\n"]),
        PositionCase(
            code: .checklistEmptyItem, severity: .error,
            files: ["note.md": "---\ntype: checklist\n---\n\n## A\n\n- [ ] one ^one\n1️⃣- [ ]\n- [ ] two ^two\n"]),
        PositionCase(
            code: .checklistEmptyItem, severity: .error,
            files: ["note.md": "---\ntype: checklist\n---\n\n## A\n\n- one ^one\n1️⃣-\n- two ^two\n"]),
        PositionCase(
            code: .checklistItemOutsideSection, severity: .error,
            files: ["note.md": "---\ntype: checklist\n---\n\nIntro.\n\n1️⃣- stray\n- stray\n\n## A\n\n- one ^one\n"]),
        PositionCase(
            code: .checklistHeadingTooDeep, severity: .warning,
            files: ["note.md": "---\ntype: checklist\n---\n\n## A\n\n### B\n\n- one ^one\n\n1️⃣#### C\n\n- two ^two\n"]),
        PositionCase(
            code: .checklistUnknownType, severity: .error,
            files: ["note.md": "---\ntype: checklist\nchecklistType: 1️⃣boarding\n---\n\n## A\n\n- one ^one\n"]),
        PositionCase(
            code: .idDerived, severity: .warning,
            files: ["note.md": "---\ntype: checklist\n---\n\n## A\n\n- [ ] one ^one\n1️⃣- [ ] Life jackets\n"]),
        PositionCase(
            code: .idDerived, severity: .warning, file: "Lists/note.md",
            files: ["Lists/note.md": "## A\n\n1. first ^first\n1️⃣2. second\n"], config: "kinds:\n  Lists: checklist\n"),
        // Decks.
        PositionCase(
            code: .deckEmpty, severity: .error, file: "Signals/_deck.md",
            files: ["Signals/_deck.md": "1️⃣---\ntype: deck\n---\n\nFlags of the code.\n"]),
        PositionCase(
            code: .deckEmpty, severity: .error, file: "flags.md",
            files: ["flags.md": "1️⃣---\ntype: deck\n---\n\n# Flags\n"]),
        PositionCase(
            code: .blockDuplicateID, severity: .error,
            files: ["note.md": "---\ntype: checklist\n---\n## A ^s\n- a ^a\n1️⃣## B ^s\n- b ^b\n"]),
        PositionCase(
            code: .deckEmpty, severity: .error, file: "locker.yml",
            files: ["note.md": "x", "locker.yml": "kinds:\n  1️⃣Signals: deck\n"]),
        PositionCase(
            code: .deckEmptySide, severity: .error, file: "Signals/_deck.md",
            files: ["Signals/_deck.md": "---\ntype: deck\n---\n\nAlpha::Diver down ^alpha\n1️⃣Bravo:: ^bravo\n"]),
        PositionCase(
            code: .deckEmptySide, severity: .error, file: "Signals/_deck.md",
            files: ["Signals/_deck.md": "---\ntype: deck\n---\n\n- Alpha::Diver down ^a\n1️⃣- ::Dangerous cargo ^b\n"]),
        PositionCase(
            code: .deckDuplicateCard, severity: .warning, file: "Signals/_deck.md",
            files: ["Signals/_deck.md": "---\ntype: deck\n---\n\nAlpha::Diver down ^a1\n\n1️⃣ALPHA::Diver below ^a2\n"]),
        PositionCase(
            code: .deckDuplicateID, severity: .error, file: "Signals/_deck.md",
            files: ["Signals/_deck.md": "---\ntype: deck\n---\n\nAlpha::Diver down ^same\n1️⃣Bravo::Cargo ^same\n"]),
        PositionCase(
            code: .deckDuplicateID, severity: .error, file: "Signals/bravo.md",
            files: [
                "Signals/_deck.md": "---\ntype: deck\n---\n",
                "Signals/alpha.md": "---\nid: flag\n---\n\nDiver down\n",
                "Signals/bravo.md": "---\nid: 1️⃣flag\n---\n\nDangerous cargo\n",
            ]),
        PositionCase(
            code: .idDerived, severity: .warning, file: "Signals/_deck.md",
            files: ["Signals/_deck.md": "---\ntype: deck\n---\n\nAlpha::Diver ^a\n\n1️⃣What is Bravo?\n?\nCargo\n"]),
        PositionCase(
            code: .idDerived, severity: .warning, file: "Signals/Alpha.md",
            files: ["Signals/Alpha.md": "1️⃣Diver down\n"], config: "kinds:\n  Signals: deck\n"),
        // Translations.
        PositionCase(
            code: .translationMismatch, severity: .warning, file: "list.md",
            files: [
                "list.md": "---\ntype: checklist\n---\n\n## Палуба\n\n- [ ] Жилеты ^vests\n1️⃣- [ ] Якорь ^anchor\n",
                "list.en.md": "---\ntype: checklist\n---\n\n## Deck\n\n- [ ] Vests ^vests\n",
            ],
            config: "locales: [ru, en]\n"),
        // `lang: ru`: without it the suffix-less folder note is taken for en (see DeckTests).
        PositionCase(
            code: .translationMismatch, severity: .warning, file: "Signals/_deck.en.md",
            files: [
                "Signals/_deck.md": "---\ntype: deck\nlang: ru\n---\n\nАльфа::Водолаз ^alpha\n",
                "Signals/_deck.en.md": "---\ntype: deck\n---\n\nAlpha::Diver ^alpha\n1️⃣Bravo::Cargo ^bravo\n",
            ],
            config: "locales: [ru, en]\n"),
        PositionCase(
            code: .pageMissingKey, severity: .error,
            files: ["note.md": "---\nkind: page\napp:\n  name: A\n1️⃣hero:\n  subheadline: x\n---\n"]),
        PositionCase(
            code: .pageUnknownKey, severity: .warning,
            files: ["note.md": "---\nkind: page\napp: {name: A}\nhero: {headline: H}\n1️⃣feautres: x\n---\n"]),
        // A count of nothing, at its value; a count of a checklist there is none of, too.
        PositionCase(
            code: .pageInvalidCount, severity: .error,
            files: ["note.md": "---\nkind: page\napp: {name: A}\nhero:\n  headline: 1️⃣\"{{pages}} pages\"\n---\n"]),
        PositionCase(
            code: .pageInvalidCount, severity: .error,
            files: [
                "note.md":
                    "---\nkind: page\ndescription: 1️⃣All {{items nowhere}} items.\napp: {name: A}\nhero: {headline: H}\n---\n"
            ]),
        // Beside a root page with two headlines, `b` would be the root's second headline's URL.
        PositionCase(
            code: .pageReservedID, severity: .error, file: "other.md",
            files: [
                "home.md": "---\nkind: page\norder: 1\napp: {name: A}\nhero: {headlines: [H, I]}\n---\n",
                "other.md": "---\nkind: page\norder: 2\nid: 1️⃣b\napp: {name: A}\nhero: {headline: H}\n---\n",
            ]),
        PositionCase(
            code: .linkBroken, severity: .warning,
            files: [
                "note.md":
                    "---\nkind: page\napp: {name: A}\nhero: {headline: H}\nfeatures:\n  title: F\n  items:\n"
                    + "    - title: T\n      link: 1️⃣\"[[nowhere]]\"\n---\n"
            ]),
        PositionCase(
            code: .templateInvalid, severity: .error, file: "templates/landing.mustache",
            files: ["note.md": "x", "templates/landing.mustache": "line one\n{{#open}}\nstill open\n1️⃣"]),
    ]

    /// Two IDs that differ only in case are one folder of the site on macOS: the message says so,
    /// and translations (the same ID in two languages) are still fine.
    @Test func idsDifferingOnlyInCaseSayWhy() throws {
        let vault = try TestVault(
            [
                "a.md": "---\nid: Knots\n---\n", "b.md": "---\nid: knots\n---\n",
                "c.md": "---\nid: Knots\nlang: ru\n---\n",
            ], config: "locales: [en, ru]\n")
        defer { vault.remove() }
        let found = try vault.diagnostics().with(.idDuplicate)
        #expect(found.map(\.file) == ["b.md"])
        #expect(
            found.first?.message
                == "guide id 'knots' (en) differs only in case from 'Knots' of a.md: their pages would share a folder on macOS"
        )
    }

    @Test(arguments: cases)
    func reportsDiagnosticAtMarker(_ testCase: PositionCase) throws {
        var plain: [String: String] = [:]
        var expected: SourcePosition?
        for (path, text) in testCase.files {
            let marked = MarkedText(text)
            plain[path] = marked.text
            if path == testCase.file { expected = marked.markers["1"] }
        }
        let position = try #require(expected, "the case marks no position in \(testCase.file)")
        let vault = try TestVault(plain, config: testCase.config)
        defer { vault.remove() }
        let diagnostics = try vault.diagnostics()
        let matching = diagnostics.filter { $0.code == testCase.code && $0.file == testCase.file }
        #expect(matching.count == 1, "\(diagnostics.rendered)")
        let found = try #require(matching.first)
        #expect(found.position == position, "\(diagnostics.rendered)")
        #expect(found.severity == testCase.severity)
    }

    @Test func reportsYAMLSyntaxErrorOnTheFileLine() throws {
        let vault = try TestVault(["note.md": "---\ntitle: ok\ntags: [unclosed\n---\nBody\n"])
        defer { vault.remove() }
        let found = try #require(try vault.diagnostics().with(.frontmatterSyntax).first)
        // libyaml notices the missing ']' when the flow sequence meets the end of the YAML (line 4
        // of the file, after the two YAML lines that follow the opening fence).
        #expect(found.position.line >= 3 && found.position.line <= 4, "\(found)")
        #expect(found.severity == .error)
    }

    @Test func reportsDuplicateFrontmatterKey() throws {
        let vault = try TestVault(["note.md": "---\ntitle: a\ntitle: b\n---\n"])
        defer { vault.remove() }
        let found = try #require(try vault.diagnostics().with(.frontmatterDuplicateKey).first)
        #expect(found.position == SourcePosition(line: 2, column: 1))
        #expect(found.message.contains("title"))
    }

    @Test func stopsAliasBombWithinBudget() throws {
        var yaml = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        for (name, previous) in [("b", "a"), ("c", "b"), ("d", "c"), ("e", "d"), ("f", "e")] {
            yaml += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
        }
        let vault = try TestVault(["bomb.md": "---\n\(yaml)---\nBody\n"])
        defer { vault.remove() }
        let found = try #require(try vault.diagnostics().with(.frontmatterTooComplex).first)
        #expect(found.position == SourcePosition(line: 2, column: 1))
        #expect(found.file == "bomb.md")
    }

    @Test func reportsInvalidUTF8AtTheBadByte() throws {
        let vault = try TestVault([:])
        defer { vault.remove() }
        try vault.write("note.md", Data("ok\nпр".utf8) + Data([0xFF, 0x41]))
        let found = try #require(try vault.diagnostics().with(.fileInvalidUTF8).first)
        #expect(found.position == SourcePosition(line: 2, column: 3))
        #expect(found.severity == .error)
    }

    @Test func refusesBinaryFileNamedMarkdown() throws {
        let vault = try TestVault([:])
        defer { vault.remove() }
        try vault.write("image.md", Data([0x89, 0x50, 0x4E, 0x47, 0x0A, 0x41, 0x00, 0x01]))
        let found = try #require(try vault.diagnostics().with(.fileBinary).first)
        #expect(found.position == SourcePosition(line: 2, column: 2))
    }

    /// Lines end at CR and CRLF too before a bad byte, as they do once a note is decoded (found
    /// by the markdown fuzzer: a NUL after a lone CR was placed on the line before, past its end).
    @Test(arguments: [[0x00], [0xFF]] as [[UInt8]])
    func aBadByteAfterCRAndCRLFLineEndingsIsOnItsOwnLine(bad: [UInt8]) throws {
        let vault = try TestVault([:])
        defer { vault.remove() }
        try vault.write("note.md", Data("one\r\ntwo\rпр".utf8) + Data(bad + [0x41]))
        let found = try #require(
            try vault.diagnostics().first { $0.code == .fileBinary || $0.code == .fileInvalidUTF8 })
        #expect(found.position == SourcePosition(line: 3, column: 3))
    }

    @Test func refusesFileOverSizeLimit() throws {
        let vault = try TestVault(["big.md": String(repeating: "a", count: 11)], config: "maxFileSize: 10\n")
        defer { vault.remove() }
        let found = try #require(try vault.diagnostics().with(.fileTooLarge).first)
        #expect(found.file == "big.md")
        #expect(found.position == .start)
        #expect(found.severity == .error)
    }

    @Test func notesByteOrderMarkAndKeepsPositions() throws {
        let vault = try TestVault([:])
        defer { vault.remove() }
        try vault.write("note.md", Data([0xEF, 0xBB, 0xBF]) + Data("Line\n[[Missing]]\n".utf8))
        let diagnostics = try vault.diagnostics()
        #expect(diagnostics.with(.fileBOM).first?.severity == .note)
        #expect(
            diagnostics.with(.linkBroken).first?.position == SourcePosition(line: 2, column: 1),
            "\(diagnostics.rendered)")
    }

    @Test func readsCRLFWithTruePositions() throws {
        let vault = try TestVault(["note.md": "---\r\ntitle: T\r\n---\r\nFirst\r\n\r\nSecond [[Missing]]\r\n"])
        defer { vault.remove() }
        let diagnostics = try vault.diagnostics()
        #expect(diagnostics.with(.fileCRLF).first?.severity == .note)
        #expect(
            diagnostics.with(.linkBroken).first?.position == SourcePosition(line: 6, column: 8),
            "\(diagnostics.rendered)")
        #expect(try vault.compile().guides.first?.title == "T")
    }

    @Test func skipsSymlinkLeavingTheVault() throws {
        let outside = try TestVault(["secret.md": "secret"])
        let vault = try TestVault(["note.md": "[[secret]]"])
        defer {
            vault.remove()
            outside.remove()
        }
        try FileManager.default.createSymbolicLink(
            at: vault.root.appendingPathComponent("secret.md"),
            withDestinationURL: outside.root.appendingPathComponent("secret.md"))
        let diagnostics = try vault.diagnostics()
        let found = try #require(diagnostics.with(.fileOutsideVault).first)
        #expect(found.file == "secret.md")
        #expect(diagnostics.with(.linkBroken).count == 1, "the outside note must not be read: \(diagnostics.rendered)")
    }

    @Test func positionsCountUnicodeScalarsNotBytes() throws {
        let marked = MarkedText("Якорь и цепь: 1️⃣[[Нет такой]]\n")
        let vault = try TestVault(["заметка.md": marked.text])
        defer { vault.remove() }
        let found = try #require(try vault.diagnostics().with(.linkBroken).first)
        #expect(found.position == marked["1"])
        #expect(found.position.column == 15)
    }

    @Test func escalatesWarningsUnderStrict() throws {
        let vault = try TestVault(["note.md": "[[Missing]]\n"])
        defer { vault.remove() }
        #expect(try vault.compile().failed == false)
        let strict = try vault.compile(strict: true)
        #expect(strict.failed)
        #expect(strict.diagnostics.with(.linkBroken).first?.severity == .error)
    }

    @Test func configCanMakeUnresolvedLinksErrors() throws {
        let vault = try TestVault(["note.md": "[[Missing]]\n"], config: "unresolvedLinks: error\n")
        defer { vault.remove() }
        #expect(try vault.diagnostics().with(.linkBroken).first?.severity == .error)
    }
}
