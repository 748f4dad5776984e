import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// Builds that hold guides in outline (``OutlineScanner``) report what a build that parses
/// every note whole reports, once each, and give its output.
@Suite struct OutlineBuildTests {
    /// A guide kept in the record by a build that held it in outline, and built again because a
    /// note it links to changed, still reports what its body has wrong (a skipped heading level).
    @Test func aGuideRecordedInOutlineAndBuiltAgainKeepsItsBodysWarnings() throws {
        let vault = try TestVault([
            "guides/a.md": "# A\n\n#### Skipped\n\nSee [[b]].\n",
            "guides/b.md": "# B\n\nText.\n",
        ])
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        let first = try NoteRecordTests.rebuild(vault, output)
        #expect(first.diagnostics.map(\.code) == [.headingSkippedLevel])
        try vault.write("guides/b.md", Data("# B\n\nOther text.\n".utf8))
        let second = try NoteRecordTests.rebuild(vault, output)
        #expect(second.builtGuides.map(\.id).sorted() == ["guides/a", "guides/b"])
        #expect(second.diagnostics.map(\.code) == [.headingSkippedLevel])
        let third = try NoteRecordTests.rebuild(vault, output)
        #expect(third.diagnostics.map(\.code) == [.headingSkippedLevel])
    }
}

extension OutlineBuildTests {
    /// Guides with what their decoding, frontmatter and body have wrong, embedded, linked into,
    /// joined to a deck below a folder note: a build that holds guides in outline reports what
    /// a build that parses every note whole reports, once each, plain or strict, built anew or
    /// over its previous output.
    @Test(arguments: [(false, false), (true, false), (false, true)])
    func aBuildInOutlineReportsWhatAWholeBuildReports(strict: Bool, withErrors: Bool) throws {
        var files: [String: Data] = [
            "guides/crlf.md": Data("---\r\nid: crlf\r\n---\r\n# CRLF\r\n\r\n#### Skipped\r\n".utf8),
            "guides/bom.md": Data([0xEF, 0xBB, 0xBF] + Array("# BOM\n\n## Part\n\n###### Six\n".utf8)),
            "guides/embedder.md": Data(
                "# Embedder\n\n#### Skipped\n\n![[embedded]]\n\n[[crlf#Skipped]] [[bom#Nope]]\n".utf8),
            "guides/embedded.md": Data("# Embedded\n\n#### Deep\n\n[[missing]]\n".utf8),
            "guides/zz-late.md": Data("# Late\n\n![[embedded#Deep]]\n".utf8),
            "Signals/Signals.md": Data("---\ntype: deck\n---\n# Signals\n".utf8),
            "Signals/flags.md": Data("# Flags\n\n#### Deep\n\nQ:: A\n".utf8),
        ]
        files["guides/empty.md"] = Data("   \n".utf8)
        if withErrors {
            files["guides/open.md"] = Data("---\nid: open\n# Open\n\n#### Deep\n".utf8)
            files["guides/badfm.md"] = Data("---\nid: badfm\norder: many\n---\n# Bad\n\n#### Deep\n".utf8)
        }
        let vault = try TestVault(files.mapValues { String(decoding: $0, as: UTF8.self) })
        // The BOM and CRLF are bytes a string would keep: written as bytes.
        for (path, data) in files { try vault.write(path, data) }
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        var compiler = Compiler(vault: vault.root, strict: strict, environment: IncrementalBuildTests.environment)
        compiler.settlingTime = -1
        for round in 0..<3 {
            let clean = try compiler.compile()
            #expect(!clean.diagnostics.isEmpty)
            let staging = try OutputWriter.begin(replacing: output)
            let built = try compiler.compile(into: staging)
            if built.failed { staging.discard() } else { try staging.commit() }
            #expect(built.diagnostics == clean.diagnostics, "round \(round)")
            // Without errors, the rebuilds keep guides from the record.
            let failing = strict || withErrors
            #expect(built.failed == failing)
            if round > 0 { #expect(failing || !built.keptGuides.isEmpty) }
            if round == 1 {
                try vault.write("guides/embedded.md", Data("# Embedded\n\n#### Deep\n\n[[missing]] again\n".utf8))
            }
        }
    }
}

extension OutlineBuildTests {
    /// A link reference definition whose label goes on past its first line makes no block: the
    /// H1 after it is still the note's title. The scanner, taking the line for text, read the
    /// H1 as a section, and every such build began again with every note parsed whole.
    @Test(arguments: [
        "[foo\nbar]: /url\n\n# Title\n", "[foo\n]: /url\n\n# Title\n", "[\nfoo]: /url\n# Title\n",
        "[a\\]\nb]: /url\n\n# Title\n",
    ])
    func aLinkDefinitionOverSeveralLinesBeforeTheH1(_ text: String) {
        #expect(OutlineScannerTests.agrees(text), "\(text)")
    }
}
