import Foundation
import LockerKit
import LockerTestSupport
import Testing

@testable import LockerCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The marker of an output folder: read, written back, and what it says of the files in place.
@Suite struct OutputMarkerTests {
    typealias Entry = OutputMarker.Entry

    @Test func aMarkerIsReadLineByLine() {
        let text =
            "heading\nformat 2\nabc 1:2:3.4 fed guides/a b/index.html\nshort line\n\ndef - - x.json\n"
            + "0a1 5:6:7.8 - z/last.json"
        let marker = OutputMarker(Data(text.utf8))
        #expect(
            marker.files == [
                "guides/a b/index.html": Entry(sha256: "abc", stamp: "1:2:3.4", inputs: "fed"),
                "x.json": Entry(sha256: "def"),
                // The last line has no newline.
                "z/last.json": Entry(sha256: "0a1", stamp: "5:6:7.8"),
            ])
        #expect(marker.record == nil)
        // Blank lines are passed over: the format line is the second line that is not blank.
        let spaced = OutputMarker(Data("\nheading\n\nformat 2\n\nabc 1 fed a b.json\n\n".utf8))
        #expect(spaced.files == ["a b.json": Entry(sha256: "abc", stamp: "1", inputs: "fed")])
        // A later line of a path wins.
        let repeated = OutputMarker(Data("h\nformat 2\na 1 - x.json\nb 2 - y.json\nc 3 - x.json\n".utf8))
        #expect(repeated.files.mapValues(\.sha256) == ["x.json": "c", "y.json": "b"])
        // A marker without the format line lists nothing: its folder is rebuilt whole.
        #expect(OutputMarker(Data("h\nabc 1:2:3 - guides/a b/index.html\n".utf8)).files.isEmpty)
        #expect(OutputMarker(Data()).files.isEmpty)
    }

    /// A marker is written with its files in byte order of their paths, and read back as it was
    /// written; a byte that is not UTF-8 is read as U+FFFD.
    @Test(arguments: 0..<4) func aMarkerIsReadBackAsItWasWritten(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let names = ["a", "B", "b", "guide", "Guide", "gúide", "z z", "x.json", "index.html"]
        var files: [String: Entry] = [:]
        for _ in 0..<Int.random(in: 0..<200, using: &random) {
            let path =
                (0..<Int.random(in: 1...3, using: &random)).map { _ in names.randomElement(using: &random) ?? "a" }
                .joined(separator: "/") + "-\(Int.random(in: 0..<40, using: &random))"
            files[path] = Entry(
                sha256: String(Int.random(in: 0..<4, using: &random)),
                stamp: Bool.random(using: &random) ? "\(Int.random(in: 1..<9, using: &random)):1:2.3" : nil,
                inputs: Bool.random(using: &random) ? String(Int.random(in: 0..<3, using: &random)) : nil)
        }
        let text = OutputMarker(files: files).text
        #expect(OutputMarker(text).files == files)
        let paths = String(decoding: text, as: UTF8.self).split(separator: "\n").dropFirst(2).map {
            String($0.split(separator: " ", maxSplits: 3)[3])
        }
        #expect(paths == files.keys.sorted { $0.utf8Precedes($1) })

        var damaged = Array("h\nformat 2\na 1 - x.json\nb 2 - y.json\n".utf8)
        damaged[damaged.count - 4] = 0xFF
        #expect(OutputMarker(bytes: damaged).files.keys.sorted() == ["x.json", "y.j\u{FFFD}on"])
    }

    /// The build's record rides on the marker's third line, as one line of JSON whatever its
    /// report holds; the files are read as without it, and a record line that is not JSON is none.
    @Test func aMarkerCarriesTheBuildsRecordOnOneLine() throws {
        let record = BuildRecord(
            fingerprint: BuildFingerprint(hex: "ab12"), report: "a.md:1:2: error: x y\nrecord z\n", summary: "Built.\n")
        let files = [
            "a b.json": Entry(sha256: "c", stamp: "1:2:3.4"), "site/index.html": Entry(sha256: "d", inputs: "e"),
        ]
        let text = OutputMarker(files: files, record: record).text
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 5 && lines[2].hasPrefix(OutputMarker.recordPrefix))
        let marker = OutputMarker(text)
        #expect(marker.record == record)
        #expect(marker.files == files)
        #expect(OutputMarker(OutputMarker(files: files).text).record == nil)
        let broken = OutputMarker(Data("h\nformat 2\nrecord {not json\nc - - x.json\n".utf8))
        #expect(broken.record == nil && broken.files == ["x.json": Entry(sha256: "c")])
    }

    /// The record is read from the marker's head, and from the whole marker when it runs past it.
    @Test(arguments: [10, 100_000]) func aMarkersRecordIsReadAlone(reportLength: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-marker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = BuildRecord(
            fingerprint: BuildFingerprint(hex: "ab12"), report: String(repeating: "w", count: reportLength), summary: ""
        )
        let files = Dictionary(uniqueKeysWithValues: (0..<2000).map { ("site/\($0).html", Entry(sha256: "\($0)")) })
        try OutputMarker(files: files, record: record).text.write(
            to: folder.appendingPathComponent(OutputWriter.marker))
        let head = try #require(OutputMarker(in: folder, recordOnly: true))
        #expect(head.record == record && head.files.isEmpty)
        #expect(OutputMarker(in: folder)?.files == files)
    }

    /// A file is intact while it is the regular file with the stamp the marker lists.
    @Test func aFileIsIntactUntilItChanges() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-marker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("a b"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stamp = try OutputWriter.writeFile(
            OutputFile(path: "a b/file.json", data: Data("one".utf8)), to: folder.path + "/a b/file.json")
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let entry = Entry(sha256: "abc", stamp: stamp)
        #expect(OutputMarker.isIntact("a b/file.json", entry, in: descriptor))
        // No stamp listed; a folder; no file; a zero byte, which would end the path early.
        #expect(!OutputMarker.isIntact("a b/file.json", Entry(sha256: "abc"), in: descriptor))
        #expect(!OutputMarker.isIntact("a b", entry, in: descriptor))
        #expect(!OutputMarker.isIntact("missing.json", entry, in: descriptor))
        #expect(!OutputMarker.isIntact("a b/file.json\0x", entry, in: descriptor))
        try Data("two!".utf8).write(to: folder.appendingPathComponent("a b/file.json"))
        #expect(!OutputMarker.isIntact("a b/file.json", entry, in: descriptor))
    }
}
