import Foundation
import LockerTestSupport
import Testing

@testable import LockerCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the last walk found in each folder, taken by the next walk while the folder's stamp is
/// the same (``FolderCache``).
@Suite struct FolderCacheTests {
    /// A vault with nested folders, a hidden folder and file, and two folders named by one text,
    /// composed and decomposed.
    static func vault() throws -> TestVault {
        try TestVault([
            "a.md": "x", "guides/b.md": "x", "guides/c.md": "x", "guides/deep/d.md": "x", "decks/e.md": "x",
            ".obsidian/app.json": "{}", "guides/.hidden.md": "x", "caf\u{E9}/f.md": "x", "cafe\u{301}/g.md": "x",
        ])
    }

    /// Sets the modification time of the vault's folder and every folder in it to a day ago: a
    /// change after it gives each a time of its own, however coarse the file system's clock.
    static func age(_ vault: TestVault) throws {
        let root = vault.root.standardizedFileURL.path
        var folders = [root]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory),
                isDirectory.boolValue
            {
                folders.append(root + "/" + path)
            }
        }
        let dayAgo = Date().addingTimeInterval(-86_400)
        for folder in folders {
            try FileManager.default.setAttributes([.modificationDate: dayAgo], ofItemAtPath: folder)
        }
    }

    /// The cache of a walk of `vault` that takes every folder for settled.
    static func settledCache(of vault: TestVault) -> FolderCache? {
        VaultScanner.walk(root: vault.root, skipping: [], settlingTime: -10).folderCache
    }

    /// A new empty folder for an output, removed by the caller.
    static func outputFolder() throws -> URL {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-folders-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        return output
    }

    /// A walk's files, as bytes (two names of one text are two files).
    static func files(_ walk: VaultWalk) -> [[UInt8]] { walk.entries.map { Array($0.relative.utf8) } }

    @Test func aCacheReadsBackWhatItWrote() throws {
        let vault = try Self.vault()
        defer { vault.remove() }
        try Self.age(vault)
        // Every folder settled: the walk keeps each.
        let walk = VaultScanner.walk(root: vault.root, skipping: [], settlingTime: -10)
        let cache = try #require(walk.folderCache)
        let keys = Set(cache.folders.keys.map { String(decoding: $0, as: UTF8.self) })
        #expect(cache.folders.count == 6)
        #expect(keys.isSuperset(of: ["", "guides", "guides/deep", "decks"]))
        #expect(cache.folders[Array("guides".utf8)]?.files == ["b.md", "c.md"], "hidden files left out")
        #expect(cache.folders[Array("guides".utf8)]?.folders == ["deep"])
        #expect(cache.folders[[]]?.folders.contains(".obsidian") == false)
        #expect(FolderCache(bytes: cache.encoded) == cache)
        // The same bytes every time: folders in the order of their paths' bytes.
        #expect(cache.encoded == FolderCache(bytes: cache.encoded)?.encoded)
    }

    @Test func aDamagedCacheIsNotRead() throws {
        let vault = try Self.vault()
        defer { vault.remove() }
        try Self.age(vault)
        let bytes = try #require(Self.settledCache(of: vault))
            .encoded
        #expect(FolderCache(bytes: bytes) != nil)
        #expect(FolderCache(bytes: []) == nil)
        // Cut short anywhere, or any byte changed (a name, a stamp, the checksum): not read.
        for length in stride(from: 0, to: bytes.count, by: 7) {
            #expect(FolderCache(bytes: Array(bytes[..<length])) == nil, "cut at \(length)")
        }
        for place in stride(from: 0, to: bytes.count, by: 5) {
            var damaged = bytes
            damaged[place] ^= 0x04
            #expect(FolderCache(bytes: damaged) == nil, "byte \(place) changed")
        }
    }

    /// The walk takes an unchanged folder's entries from the cache (here, one it was given with a
    /// file left out, to tell), and reads again every folder whose stamp changed: a file added,
    /// removed or renamed, a folder added or removed. Its files are then a fresh walk's.
    @Test func theWalkTakesUnchangedFoldersFromTheCacheAndReadsChangedOnes() throws {
        let vault = try Self.vault()
        defer { vault.remove() }
        try Self.age(vault)
        let first = VaultScanner.walk(root: vault.root, skipping: [], settlingTime: -10)
        var cache = try #require(first.folderCache)
        #expect(cache.folders.count == 6)

        // Unchanged folders: from the cache, as it holds them.
        var doctored = cache
        doctored.folders[Array("guides".utf8)]?.files = ["b.md"]
        let fromCache = VaultScanner.walk(root: vault.root, skipping: [], cache: doctored)
        #expect(!Self.files(fromCache).contains(Self.c))
        #expect(Self.files(fromCache).count == Self.files(first).count - 1)
        #expect(Self.files(VaultScanner.walk(root: vault.root, skipping: [], cache: cache)) == Self.files(first))

        // Every change to a folder's entries is seen.
        let changes: [(String, () throws -> Void)] = [
            ("a file added", { try vault.write("guides/new.md", Data("x".utf8)) }),
            (
                "a file removed",
                { try FileManager.default.removeItem(at: vault.root.appendingPathComponent("decks/e.md")) }
            ),
            (
                "a file renamed",
                {
                    try FileManager.default.moveItem(
                        at: vault.root.appendingPathComponent("guides/c.md"),
                        to: vault.root.appendingPathComponent("guides/c2.md"))
                }
            ),
            ("a folder added", { try vault.write("guides/deep/er/h.md", Data("x".utf8)) }),
            (
                "a folder removed",
                { try FileManager.default.removeItem(at: vault.root.appendingPathComponent("cafe\u{301}")) }
            ),
            ("a file in the vault's folder", { try vault.write("z.md", Data("x".utf8)) }),
        ]
        for (change, make) in changes {
            try make()
            let cached = VaultScanner.walk(root: vault.root, skipping: [], cache: cache, settlingTime: -10)
            let fresh = VaultScanner.walk(root: vault.root, skipping: [])
            #expect(Self.files(cached) == Self.files(fresh), "\(change)")
            // The fingerprint's bytes, compared without printing them.
            let sameRecord = cached.record == fresh.record
            #expect(sameRecord, "\(change)")
            #expect(cached.folders == fresh.folders, "\(change)")
            try Self.age(vault)
            cache = try #require(Self.settledCache(of: vault))
        }
        // The output folder is skipped whether its folder's entries come from the cache or not.
        let skipped = vault.root.standardizedFileURL.path + "/guides"
        let cachedSkipping = VaultScanner.walk(root: vault.root, skipping: [skipped], cache: cache)
        #expect(Self.files(cachedSkipping) == Self.files(VaultScanner.walk(root: vault.root, skipping: [skipped])))
        #expect(!Self.files(cachedSkipping).contains { $0.starts(with: Array("guides/".utf8)) })
    }

    /// Only folders that last changed before the settling time are kept: a second change within
    /// the file system's clock tick could leave the stamp of the first.
    @Test func aFolderJustChangedIsNotKept() throws {
        let vault = try Self.vault()
        defer { vault.remove() }
        try Self.age(vault)
        // Changing a folder's times changed its change time, within the last hour.
        #expect(VaultScanner.walk(root: vault.root, skipping: [], settlingTime: 3600).folderCache?.folders == [:])
        #expect(Self.settledCache(of: vault)?.folders.count == 6)
    }

    /// A cache made for another vault is not taken, even where the folders' stamps match.
    @Test func aCacheOfAnotherVaultIsNotTaken() throws {
        let vault = try Self.vault()
        defer { vault.remove() }
        try Self.age(vault)
        var cache = try #require(Self.settledCache(of: vault))
        cache.folders[Array("guides".utf8)]?.files = ["b.md"]
        #expect(!Self.files(VaultScanner.walk(root: vault.root, skipping: [], cache: cache)).contains(Self.c))
        cache.vault += "-elsewhere"
        #expect(Self.files(VaultScanner.walk(root: vault.root, skipping: [], cache: cache)).contains(Self.c))
    }

    static let c = Array("guides/c.md".utf8)

    /// A name no folder can hold (a path, a hidden or empty name, a zero byte), as a forged
    /// cache could give to lead the walk out of the vault: the whole cache is refused.
    @Test func aCacheWithNamesNoFolderHoldsIsNotRead() throws {
        let stamp = FileStamp(
            size: 1, inode: 2, modifiedSeconds: 3, modifiedNanoseconds: 4, changedSeconds: 5, changedNanoseconds: 6)
        func cache(path: String = "guides", files: [String] = ["a.md"], folders: [String] = []) -> FolderCache {
            FolderCache(vault: "/v", folders: [Array(path.utf8): .init(stamp: stamp, files: files, folders: folders)])
        }
        #expect(FolderCache(bytes: cache().encoded) == cache())
        #expect(FolderCache(bytes: cache(path: "").encoded) != nil, "the vault's own folder")
        #expect(FolderCache(bytes: cache(path: "guides/deep", folders: ["deeper"]).encoded) != nil)
        for name in ["../up.md", "a/b.md", "", ".hidden.md", "..", "a\u{0}b.md"] {
            #expect(FolderCache(bytes: cache(files: [name]).encoded) == nil, "file \(name.debugDescription)")
            #expect(FolderCache(bytes: cache(folders: [name]).encoded) == nil, "folder \(name.debugDescription)")
        }
        for path in ["../up", "/abs", "guides/", "a//b", ".obsidian", "guides/.."] {
            #expect(FolderCache(bytes: cache(path: path).encoded) == nil, "path \(path.debugDescription)")
        }
    }

    /// Something else than a regular file in the cache's place (a FIFO, which `open` would wait
    /// on for a writer; a link) is not read.
    @Test func onlyARegularFileIsReadAsTheCache() throws {
        let vault = try Self.vault()
        defer { vault.remove() }
        try Self.age(vault)
        let output = try Self.outputFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let cache = try #require(Self.settledCache(of: vault))
        let real = output.appendingPathComponent("real")
        try Data(cache.encoded).write(to: real)
        let path = output.appendingPathComponent(FolderCache.fileName).path
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: real.path)
        #expect(FolderCache(output: output) == nil, "a link")
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o644) == 0)
        #expect(FolderCache(output: output) == nil, "a FIFO")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(at: real, to: URL(fileURLWithPath: path))
        #expect(FolderCache(output: output) == cache)
    }

    #if os(Linux)
        /// The file system's type, from `/proc/self/mountinfo` by the device: the temporary
        /// folder's is one the cache trusts here, `/proc` is not.
        @Test func theFileSystemIsKnownByItsDevice() throws {
            func device(_ path: String) throws -> UInt64 {
                var status = stat()
                try #require(stat(path, &status) == 0)
                return UInt64(truncatingIfNeeded: status.st_dev)
            }
            let temporary = FileManager.default.temporaryDirectory.path
            let type = try #require(FolderCache.fileSystemType(device: try device(temporary)))
            #expect(FolderCache.trustedTypes.contains(type), "\(type)")
            #expect(FolderCache.isTrusted(temporary, device: try device(temporary)))
            #expect(FolderCache.fileSystemType(device: try device("/proc")) == "proc")
            #expect(!FolderCache.isTrusted("/proc", device: try device("/proc")))
        }
    #endif

    /// `locker build`'s path: the fingerprint reads the cache the last build left in its output,
    /// unless `LOCKER_FOLDER_CACHE=off`.
    @Test func theFingerprintTakesTheOutputsCache() throws {
        let vault = try Self.vault()
        defer { vault.remove() }
        try Self.age(vault)
        let output = try Self.outputFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        var cache = try #require(Self.settledCache(of: vault))
        cache.folders[Array("guides".utf8)]?.files = ["b.md"]
        try Data(cache.encoded).write(to: output.appendingPathComponent(FolderCache.fileName))
        func walked(_ environment: [String: String]) throws -> [[UInt8]] {
            let compiler = Compiler(vault: vault.root, skipping: [output], environment: environment)
            return Self.files(try #require(BuildFingerprint(compiler: compiler, settings: [], output: output).walk))
        }
        #expect(try !walked([:]).contains(Self.c))
        #expect(try walked(["LOCKER_FOLDER_CACHE": "off"]).contains(Self.c))
    }
}
