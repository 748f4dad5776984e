import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// A build that writes a record writes each guide's bundle file and page as soon as it builds
/// it, before it knows whether the build fails: what it reports, and what it leaves, must still
/// be what a clean build reports and leaves.
@Suite struct StreamingBuildTests {
    /// A guide template that cannot be parsed is an error the build reports (with its line), as
    /// a clean compile reports it: the guides' pages are not rendered with it first, which
    /// threw "the site has no template named 'guide'" out of the build.
    @Test func aGuideTemplateThatCannotBeParsedIsReportedByABuildIntoAFolder() throws {
        let vault = try TestVault([
            "a.md": "# A\n\nText.\n",
            "templates/guide.mustache": "line one\n{{#open}}\nstill open\n",
        ])
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        let clean = try Compiler(vault: vault.root, environment: IncrementalBuildTests.environment).compile()
        #expect(clean.failed)
        #expect(clean.diagnostics.contains { $0.code == .templateInvalid })
        let built = try PageInputsTests.build(vault, into: output).0
        #expect(built.diagnostics == clean.diagnostics)
        // And in `locker serve`'s builds.
        let served = try MemoryBuilds().build(
            Compiler(vault: vault.root, environment: IncrementalBuildTests.environment)
        ).0
        #expect(served.diagnostics == clean.diagnostics)
    }

    /// Two guides with one ID in one locale are an error the build reports: their pages, which
    /// share a folder, are not both written into the output's staging folder first (the second
    /// cannot be created there, and the build threw "File exists").
    @Test func guidesThatShareAnIDAreReportedByABuildIntoAFolder() throws {
        let vault = try TestVault([
            "a.md": "---\nid: same\n---\n# A\n\nText of a.\n",
            "b.md": "---\nid: same\n---\n# B\n\nText of b.\n",
        ])
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        let clean = try Compiler(vault: vault.root, environment: IncrementalBuildTests.environment).compile()
        #expect(clean.diagnostics.contains { $0.code == .idDuplicate })
        let built = try PageInputsTests.build(vault, into: output).0
        #expect(built.diagnostics == clean.diagnostics)
    }

    /// Guides are written on every core as they are built; when several cannot be written, a
    /// build into an output that records inputs reports the first of them in the documents'
    /// order, as a build into memory does, whichever core met its error first.
    @Test(arguments: [false, true])
    func aGuideThatCannotBeWrittenAsItIsBuiltReportsTheFirstInOrder(recordsInputs: Bool) throws {
        try #require(BuildFingerprint.program != nil)
        let vault = try TestVault(
            Dictionary(uniqueKeysWithValues: (0..<300).map { (String(format: "n%03d.md", $0), "Note \($0).") }))
        defer { vault.remove() }
        let compiler = Compiler(vault: vault.root, environment: ["SOURCE_DATE_EPOCH": "0"])
        for _ in 0..<10 {
            let error = #expect(throws: LockerError.self) {
                try compiler.compile(into: RefusingRecordingSink(recordsInputs: recordsInputs))
            }
            #expect(error.map { "\($0)" } == LockerError.io("cannot write n000").description)
        }
    }

    /// A transaction discarded (Ctrl-C) while the build goes on and then starts again (a
    /// guide's outline read wrong) leaves no folder behind: a restart does not make again the
    /// staging folder the discard removed.
    @Test func aRestartAfterADiscardLeavesNoStagingFolder() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("locker-restart-\(UUID())")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        let output = parent.appendingPathComponent("out")
        let transaction = try OutputWriter.begin(replacing: output)
        try transaction.write(OutputFile(path: "a", data: Data("A".utf8)))
        transaction.discard()
        transaction.restart()
        let left = try FileManager.default.contentsOfDirectory(atPath: parent.path)
        #expect(left.filter { $0.contains(".staging-") } == [], "\(left)")
    }

    /// Every kind of document side by side, in two locales, out of the notes' order: guides
    /// (one that says `type: checklist`, one a deck's folder holds that says `kind: guide`),
    /// checklists, a deck of card notes, a landing page. A build into a folder, first and over
    /// its previous output, lays out a clean build's files, and each page at its own route.
    @Test func everyKindOfDocumentBuiltIntoAFolderGivesTheCleanBuildsFiles() throws {
        let vault = try TestVault(
            [
                "z-first.md": "---\nid: aaa\n---\n# Z first\n\nSee [[list]] and [[Signals]].\n",
                "z-first.ru.md": "---\nid: aaa\n---\n# Z первый\n\nТекст.\n",
                "m.md": "---\nkind: guide\ntype: checklist\n---\n# M\n\n## Part\n\nText of m.\n",
                "list.md": "---\ntype: checklist\n---\n# List\n\n## Before\n\n- [ ] One ^one\n- [ ] Two ^two\n",
                "list.ru.md": "---\ntype: checklist\n---\n# Список\n\n## До\n\n- [ ] Раз ^one\n- [ ] Два ^two\n",
                "Signals/Signals.md": "---\ntype: deck\n---\n# Signals\n",
                "Signals/flag.md": "---\nid: flag\n---\n# Flag\n\nA flag.\n",
                "Signals/aside.md": "---\nkind: guide\n---\n# Aside\n\nA guide in a deck's folder.\n",
                "b.md": "# B\n\nSee [[z-first]] and [[m#Part]].\n",
            ], config: "locales: [en, ru]\n")
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        func check() throws {
            let (built, _) = try PageInputsTests.build(vault, into: output)
            let clean = try Compiler(vault: vault.root, environment: IncrementalBuildTests.environment).compile()
            #expect(built.diagnostics == clean.diagnostics)
            #expect(!clean.failed, "\(clean.diagnostics)")
            #expect(built.sitePageCount == clean.sitePageCount)
            #expect(built.builtDocuments + built.keptGuides.count == clean.builtDocuments)
            let differences = BuildOutputTests.differences(
                try PageInputsTests.tree(output), clean.files.map { ($0.path, $0.data) })
            #expect(differences == [], "\(differences.prefix(5))")
        }
        try check()
        try vault.write("b.md", Data("# B\n\nEdited; see [[z-first]].\n".utf8))
        try check()
        // A guide's bundle file removed from the output: built again, and the output whole.
        let guides = output.appendingPathComponent("bundles/v1/guide/en")
        for name in try FileManager.default.contentsOfDirectory(atPath: guides.path) where !name.hasPrefix("index") {
            try FileManager.default.removeItem(at: guides.appendingPathComponent(name))
        }
        try check()
    }

    /// A guide the record keeps whose bundle file, or page, is gone from the output is built
    /// again and written: the output is a clean build's, and the record the next build reads
    /// keeps the guide's entry, so the build after keeps the guide again.
    @Test func aKeptGuideWhoseFilesAreGoneIsWrittenAgainAndKeptByTheNextBuild() throws {
        let (vault, _, _) = try NoteRecordTests.vault()
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        _ = try NoteRecordTests.rebuild(vault, output)
        #expect(try NoteRecordTests.rebuild(vault, output).keptGuides.count == 4)
        let guides = output.appendingPathComponent("bundles/v1/guide/en")
        for name in try FileManager.default.contentsOfDirectory(atPath: guides.path) where !name.hasPrefix("index") {
            try FileManager.default.removeItem(at: guides.appendingPathComponent(name))
        }
        try FileManager.default.removeItem(at: output.appendingPathComponent("site/guides/tides/index.html"))
        _ = try NoteRecordTests.rebuild(vault, output)
        #expect(try NoteRecordTests.rebuild(vault, output).keptGuides.count == 4)
        #expect(try PageInputsTests.build(vault, into: output).1 > 0, "pages are taken again")
    }
}

/// A sink that records inputs, as an output folder does (or not, as plain memory), and cannot write a guide's bundle
/// file: it throws, naming the guide (the first guide's after a moment).
private struct RefusingRecordingSink: OutputSink {
    let recordsInputs: Bool

    func write(_ file: OutputFile, sha256: String?, inputs: String?) throws {
        guard file.path.hasPrefix("bundles/v1/guide/") else { return }
        let text = String(decoding: file.data, as: UTF8.self)
        let id = text.range(of: #""id":""#).map { text[$0.upperBound...].prefix { $0 != "\"" } } ?? ""
        // The first guide meets its error last: another core meets one first.
        if id == "n000" { Thread.sleep(forTimeInterval: 0.05) }
        throw LockerError.io("cannot write \(id)")
    }

    func restart() {}
}
