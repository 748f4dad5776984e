import Foundation
import LockerTestSupport
import Testing

@testable import LockerCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct VaultScannerTests {
    /// What a fingerprint hashes: each file with its stamp, a link to a file with its own and its
    /// target's, hidden files, the skipped folder and links to folders left out; and the stamps
    /// of the regular files, by absolute path, for the build that follows.
    /// The folders of each level are read side by side; the walk still lists the vault as one
    /// walk down its folders would, the same way every time: the vault first, each folder after
    /// the folder holding it, and the files in the order of their paths' bytes, which the build
    /// lists them in without sorting them again.
    @Test func theWalkListsFoldersInOneOrderWhateverReadThemFirst() throws {
        // Two folders named by one text, composed and decomposed: equal strings, two folders.
        let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        // Files beside a folder of a name they begin with: `a.md` before `a/…` (`.` before `/`),
        // `a0.md` after it (`0` after `/`), and so on in `a` itself.
        let paths = [
            "7.md", "a.md", "a0.md", "a/3.md", "a/b.md", "a/c.md", "a/b/2.md", "a/b/c/1.md", "a/b/c/8.md", "d/5.md",
            "d/e/4.md", "d/g/9.md", "f/6.md", "f/h/i/j/10.md", composed + "/11.md", decomposed + "/12.md",
        ]
        let vault = try TestVault(Dictionary(uniqueKeysWithValues: paths.map { ($0, "x") }))
        defer { vault.remove() }
        let root = vault.root.standardizedFileURL.path
        let walks = (0..<5).map { _ in VaultScanner.walk(root: vault.root, skipping: []) }
        for walk in walks.dropFirst() {
            #expect(walk.record == walks[0].record)
            #expect(walk.folders == walks[0].folders)
            #expect(walk.entries.map(\.relative) == walks[0].entries.map(\.relative))
        }
        let walk = walks[0]
        // Compared as bytes: `==` on strings would take either folder for the other.
        let bytes = { (strings: [String]) in
            strings.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        }
        #expect(bytes(walk.entries.map(\.relative)) == bytes(paths))
        let folders = walk.folders.map { $0 == root ? "" : String($0.utf8.dropFirst(root.utf8.count + 1)) ?? "" }
        let expectedFolders = [
            "", "a", "a/b", "a/b/c", "d", "d/e", "d/g", "f", "f/h", "f/h/i", "f/h/i/j", composed, decomposed,
        ]
        #expect(bytes(folders) == bytes(expectedFolders))
        #expect(folders.first == "")
        let folderBytes = folders.map { Array($0.utf8) }
        for (place, folder) in folders.enumerated() where !folder.isEmpty {
            let parent = Array(VaultPath.folder(of: folder).utf8)
            #expect(folderBytes.firstIndex(of: parent).map { $0 < place } == true, "\(folder) after its folder")
        }
        // The files come in the order of their paths' bytes.
        #expect(walk.entries.map { Array($0.relative.utf8) } == bytes(paths))
        // The listing a build takes from the walk is a scan's: both folders' notes, once each.
        let scanner = VaultScanner(root: vault.root, config: VaultConfig(), skipping: [])
        let listed = try #require(scanner.listing(of: walk)).notes.map(\.path)
        #expect(bytes(listed) == bytes(try scanner.scan().notes.map(\.path)))
        #expect(listed.count == paths.count)
    }

    @Test func theWalkStampsFilesAndLinksToFiles() throws {
        let vault = try TestVault(["a.md": "one", "guides/b.md": "two", ".hidden.md": "", "out/site.html": ""])
        defer { vault.remove() }
        let root = vault.root.standardizedFileURL.path
        try FileManager.default.createSymbolicLink(atPath: root + "/link.md", withDestinationPath: "a.md")
        try FileManager.default.createSymbolicLink(atPath: root + "/folder-link", withDestinationPath: "guides")
        #expect(mkfifo(root + "/pipe", 0o644) == 0)
        func status(_ path: String, following: Bool = false) -> stat {
            var status = stat()
            _ = following ? stat(root + "/" + path, &status) : lstat(root + "/" + path, &status)
            return status
        }
        let walk = VaultScanner.walk(root: vault.root, skipping: [root + "/out"])
        // The record read back: each path, its tag and its stamps.
        var read: [String: (tag: UInt8, stamps: [FileStamp])] = [:]
        var rest = walk.record[...]
        func number() -> Int64 {
            defer { rest = rest.dropFirst(8) }
            return rest.prefix(8).reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
        }
        while let end = rest.firstIndex(of: 0), end + 1 < rest.endIndex {
            let path = String(decoding: rest[..<end], as: UTF8.self)
            let tag = rest[end + 1]
            rest = rest[(end + 2)...]
            let stamps = (0..<(tag == 2 ? 2 : 1)).map { _ in
                FileStamp(
                    size: number(), inode: UInt64(bitPattern: number()), modifiedSeconds: number(),
                    modifiedNanoseconds: number(), changedSeconds: number(), changedNanoseconds: number())
            }
            read[path] = (tag, stamps)
        }
        #expect(rest.isEmpty, "the record ends with the last file")
        #expect(read.keys.sorted() == ["a.md", "guides/b.md", "link.md", "pipe"])
        #expect(read["a.md"]?.tag == 1 && read["a.md"]?.stamps == [FileStamp(status("a.md"))])
        #expect(read["guides/b.md"]?.stamps == [FileStamp(status("guides/b.md"))])
        #expect(read["link.md"]?.tag == 2)
        #expect(read["link.md"]?.stamps == [FileStamp(status("link.md")), FileStamp(status("link.md", following: true))])
        #expect(read["pipe"]?.tag == 3 && read["pipe"]?.stamps == [FileStamp(status("pipe"))])
        #expect(walk.files[root + "/a.md"] == FileStamp(status("a.md")))
        #expect(walk.files[root + "/guides/b.md"] == FileStamp(status("guides/b.md")))
        #expect(walk.files[root + "/link.md"] == nil)
        #expect(walk.files[root + "/pipe"] == nil)
    }

    /// What a watcher sees: a note saved (same size), added, renamed or removed changes the
    /// vault's fingerprint; a hidden file or the skipped folder does not.
    @Test func theFingerprintFollowsTheVaultsFilesOnly() throws {
        let vault = try TestVault(["a.md": "one", "guides/b.md": "two", "out/site.html": ""])
        defer { vault.remove() }
        let root = vault.root.standardizedFileURL.path
        let out = [URL(fileURLWithPath: root + "/out")]
        var seen = [BuildFingerprint.files(in: vault.root, skipping: out).hex]
        func expectChange(_ what: String, _ change: () throws -> Void, changes: Bool = true) throws {
            try change()
            let now = BuildFingerprint.files(in: vault.root, skipping: out).hex
            #expect((now != seen.last) == changes, "\(what)")
            seen.append(now)
        }
        try expectChange("hidden file", { try vault.write(".obsidian/workspace.json", Data("{}".utf8)) }, changes: false)
        try expectChange("output", { try vault.write("out/site.html", Data("new".utf8)) }, changes: false)
        try expectChange("saved, same size") {
            Thread.sleep(forTimeInterval: 0.01)
            try vault.write("a.md", Data("ONE".utf8))
        }
        try expectChange("added") { try vault.write("guides/c.md", Data("three".utf8)) }
        try expectChange("renamed") { try FileManager.default.moveItem(atPath: root + "/guides/c.md", toPath: root + "/guides/d.md") }
        try expectChange("removed") { try FileManager.default.removeItem(atPath: root + "/guides/d.md") }
        #expect(seen.last == seen[3], "the vault as it was before the note was added")
    }

    /// What a scan lists and skips: hidden files and folders, excluded folders, the output folder,
    /// links that leave the vault or lead to a folder, and anything but regular files.
    @Test func listsNotesAndAssetsAndSkipsWhatIsNotContent() throws {
        let vault = try TestVault(
            [
                "a.md": "", "guides/deep/b.md": "", "guides/photo.png": "", ".hidden.md": "",
                ".obsidian/workspace.md": "", "drafts/c.md": "", "build/site/index.md": "",
                // Decomposed "й" in the name: listed in NFC, read from the name on disk.
                "guides/и\u{306}.md": "",
                // In an excluded folder, though its name starts with a combining mark.
                "drafts/\u{301}x.md": "",
            ], config: "exclude: [drafts]\n")
        let outside = try TestVault(["secret.md": ""])
        defer {
            vault.remove()
            outside.remove()
        }
        let fileManager = FileManager.default
        try fileManager.createSymbolicLink(
            at: vault.root.appendingPathComponent("linked.md"),
            withDestinationURL: vault.root.appendingPathComponent("a.md"))
        try fileManager.createSymbolicLink(
            at: vault.root.appendingPathComponent("folder-link"),
            withDestinationURL: vault.root.appendingPathComponent("guides"))
        try fileManager.createSymbolicLink(
            at: vault.root.appendingPathComponent("secret.md"),
            withDestinationURL: outside.root.appendingPathComponent("secret.md"))
        // A link to a folder outside the vault (warned about), and one to nothing there (passed
        // over: it leads nowhere).
        try fileManager.createSymbolicLink(
            at: vault.root.appendingPathComponent("shared"), withDestinationURL: outside.root)
        try fileManager.createSymbolicLink(
            at: vault.root.appendingPathComponent("gone.md"),
            withDestinationURL: outside.root.appendingPathComponent("gone.md"))
        #expect(mkfifo(vault.root.appendingPathComponent("pipe.md").path, 0o644) == 0)

        let scanner = VaultScanner(
            root: vault.root, config: VaultConfig.parse("exclude: [drafts]\n").0,
            skipping: [vault.root.appendingPathComponent("build").standardizedFileURL.path])
        // A build that took the fingerprint's walk lists the same files from it.
        let walk = VaultScanner.walk(root: vault.root, skipping: Set(scanner.skipping))
        let listings = [try scanner.scan(), try #require(scanner.listing(of: walk))]
        for listing in listings {
            #expect(listing.notes.map(\.path) == ["a.md", "guides/deep/b.md", "guides/й.md", "linked.md"])
            #expect(listing.assets.map(\.path) == ["guides/photo.png"])
            #expect(listing.diagnostics.map(\.file).sorted() == ["secret.md", "shared"])
            #expect(listing.diagnostics.map(\.code) == [.fileOutsideVault, .fileOutsideVault])
            let decomposed = try #require(listing.notes.first { $0.path == "guides/й.md" })
            #expect(fileManager.fileExists(atPath: decomposed.absolutePath), "the file is read from its name on disk")
            // The same key the fingerprint's walk gives its stamp, so a build takes that stamp.
            #expect(walk.files[decomposed.absolutePath] != nil)
        }
        #expect(listings[0].notes == listings[1].notes && listings[0].assets == listings[1].assets)
        // The walk's listing carries each regular file's stamp, which the build takes rather than
        // a `stat` of its own; a link's, and every file's from a scan, is looked up when read.
        for file in listings[1].notes + listings[1].assets {
            var status = stat()
            #expect(lstat(file.absolutePath, &status) == 0)
            let isLink = status.st_mode & S_IFMT == S_IFLNK
            #expect(file.stamp == (isLink ? nil : FileStamp(status)), "\(file.path)")
        }
        #expect(listings[1].notes.contains { $0.stamp == nil } && listings[1].notes.contains { $0.stamp != nil })
        #expect(listings[0].notes.allSatisfy { $0.stamp == nil })
        let warnings = listings.map { $0.diagnostics.sorted(by: Diagnostic.ordered) }
        #expect(warnings[0] == warnings[1])
        // A walk that did not leave out the same folders is not taken.
        #expect(scanner.listing(of: VaultScanner.walk(root: vault.root, skipping: [])) == nil)
    }

    /// ``FileStamp/hasContentText(_:)`` answers as comparing ``FileStamp/contentText`` would, for
    /// the extremes of every field, negative times, and 2,000 random stamps against their own text
    /// and a neighbour's.
    @Test func aStampKnowsItsContentTextWithoutWritingIt() {
        var random = SplitMix64(seed: 11)
        var stamps = [
            FileStamp(size: 0, inode: 0, modifiedSeconds: 0, modifiedNanoseconds: 0, changedSeconds: 0, changedNanoseconds: 0),
            FileStamp(
                size: .max, inode: .max, modifiedSeconds: .max, modifiedNanoseconds: 999_999_999, changedSeconds: 1,
                changedNanoseconds: 2),
            FileStamp(
                size: .min, inode: 1, modifiedSeconds: .min, modifiedNanoseconds: -1, changedSeconds: 0,
                changedNanoseconds: 0),
        ]
        for _ in 0..<2_000 {
            stamps.append(
                FileStamp(
                    size: Int64.random(in: -5...(1 << 40), using: &random), inode: UInt64.random(in: 0...UInt64.max, using: &random),
                    modifiedSeconds: Int64.random(in: -(1 << 33)...(1 << 33), using: &random),
                    modifiedNanoseconds: Int64.random(in: 0..<1_000_000_000, using: &random), changedSeconds: 0,
                    changedNanoseconds: 0))
        }
        for (index, stamp) in stamps.enumerated() {
            #expect(stamp.hasContentText(stamp.contentText), "\(stamp.contentText)")
            let other = stamps[(index + 1) % stamps.count]
            #expect(stamp.hasContentText(other.contentText) == (stamp.contentText == other.contentText))
            #expect(!stamp.hasContentText(stamp.contentText + "0") && !stamp.hasContentText(String(stamp.contentText.dropLast())))
            #expect(!stamp.hasContentText(""))
        }
    }

    @Test func aMissingVaultIsAnError() throws {
        let scanner = VaultScanner(
            root: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)"), config: VaultConfig())
        #expect(throws: LockerError.self) { try scanner.scan() }
    }
}
