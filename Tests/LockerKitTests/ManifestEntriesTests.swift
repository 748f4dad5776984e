import Foundation
import LockerKit
import LockerTestSupport
import Testing

/// ``ManifestEntries`` finds the entries of a manifest a build wrote, and a manifest written
/// reusing them (``Manifest/encodedRun(of:order:reusing:)``) is the manifest written anew, byte
/// for byte, whatever changed between the two.
@Suite struct ManifestEntriesTests {
    /// A manifest of `files` as a build writes it: canonical JSON, files by path.
    private func manifestBytes(_ files: [Manifest.File], title: String? = nil) -> [UInt8] {
        let sorted = files.sorted { $0.path.utf8Precedes($1.path) }
        let manifest = Manifest(
            schemaVersion: "1.1", contentVersion: Manifest.contentVersion(of: sorted), generatedAt: nil, title: title,
            defaultLocale: "en", locales: ["en", "ru"], deepLinkScheme: nil, files: sorted)
        return Array(CanonicalJSONWriter.data(for: manifest))
    }

    private struct Files {
        var random: SplitMix64

        mutating func int(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

        mutating func hex() -> String {
            (0..<4).map { _ in String(random.next(), radix: 16).leftPadded(to: 16) }.joined()
        }

        /// IDs with every kind of byte a JSON string escapes, and braces and keys' look-alikes.
        mutating func id() -> String? {
            let pieces = ["a", "Якорь", "\"", "\\", "\n", "\u{01}", "{\"etag\":\"", ",\"path\":\"x\"", "}]", "/"]
            return int(4) == 0 ? nil : (0..<1 + int(4)).map { _ in pieces[int(pieces.count)] }.joined()
        }

        mutating func file() -> Manifest.File {
            let sha256 = hex()
            switch int(5) {
            case 0:
                return Manifest.File(
                    path: "img/\(sha256.prefix(6)) photo.png", kind: "asset", locale: nil, id: nil, lists: nil,
                    sha256: sha256, size: int(100_000))
            case 1:
                return Manifest.File(
                    path: "guide/ru/index.\(sha256.prefix(16)).json", kind: "index", locale: "ru", id: nil,
                    lists: "guide", sha256: sha256, size: int(100_000))
            default:
                return Manifest.File(
                    path: "guide/en/\(sha256.prefix(16)).json", kind: "guide", locale: "en", id: id(), lists: nil,
                    sha256: sha256, size: int(100_000))
            }
        }
    }

    /// The runs of `files` (as a build cuts them), written anew and reusing `previous`.
    private func bothWays(_ files: [Manifest.File], cuts: [Int], previous: ManifestEntries?) -> (
        anew: [[UInt8]], reusing: [[UInt8]], anewLines: [[UInt8]], reusingLines: [[UInt8]]
    ) {
        let order = files.map(\.path).utf8SortedOffsets()
        let ranges = zip(cuts, cuts.dropFirst()).map { $0..<$1 }
        let anew = ranges.map { Manifest.encodedRun(of: files, order: order[$0]) }
        let reusing = ranges.map { Manifest.encodedRun(of: files, order: order[$0], reusing: previous) }
        return (anew.map(\.json), reusing.map(\.json), anew.map(\.versionLines), reusing.map(\.versionLines))
    }

    @Test(arguments: 0..<60)
    func aManifestWrittenReusingThePreviousOneIsTheManifestWrittenAnew(_ seed: Int) throws {
        var random = Files(random: SplitMix64(seed: UInt64(seed)))
        let before = (0..<random.int(60)).map { _ in random.file() }
        let bytes = manifestBytes(before, title: seed % 4 == 0 ? #""files":[{"etag":"\"sha256-"# : nil)
        let previous = try #require(ManifestEntries(bytes: bytes))
        #expect(previous.count == before.count)
        // Kept, kept with other bytes (an asset saved again), dropped, and new files.
        var after: [Manifest.File] = []
        for file in before {
            switch random.int(6) {
            case 0: continue
            case 1:
                var changed = file
                changed.sha256 = random.hex()
                after.append(changed)
            default: after.append(file)
            }
        }
        after += (0..<random.int(8)).map { _ in random.file() }
        after.shuffle(using: &random.random)
        let cuts = [0] + (0..<random.int(4)).map { _ in random.int(after.count + 1) }.sorted() + [after.count]
        let runs = bothWays(after, cuts: cuts, previous: previous)
        #expect(runs.reusing == runs.anew)
        #expect(runs.reusingLines == runs.anewLines)
    }

    /// Bytes of any other shape than a manifest a build wrote give no entries, and then every
    /// file is written anew.
    @Test func otherBytesGiveNoEntries() throws {
        var random = Files(random: SplitMix64(seed: 9))
        let files = (0..<12).map { _ in random.file() }
        let bytes = manifestBytes(files)
        #expect(ManifestEntries(bytes: bytes)?.count == 12)
        #expect(ManifestEntries(bytes: manifestBytes([]))?.count == 0)
        let text = String(decoding: bytes, as: UTF8.self)
        let spoiled: [String] = [
            "",
            "{}",
            String(text.dropLast(120)),
            // Pretty-printed, as no build writes it.
            text.replacingOccurrences(of: "\"sha256\":\"", with: "\"sha256\": \""),
            // An ETag that is not the file's hash.
            text.replacingOccurrences(of: "\"sha256-\(files[3].sha256.prefix(8))", with: "\"sha256-00000000"),
            // A path with an escape in it, whose JSON is not its bytes.
            text.replacingOccurrences(of: files[5].path, with: files[5].path + "\\\\"),
            // Files out of the order of their paths: the first put last.
            text.replacingCharacters(in: try #require(text.range(of: "\"path\":\"")), with: "\"path\":\"zz/"),
        ]
        for (place, other) in spoiled.enumerated() {
            #expect(ManifestEntries(bytes: Array(other.utf8))?.count == nil, "spoiled \(place)")
        }
        // Written without entries to reuse, the manifest is the same.
        let runs = bothWays(files, cuts: [0, files.count], previous: ManifestEntries(bytes: Array(spoiled[3].utf8)))
        #expect(runs.reusing == runs.anew && runs.reusingLines == runs.anewLines)
    }

    /// Damaged bytes of any kind (bytes changed, cut, doubled) never trap: they give no entries,
    /// or entries that lie inside them, in order, and a manifest written with them is still
    /// written whole, file by file.
    @Test(arguments: 0..<200)
    func damagedBytesNeverTrap(_ seed: Int) throws {
        var random = Files(random: SplitMix64(seed: UInt64(seed)))
        let files = (0..<1 + random.int(6)).map { _ in random.file() }
        var bytes = manifestBytes(files)
        for _ in 0..<1 + random.int(4) {
            let place = random.int(bytes.count)
            switch random.int(4) {
            case 0: bytes[place] = UInt8(truncatingIfNeeded: random.random.next())
            case 1: bytes.removeSubrange(place...)
            case 2: bytes.insert(contentsOf: bytes[place...].prefix(random.int(40)), at: place)
            default: bytes[place] = [0x22, 0x5C, 0x7D, 0x2C, 0x5D][random.int(5)]
            }
            if bytes.isEmpty { break }
        }
        guard let entries = ManifestEntries(bytes: bytes) else { return }
        #expect(entries.count <= files.count + bytes.count / 100)
        let runs = bothWays(files, cuts: [0, files.count], previous: entries)
        #expect(runs.reusing.count == 1 && runs.anew.count == 1)
        #expect(runs.reusing[0].count > 0)
    }

    /// An entry is copied only for a file with the same path and hash: the bytes copied are
    /// the previous manifest's, so a previous entry whose other fields differed would show here.
    @Test func anEntryIsCopiedOnlyForTheSamePathAndHash() throws {
        let file = Manifest.File(
            path: "guide/en/0123456789abcdef.json", kind: "guide", locale: "en", id: "a", lists: nil,
            sha256: String(repeating: "0123456789abcdef", count: 4), size: 10)
        var recorded = file
        recorded.id = "recorded"
        let previous = try #require(ManifestEntries(bytes: manifestBytes([recorded])))
        let written = String(decoding: bothWays([file], cuts: [0, 1], previous: previous).reusing[0], as: UTF8.self)
        #expect(written.contains(#""id":"recorded""#))
        var saved = file
        saved.sha256 = String(repeating: "f", count: 64)
        let again = String(decoding: bothWays([saved], cuts: [0, 1], previous: previous).reusing[0], as: UTF8.self)
        #expect(again.contains(#""id":"a""#) && again.contains(saved.sha256))
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
