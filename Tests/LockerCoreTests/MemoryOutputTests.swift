import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// A ``MemoryOutput`` made over another is that build's output as a folder would be: it keeps a
/// file only when it is the same bytes or was made from the same inputs, and carries what a kept
/// file was made from to the next build.
@Suite struct MemoryOutputTests {
    private static func file(_ path: String, _ text: String) -> OutputFile {
        OutputFile(path: path, data: Data(text.utf8))
    }

    @Test func aFileIsKeptOnlyWhenItIsTheSameBytesOrMadeFromTheSameInputs() throws {
        let first = MemoryOutput(over: nil)
        #expect(first.recordsInputs)
        try first.write(Self.file("bundles/a.json", "{}"), sha256: ContentHash.sha256Hex(Data("{}".utf8)))
        // Written without its hash: hashed when asked.
        try first.write(Self.file("bundles/b.json", "[]"))
        try first.write(Self.file("site/a/index.html", "<p>a</p>"), sha256: nil, inputs: "inputs-a")
        try first.write(Self.file("site/b/index.html", "<p>b</p>"))
        try first.writeUnhashed(Self.file(".locker-notes", "record"))
        // The record is the build's own: the next build reads it, nobody is served it.
        #expect(
            first.files.map(\.path) == ["bundles/a.json", "bundles/b.json", "site/a/index.html", "site/b/index.html"])

        let second = MemoryOutput(over: first)
        #expect(second.previousFile(".locker-notes") == Array("record".utf8))
        #expect(second.previousFile("bundles/missing.json") == nil)
        #expect(try second.keep("bundles/a.json", if: .bytes(sha256: ContentHash.sha256Hex(Data("{}".utf8)))))
        #expect(try second.keep("bundles/b.json", if: .bytes(sha256: ContentHash.sha256Hex(Data("[]".utf8)))))
        #expect(try !second.keep("bundles/a.json", if: .bytes(sha256: ContentHash.sha256Hex(Data("{ }".utf8)))))
        #expect(try !second.keep("bundles/missing.json", if: .bytes(sha256: "")))
        #expect(try !second.keep("site/a/index.html", if: .inputs("inputs-b")))
        // Kept for its bytes, a file is kept with no inputs, as a folder keeps it.
        let bytesOnly = MemoryOutput(over: first)
        let page = ContentHash.sha256Hex(Data("<p>a</p>".utf8))
        #expect(try bytesOnly.keep("site/a/index.html", if: .bytes(sha256: page)))
        #expect(try !MemoryOutput(over: bytesOnly).keep("site/a/index.html", if: .inputs("inputs-a")))
        #expect(try second.keep("site/a/index.html", if: .inputs("inputs-a")))
        // A page written without inputs has none to be kept by.
        #expect(try !second.keep("site/b/index.html", if: .inputs("inputs-a")))
        #expect(second.kept == ["bundles/a.json", "bundles/b.json", "site/a/index.html"])
        #expect(second.files.map(\.data) == [Data("{}".utf8), Data("[]".utf8), Data("<p>a</p>".utf8)])

        // What a kept page was made from goes on to the build after, which keeps it again.
        let third = MemoryOutput(over: second)
        #expect(try third.keep("site/a/index.html", if: .inputs("inputs-a")))
        // The record of the build before last is not the last build's: it wrote none.
        #expect(third.previousFile(".locker-notes") == nil)
    }

    /// A build writes as it goes; one that starts again (a guide's outline read wrong) forgets
    /// what it wrote and kept, in memory as in a folder, first built or over a previous build.
    @Test func aRestartForgetsWhatWasWrittenAndKept() throws {
        let memory = MemoryOutput(over: nil)
        try memory.write(OutputFile(path: "a", data: Data("A".utf8)))
        memory.restart()
        try memory.write(OutputFile(path: "b", data: Data("B".utf8)))
        #expect(memory.files.map(\.path) == ["b"])

        let output = PageInputsTests.folder()
        defer { removeOutput(output) }
        for _ in 0..<2 {
            let transaction = try OutputWriter.begin(replacing: output)
            try transaction.write(OutputFile(path: "site/a/index.html", data: Data("A".utf8)))
            _ = try transaction.keep("b", if: .bytes(sha256: ContentHash.sha256Hex(Data("B".utf8))))
            transaction.restart()
            try transaction.write(OutputFile(path: "b", data: Data("B".utf8)))
            try transaction.commit()
            let names = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") }
            #expect(names == ["b"])
        }
    }

    @Test func anOutputOverNothingRecordsAndOneForATestDoesNot() throws {
        #expect(MemoryOutput(over: nil).recordsInputs)
        let plain = MemoryOutput()
        #expect(!plain.recordsInputs)
        #expect(try !plain.keep("a", if: .inputs("inputs-a")))
        #expect(plain.kept.isEmpty)
    }

    /// A failed build leaves the last good output to the next: the next keeps from it, not from
    /// the failed one.
    @Test func aFailedBuildLeavesTheLastGoodOutputToTheNext() throws {
        let vault = try TestVault(["a.md": "# A\n\nText.\n", "b.md": "# B\n\nMore.\n"])
        defer { vault.remove() }
        let builds = MemoryBuilds()
        let compiler = Compiler(vault: vault.root, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        let (first, firstOutput) = try builds.build(compiler)
        #expect(!first.failed && firstOutput.kept.isEmpty)
        try vault.write("b.md", Data("---\nid: [\n---\n# B\n".utf8))
        let (failed, failedOutput) = try builds.build(compiler)
        #expect(failed.failed && failedOutput.files.isEmpty)
        try vault.write("b.md", Data("# B\n\nMore.\n".utf8))
        let (again, output) = try builds.build(compiler)
        #expect(again.keptGuides == ["a", "b"])
        #expect(output.kept.contains("site/guides/a/index.html"))
    }

    /// The last good output lets the build before it go: a server holds one build, not a chain.
    @Test func theLastGoodOutputDoesNotHoldTheBuildBeforeIt() throws {
        let vault = try TestVault(["a.md": "# A\n\nText.\n", "b.md": "# B\n\nMore.\n"])
        defer { vault.remove() }
        let builds = MemoryBuilds()
        let compiler = Compiler(vault: vault.root, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        _ = try builds.build(compiler)
        try vault.write("a.md", Data("# A\n\nText, edited.\n".utf8))
        let (second, output) = try builds.build(compiler)
        #expect(second.keptGuides == ["b"])
        #expect(output.previousFile(NoteRecord.fileName) == nil)
        #expect(output.previousFile("site/guides/b/index.html") == nil)
    }

    /// A guide saved again unchanged is kept, and a checklist, which is always built, is the only
    /// document built again.
    @Test func anUnchangedGuideIsKeptAndOnlyChecklistsAreBuiltAgain() throws {
        let vault = try TestVault([
            "a.md": "# A\n\nText.\n", "list.md": "---\ntype: checklist\n---\n\n## Deck\n\n- [ ] Vests\n",
        ])
        defer { vault.remove() }
        let builds = MemoryBuilds()
        let compiler = Compiler(vault: vault.root, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(try builds.build(compiler).0.builtDocuments == 2)
        try vault.write("a.md", Data("# A\n\nText.\n".utf8))
        let (again, _) = try builds.build(compiler)
        #expect(again.keptGuides == ["a"])
        #expect(again.builtDocuments == 1)
    }

    /// Trusting settled stamps, a build takes the stamps its fingerprint took, as `serve` does: a
    /// note saved between the two is kept unread by its earlier stamp, and the next build sees
    /// the save.
    @Test func aNoteWhoseStampIsUnchangedIsNotReadAgain() throws {
        let vault = try TestVault(["a.md": "# A\n\nText.\n", "b.md": "# B\n\nMore.\n"])
        defer { vault.remove() }
        let builds = MemoryBuilds()
        var compiler = Compiler(vault: vault.root, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        compiler.settlingTime = -1
        _ = try builds.build(compiler)
        let fingerprint = BuildFingerprint(compiler: compiler, settings: [])
        try vault.write("b.md", Data("# B\n\nMore, edited.\n".utf8))
        let (unread, _) = try builds.build(compiler, taking: fingerprint)
        #expect(unread.keptGuides == ["a", "b"])
        let (next, output) = try builds.build(compiler)
        #expect(next.keptGuides == ["a"])
        let page = try #require(output.files.first { $0.path == "site/guides/b/index.html" })
        #expect(String(decoding: page.data, as: UTF8.self).contains("More, edited."))
    }
}
