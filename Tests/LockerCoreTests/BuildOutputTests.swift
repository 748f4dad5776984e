import Foundation
import LockerKit
import LockerTestSupport
import Testing

@testable import LockerCore

@Suite struct BuildOutputTests {
    static let fixture = GoldenTests.fixtures.appendingPathComponent("syntax/vault")

    private func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("locker-out-\(UUID().uuidString)")
    }

    @Test func buildsAreByteIdentical() throws {
        let compiler = Compiler(vault: Self.fixture, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        let first = try compiler.compile()
        // The second into memory that records what each file was made from, as `serve` builds.
        var (second, output) = try MemoryBuilds().build(
            Compiler(vault: Self.fixture, environment: ["SOURCE_DATE_EPOCH": "1700000000"]))
        second.files = output.files
        #expect(!first.files.isEmpty)
        #expect(second.diagnostics == first.diagnostics)
        #expect(
            Self.differences(first.files.map { ($0.path, $0.data) }, second.files.map { ($0.path, $0.data) }) == [])

        let outA = temporaryFolder()
        let outB = temporaryFolder()
        defer {
            removeOutput(outA)
            removeOutput(outB)
        }
        try OutputWriter.replace(outA, with: first.files)
        try OutputWriter.replace(outB, with: second.files)
        // Every file but the marker, which records each file's inode and modification time.
        var treeA = try GoldenTests.readTree(outA)
        var treeB = try GoldenTests.readTree(outB)
        #expect(treeA.removeValue(forKey: OutputWriter.marker) != nil, "\(treeA.keys.sorted())")
        #expect(treeB.removeValue(forKey: OutputWriter.marker) != nil, "\(treeB.keys.sorted())")
        #expect(Self.differences(Array(treeA), Array(treeB)) == [])
    }

    /// The paths whose bytes differ between two sets of files, each with its sizes and the first
    /// differing byte: what a failure needs to say to be looked into.
    static func differences(_ a: [(String, Data)], _ b: [(String, Data)]) -> [String] {
        let left = Dictionary(a, uniquingKeysWith: { first, _ in first })
        let right = Dictionary(b, uniquingKeysWith: { first, _ in first })
        var found: [String] = []
        if a.count != left.count || b.count != right.count { found.append("a path written twice") }
        for path in Set(left.keys).union(right.keys).sorted() where left[path] != right[path] {
            let x = left[path].map(Array.init) ?? []
            let y = right[path].map(Array.init) ?? []
            let at = (0..<min(x.count, y.count)).first { x[$0] != y[$0] } ?? min(x.count, y.count)
            let context = { (bytes: [UInt8]) in
                String(decoding: bytes[max(0, at - 80)..<min(bytes.count, at + 80)], as: UTF8.self)
            }
            found.append(
                "\(path): \(left[path]?.count ?? -1) and \(right[path]?.count ?? -1) bytes, first difference at \(at): «\(context(x))» «\(context(y))»"
            )
        }
        return found
    }

    @Test func generatedAtComesFromSourceDateEpochNeverTheClock() throws {
        let compilation = try Compiler(vault: Self.fixture, environment: ["SOURCE_DATE_EPOCH": "1700000000"]).compile()
        #expect(compilation.manifest?.generatedAt == "2023-11-14T22:13:20Z")
    }

    /// The content date is written as `ISO8601DateFormatter` writes it, whatever the seconds:
    /// the epoch, before it, a leap day, the first second of 1600 and the last of 9999 (and past
    /// them, where the formatter writes it, in the Julian calendar before 1582), and 2,000
    /// random seconds.
    @Test func theContentDateIsWrittenAsTheFormatterWritesIt() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var random = SplitMix64(seed: 7)
        let extremes = [
            0, -1, 1, 1_700_000_000, 951_782_400, 951_868_799, 4_107_542_400, 253_402_300_799, 253_402_300_800,
            -11_676_096_000, -11_676_096_001, -86_400, -86_401,
        ]
        let randomSeconds = (0..<2000).map { _ in Int.random(in: -30_000_000_000...260_000_000_000, using: &random) }
        for seconds in extremes + randomSeconds {
            #expect(
                Compiler.internetDateTime(seconds)
                    == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))), "\(seconds)")
        }
    }

    @Test func manifestListsEveryFileWithItsHashAndETag() throws {
        let compilation = try Compiler(vault: Self.fixture, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
        let manifest = try #require(compilation.manifest)
        #expect(manifest.schemaVersion == "1.4")
        #expect(manifest.locales == ["en", "ru"])
        let byPath = Dictionary(uniqueKeysWithValues: compilation.files.map { ($0.path, $0.data) })
        for entry in manifest.files {
            let data = try #require(byPath["bundles/v1/" + entry.path], "\(entry.path) is listed but not written")
            #expect(data.count == entry.size)
            #expect(Array(SHAHelper.sha256(data)) == Array(entry.sha256))
            #expect(entry.etag == "\"sha256-\(entry.sha256)\"")
            if entry.kind != "asset" {
                #expect(entry.path.contains(String(entry.sha256.prefix(16))), "\(entry.path) is not named by its hash")
            }
        }
        let kinds = Set(manifest.files.map(\.kind))
        #expect(kinds == ["asset", "guide", "index"])
        // One index per kind and locale, for every kind, even with no documents of it.
        let indexes = manifest.files.filter { $0.kind == "index" }.map { "\($0.lists ?? "")/\($0.locale ?? "")" }
        #expect(indexes == ["checklist/en", "checklist/ru", "deck/en", "deck/ru", "guide/en", "guide/ru"])
        // The manifest decodes with the reader's types.
        let manifestData = try #require(byPath["bundles/v1/manifest.json"])
        #expect(try JSONDecoder().decode(Manifest.self, from: manifestData) == manifest)
    }

    @Test func editingOneNoteChangesOnlyItsFileItsIndexAndTheManifest() throws {
        let vault = try TestVault([
            "a.md": "---\ntitle: A\n---\nFirst.", "b.md": "---\ntitle: B\n---\nSecond.", "c.md": "Third.",
        ])
        defer { vault.remove() }
        let before = try vault.compile()
        try vault.write("a.md", Data("---\ntitle: A\n---\nFirst, edited.".utf8))
        let after = try vault.compile()
        let oldPaths = Set(before.files.map(\.path))
        let newPaths = Set(after.files.map(\.path))
        let added = newPaths.subtracting(oldPaths)
        let removed = oldPaths.subtracting(newPaths)
        #expect(added.count == 1 && removed.count == 1, "only a.md's file is renamed: \(added) \(removed)")
        #expect(added.allSatisfy { $0.hasPrefix("bundles/v1/guide/en/") && !$0.contains("index") })
        let changedInPlace = after.files.filter { file in
            before.files.contains { $0.path == file.path && $0.data != file.data }
        }
        #expect(
            changedInPlace.map(\.path) == ["bundles/v1/manifest.json", "site/guides/a/index.html"],
            "the index is unchanged: a body edit touches the manifest and the note's own page only")
    }

    /// Bundle files are written on every core; when several cannot be written, the build reports
    /// the first of them in the bundle's order, whichever core met its error first.
    @Test func aBundleThatCannotBeWrittenReportsItsFirstFile() throws {
        let vault = try TestVault(
            Dictionary(uniqueKeysWithValues: (0..<300).map { (String(format: "n%03d.md", $0), "Note \($0).") }))
        defer { vault.remove() }
        let compiler = Compiler(vault: vault.root, environment: ["SOURCE_DATE_EPOCH": "0"])
        for _ in 0..<5 {
            let error = #expect(throws: LockerError.self) { try compiler.compile(into: RefusingSink()) }
            #expect(error.map { "\($0)" } == LockerError.io("cannot write n000").description)
        }
    }

    @Test func failingBuildLeavesThePreviousOutputUntouched() throws {
        let vault = try TestVault(["a.md": "Good note."])
        let out = temporaryFolder()
        defer {
            vault.remove()
            removeOutput(out)
        }
        let good = try vault.compile()
        try OutputWriter.replace(out, with: good.files)
        let before = try GoldenTests.readTree(out)
        try #require(!before.isEmpty, "the good build wrote nothing")

        try vault.write("b.md", Data("---\nid: [broken\n---\n".utf8))
        let bad = try vault.compile()
        #expect(bad.failed)
        #expect(bad.files.isEmpty, "a failing compilation lays out nothing to write")
        #expect(try GoldenTests.readTree(out) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path)
            .filter { $0.contains(out.lastPathComponent + ".staging") }
        #expect(leftovers.isEmpty)
    }

    @Test func replacesAPreviousBuildWhole() throws {
        let out = temporaryFolder()
        defer { removeOutput(out) }
        try OutputWriter.replace(out, with: [OutputFile(path: "old.json", data: Data("{}".utf8))])
        try OutputWriter.replace(out, with: [OutputFile(path: "new.json", data: Data("{}".utf8))])
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(files == [OutputWriter.marker, "new.json"])
        #expect(OutputMarker(in: out)?.files.keys.sorted() == ["new.json"])
    }

    @Test func anUnchangedFileIsLinkedFromThePreviousBuildAndEveryOtherWrittenAnew() throws {
        let out = temporaryFolder()
        defer { removeOutput(out) }
        func inode(_ path: String) throws -> Int {
            let attributes = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(path).path)
            return try #require(attributes[.systemFileNumber] as? Int)
        }
        func text(_ path: String) throws -> String {
            try String(contentsOf: out.appendingPathComponent(path), encoding: .utf8)
        }
        try OutputWriter.replace(
            out,
            with: [
                OutputFile(path: "same.json", data: Data("{}".utf8)),
                OutputFile(path: "site/page/index.html", data: Data("old".utf8)),
                OutputFile(path: "edited.txt", data: Data("build".utf8)),
                OutputFile(path: "gone/x.txt", data: Data("x".utf8)),
            ])
        let same = try inode("same.json")
        let page = try inode("site/page/index.html")
        // Edited in place after the build, keeping its size and inode: not the file the build wrote.
        let handle = try FileHandle(forWritingTo: out.appendingPathComponent("edited.txt"))
        Thread.sleep(forTimeInterval: 0.01)
        try handle.write(contentsOf: Data("BUILD".utf8))
        try handle.close()

        try OutputWriter.replace(
            out,
            with: [
                OutputFile(path: "same.json", data: Data("{}".utf8)),
                OutputFile(path: "site/page/index.html", data: Data("new".utf8)),
                OutputFile(path: "edited.txt", data: Data("build".utf8)),
            ])
        #expect(try inode("same.json") == same, "the unchanged file is the previous build's, linked")
        #expect(try inode("site/page/index.html") != page)
        #expect(try text("site/page/index.html") == "new")
        #expect(try text("edited.txt") == "build")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("gone").path))
        // The marker file: a heading, its format, then each file's SHA-256, its size, inode and
        // modification time, the digest of its inputs (none here) and its path.
        let lines = try text(OutputWriter.marker).split(separator: "\n")
        #expect(lines.dropFirst().first == "format 2")
        let marker = lines.dropFirst(2).map { $0.split(separator: " ") }
        #expect(marker.map { $0.count } == [4, 4, 4])
        #expect(marker.map { $0[2] } == ["-", "-", "-"])
        #expect(marker.map { String($0[3]) } == ["edited.txt", "same.json", "site/page/index.html"])
        #expect(marker[1][1] == "2:\(try inode("same.json")):" + String(marker[1][1].split(separator: ":")[2]))
        // It lists the second build's files.
        let listed = try #require(OutputMarker(in: out)).files
        #expect(listed.keys.sorted() == ["edited.txt", "same.json", "site/page/index.html"])
        #expect(
            listed.keys.sorted().map { listed[$0]?.sha256 } == [
                ContentHash.sha256Hex(Data("build".utf8)), ContentHash.sha256Hex(Data("{}".utf8)),
                ContentHash.sha256Hex(Data("new".utf8)),
            ])
        #expect(
            listed["same.json"]?.stamp == FileStamp(path: out.appendingPathComponent("same.json").path)?.contentText)
        let siblings = try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path)
        #expect(
            !siblings.contains {
                $0.hasPrefix("." + out.lastPathComponent + ".") && $0 != OutputLock.file(for: out).lastPathComponent
            },
            "no staging or previous folder is left (the lock file stays)")
    }

    @Test func refusesToReplaceASymbolicLink() throws {
        let target = temporaryFolder()
        let out = temporaryFolder()
        defer {
            removeOutput(out)
            removeOutput(target)
        }
        try OutputWriter.replace(target, with: [OutputFile(path: "a.json", data: Data("{}".utf8))])
        try FileManager.default.createSymbolicLink(at: out, withDestinationURL: target)
        #expect(throws: LockerError.self) {
            try OutputWriter.replace(out, with: [OutputFile(path: "b.json", data: Data("{}".utf8))])
        }
        #expect(FileManager.default.fileExists(atPath: target.appendingPathComponent("a.json").path))
    }

    @Test func identicalImagesAtTwoPathsAreWrittenOnce() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        let vault = try TestVault(["a.md": "![[one.png]] ![[photos/two.png]]\n"])
        defer { vault.remove() }
        try vault.write("one.png", png)
        try vault.write("photos/two.png", png)
        let compilation = try vault.compile()
        #expect(!compilation.failed, "\(compilation.diagnostics.rendered)")
        let paths = compilation.files.map(\.path)
        #expect(paths.count == Set(paths).count, "a path is written twice: \(paths)")
        let out = temporaryFolder()
        defer { removeOutput(out) }
        try OutputWriter.replace(out, with: compilation.files)
    }

    @Test func refusesToReplaceAFolderItDidNotWrite() throws {
        let out = temporaryFolder()
        defer { removeOutput(out) }
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: out.appendingPathComponent("thesis.txt"))
        #expect(throws: LockerError.self) {
            try OutputWriter.replace(out, with: [OutputFile(path: "x.json", data: Data())])
        }
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("thesis.txt").path))
    }

    @Test func headersMakeHashedFilesImmutableAndTheManifestRevalidated() throws {
        let compilation = try Compiler(vault: Self.fixture, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
        let headers = try #require(compilation.files.first { $0.path == "_headers" })
        let text = String(decoding: headers.data, as: UTF8.self)
        #expect(text.contains("/bundles/v1/manifest.json\n  Cache-Control: no-cache\n"))
        #expect(text.contains("/bundles/v1/guide/*\n  Cache-Control: public, max-age=31536000, immutable\n"))
        #expect(text.contains("/bundles/v1/assets/*\n  Cache-Control: public, max-age=31536000, immutable\n"))
        #expect(!text.contains("/bundles/v1/*\n"), "no rule may also match the manifest")
    }

    @Test func anyObsidianVaultBuildsWithoutConfig() throws {
        let vault = try TestVault([
            "Welcome.md": "This is your new *vault*.\n\n[[create a link]]",
            "Daily/2024-11-16.md": "---\ncreated: November 16\n---\n- [ ] water\n",
        ])
        defer { vault.remove() }
        let compilation = try vault.compile()
        #expect(!compilation.failed, "\(compilation.diagnostics.rendered)")
        #expect(compilation.guides.map(\.id) == ["daily/2024-11-16", "welcome"])
        #expect(compilation.guides.first?.extra["created"] == .string("November 16"))
        #expect(compilation.guides.allSatisfy { $0.locale == "en" && $0.type == "document" })
    }

    /// What an app does: find each checklist and deck through the manifest and the indexes, and
    /// decode it with LockerKit's types; it gets back exactly what was built.
    @Test func checklistsAndDecksDecodeFromTheBundleAsBuilt() throws {
        let vault = GoldenTests.fixtures.appendingPathComponent("charter/vault")
        let compilation = try Compiler(vault: vault, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
        let manifest = try #require(compilation.manifest)
        let byPath = Dictionary(uniqueKeysWithValues: compilation.files.map { ($0.path, $0.data) })
        func file(_ entry: Manifest.File) throws -> Data { try #require(byPath["bundles/v1/" + entry.path]) }

        let checklists = try manifest.files.filter { $0.kind == "checklist" }.map {
            try JSONDecoder().decode(Checklist.self, from: file($0))
        }
        let decks = try manifest.files.filter { $0.kind == "deck" }.map {
            try JSONDecoder().decode(Deck.self, from: file($0))
        }
        #expect(Set(checklists) == Set(compilation.checklists))
        #expect(Set(decks) == Set(compilation.decks))
        #expect(checklists.map(\.locale).sorted() == ["en", "ru"])
        #expect(
            Set(decks.map { "\($0.id)/\($0.locale)" }) == [
                "sound-signals/ru", "sound-signals/en", "day-shapes/ru", "day-shapes/en",
            ])

        // Counts are consistent, so "X/Y" needs no walk of the tree.
        for checklist in checklists {
            #expect(checklist.itemCount == checklist.items.count)
            for section in checklist.sections {
                #expect(section.itemCount == section.subsections.reduce(0) { $0 + $1.items.count })
            }
        }
        for deck in decks { #expect(deck.cardCount == deck.cards.count) }

        // The index of each kind and locale lists the document with its counts.
        let index = try #require(
            manifest.files.first { $0.kind == "index" && $0.lists == "checklist" && $0.locale == "en" })
        let entries = try JSONDecoder().decode(ContentIndex.self, from: file(index)).entries
        let english = try #require(checklists.first { $0.locale == "en" })
        #expect(entries.map(\.id) == ["check-in"])
        #expect(entries.first?.itemCount == english.itemCount)
        #expect(entries.first?.checklistType == .checkIn)

        // Item identity is shared by the translations where the IDs match.
        let russian = try #require(checklists.first { $0.locale == "ru" })
        let shared = Set(english.items.map(\.uuid)).intersection(russian.items.map(\.uuid))
        #expect(shared.count == 4, "registration, insurance, life-jackets, windlass")
    }
}

enum SHAHelper {
    static func sha256(_ data: Data) -> String {
        // Recomputed independently of the writer through LockerKit's public API.
        ContentHash.sha256Hex(data)
    }

}

/// A sink that cannot write a guide's bundle file: it throws, naming the guide.
private struct RefusingSink: OutputSink {
    func write(_ file: OutputFile, sha256: String?, inputs: String?) throws {
        guard file.path.hasPrefix("bundles/v1/guide/") else { return }
        let text = String(decoding: file.data, as: UTF8.self)
        let id = text.range(of: #""id":""#).map { text[$0.upperBound...].prefix { $0 != "\"" } } ?? ""
        throw LockerError.io("cannot write \(id)")
    }

    func restart() {}
}
