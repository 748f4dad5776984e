import Foundation
import LockerKit
import Testing

@testable import LockerCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `locker build` into its previous output takes each page whose inputs are unchanged from the
/// previous build (``PageInputs``), and the output is still exactly a clean build's.
@Suite struct PageInputsTests {
    /// Builds the vault into `output` as `locker build` does, through a staging folder swapped in;
    /// returns the compilation and how many files were taken from the previous build.
    /// Builds into `output` over what is there. With `trustingStamps`, the record keeps every
    /// note's stamp at once, rather than two seconds after its last change, so the next build
    /// takes an unchanged note by its stamp without reading it.
    static func build(
        _ vault: TestVault, into output: URL, baseURL: String? = nil, trustingStamps: Bool = false
    ) throws -> (Compilation, Int) {
        let staging = try OutputWriter.begin(replacing: output)
        var compiler = Compiler(vault: vault.root, environment: IncrementalBuildTests.environment, baseURL: baseURL)
        if trustingStamps { compiler.settlingTime = -1 }
        // As `locker build` does: the walk for the fingerprint is the build's listing.
        let compilation = try compiler.compile(
            into: staging, taking: BuildFingerprint(compiler: compiler, settings: []))
        guard !compilation.failed else {
            staging.discard()
            return (compilation, 0)
        }
        try staging.commit()
        return (compilation, staging.reusedCount)
    }

    /// The output's files but the marker and its changes and the records, which name inodes
    /// and times.
    static func tree(_ output: URL) throws -> [(String, Data)] {
        var files = try GoldenTests.readTree(output)
        files[OutputWriter.marker] = nil
        files[NoteRecord.fileName] = nil
        return files.sorted { $0.key < $1.key }
    }

    static func inode(_ url: URL) -> UInt64? {
        var status = stat()
        return stat(url.path, &status) == 0 ? UInt64(status.st_ino) : nil
    }

    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("locker-pages-\(UUID().uuidString)")
    }

    /// Removes a test's vault and output folder.
    static func remove(_ vault: TestVault, _ output: URL) {
        vault.remove()
        removeOutput(output)
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func randomEditsBuiltOverThePreviousOutputGiveTheCleanBuildsFiles(seed: UInt64) throws {
        let vault = try IncrementalBuildTests.baseVault()
        let output = Self.folder()
        defer { Self.remove(vault, output) }
        var editor = VaultEditor(vault: vault, seed: seed)
        // Odd seeds read every note and take the unchanged by content hash; even ones by stamp.
        let trustingStamps = seed % 2 == 0
        let (first, _) = try Self.build(vault, into: output, trustingStamps: trustingStamps)
        #expect(!first.failed, "the base vault builds")
        var reused = 0
        var kept = 0
        for step in 1...20 {
            try editor.randomEdit(step: step)
            let (built, taken) = try Self.build(vault, into: output, trustingStamps: trustingStamps)
            reused += taken
            kept += built.keptGuides.count
            let clean = try Compiler(vault: vault.root, environment: IncrementalBuildTests.environment).compile()
            #expect(built.failed == clean.failed)
            #expect(
                built.diagnostics == clean.diagnostics, "seed \(seed), after: \(editor.log.joined(separator: "; "))")
            guard !clean.failed else { continue }
            let differences = BuildOutputTests.differences(
                try Self.tree(output), clean.files.map { ($0.path, $0.data) })
            #expect(
                differences.isEmpty,
                "seed \(seed), after: \(editor.log.joined(separator: "; "))\n\(differences.prefix(5).joined(separator: "\n"))"
            )
            if !differences.isEmpty { break }
        }
        #expect(reused > 0, "later builds took pages from the previous output")
        #expect(kept > 0, "later builds kept guides from the previous build's record")
    }

    @Test func aPageIsTakenOnlyWhileEverythingItShowsIsUnchanged() throws {
        let vault = try IncrementalBuildTests.smallVault()
        let output = Self.folder()
        defer { Self.remove(vault, output) }
        let page = { (id: String) in output.appendingPathComponent("site/guides/\(id)/index.html") }
        let (_, none) = try Self.build(vault, into: output)
        #expect(none == 0)
        let before = ["a", "b", "c", "d"].map { Self.inode(page($0)) }

        // c's body: c's page is made again; a, b and d and the index (its listing is the same) are taken.
        try vault.write("c.md", Data("# C\n\nAlone, and edited.\n".utf8))
        let (_, taken) = try Self.build(vault, into: output)
        #expect(taken == 4)
        let after = ["a", "b", "c", "d"].map { Self.inode(page($0)) }
        #expect(after[0] == before[0] && after[1] == before[1] && after[3] == before[3])
        #expect(after[2] != before[2])
        #expect(try String(contentsOf: page("c"), encoding: .utf8).contains("Alone, and edited."))

        // a's text: d embeds a, so both are made again.
        try vault.write("a.md", Data("# A\n\n## Alpha\n\nNew text of a.\n".utf8))
        #expect(try Self.build(vault, into: output).1 == 3)
        #expect(try String(contentsOf: page("d"), encoding: .utf8).contains("New text of a."))

        // Everything a page shows besides its document: the address, a template, a new note.
        #expect(try Self.build(vault, into: output, baseURL: "https://sail.example/").1 == 0)
        #expect(try Self.build(vault, into: output, baseURL: "https://sail.example/").1 == 5)
        try vault.write("templates/footer.mustache", Data("<footer>Edited.</footer>\n".utf8))
        #expect(try Self.build(vault, into: output).1 == 0)
        #expect(try Self.build(vault, into: output).1 == 5)
        // A template edited again: the vault's shape is the same, the template is not.
        try vault.write("templates/footer.mustache", Data("<footer>Edited twice.</footer>\n".utf8))
        #expect(try Self.build(vault, into: output).1 == 0)
        #expect(try String(contentsOf: page("a"), encoding: .utf8).contains("Edited twice."))
        try vault.write("e.md", Data("# E\n\nNew.\n".utf8))
        #expect(try Self.build(vault, into: output).1 == 0)
        #expect(try Self.build(vault, into: output).1 == 6)
        let clean = try Compiler(vault: vault.root, environment: IncrementalBuildTests.environment).compile()
        #expect(BuildOutputTests.differences(try Self.tree(output), clean.files.map { ($0.path, $0.data) }) == [])
    }

    @Test func aPageChangedInTheOutputIsRenderedAgain() throws {
        let vault = try IncrementalBuildTests.smallVault()
        let output = Self.folder()
        defer { Self.remove(vault, output) }
        let page = output.appendingPathComponent("site/guides/c/index.html")
        _ = try Self.build(vault, into: output)
        let built = try Data(contentsOf: page)
        try Data("Edited by hand.".utf8).write(to: page)
        #expect(try Self.build(vault, into: output).1 == 4)
        #expect(try Data(contentsOf: page) == built)
    }

    @Test func anAppRenamedOnItsLandingPageMakesEveryPageAgain() throws {
        let vault = try IncrementalBuildTests.baseVault()
        let output = Self.folder()
        defer { Self.remove(vault, output) }
        _ = try Self.build(vault, into: output)
        #expect(try Self.build(vault, into: output).1 > 40)
        // Every page's footer lists the apps by name.
        let path = vault.root.appendingPathComponent("site/pierrunner.md")
        let text = try String(contentsOf: path, encoding: .utf8)
        try vault.write(
            "site/pierrunner.md",
            Data(text.replacingOccurrences(of: "  name: PierRunner\n", with: "  name: PierRunner Pro\n").utf8))
        #expect(try Self.build(vault, into: output).1 == 0)
        let clean = try Compiler(vault: vault.root, environment: IncrementalBuildTests.environment).compile()
        #expect(BuildOutputTests.differences(try Self.tree(output), clean.files.map { ($0.path, $0.data) }) == [])
    }

    /// A page shows an image by a name made of its bytes' hash, which its document's bundle file
    /// holds: a changed image makes the pages that show it again, and only those.
    @Test func aChangedImageMakesThePageThatShowsItAgain() throws {
        let vault = try TestVault(["a.md": "# A\n\n![[boat.png]]\n", "b.md": "# B\n\nNo image.\n"])
        let output = Self.folder()
        defer { Self.remove(vault, output) }
        try vault.write("boat.png", Data([1, 2, 3]))
        _ = try Self.build(vault, into: output)
        #expect(try Self.build(vault, into: output).1 == 3)
        try vault.write("boat.png", Data([4, 5, 6, 7]))
        let (rebuilt, kept) = try Self.build(vault, into: output)
        #expect(kept == 2)
        #expect(rebuilt.keptGuides == ["b"])
        let clean = try Compiler(vault: vault.root, environment: IncrementalBuildTests.environment).compile()
        #expect(BuildOutputTests.differences(try Self.tree(output), clean.files.map { ($0.path, $0.data) }) == [])
    }

    @Test func aMarkerRecordsEachPagesInputs() throws {
        let new = Data("heading\nformat 2\nabc 1:2:3 fed guides/a b/index.html\ndef - - x.json\n".utf8)
        #expect(
            OutputMarker(new).files == [
                "guides/a b/index.html": .init(sha256: "abc", stamp: "1:2:3", inputs: "fed"),
                "x.json": .init(sha256: "def", stamp: nil, inputs: nil),
            ])
    }
}
