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

/// The previous build's marker read in place, and the next marker made from its lines.
@Suite struct OutputMarkerTests {
    typealias Recorded = OutputWriter.RecordedFile

    @Test func aMarkerIsReadInPlace() {
        let text =
            "heading\nformat 2\nabc 1:2:3.4 fed guides/a b/index.html\nshort line\ndef - - x.json\n\n"
            + "0a1 5:6:7.8 - z/last.json"
        let marker = OutputMarker(Data(text.utf8))
        #expect(marker.count == 3)
        #expect(marker.isSorted)
        #expect(marker.index(of: "guides/a b/index.html") == 0)
        #expect(marker["guides/a b/index.html"] == Recorded(sha256: "abc", stamp: "1:2:3.4", inputs: "fed"))
        #expect(marker["x.json"] == Recorded(sha256: "def", stamp: nil, inputs: nil))
        // The last line has no newline.
        #expect(marker["z/last.json"] == Recorded(sha256: "0a1", stamp: "5:6:7.8", inputs: nil))
        #expect(marker["short line"] == nil)
        #expect(marker.index(of: "guides/a b") == nil)
        #expect(marker.index(of: "") == nil)
        #expect(marker.hasSHA256("abc", at: 0) && !marker.hasSHA256("ab", at: 0) && !marker.hasSHA256("abcd", at: 0))
        #expect(marker.hasInputs("fed", at: 0) && !marker.hasInputs(nil, at: 0) && !marker.hasInputs("fe", at: 0))
        #expect(marker.hasInputs(nil, at: 1) && !marker.hasInputs("-x", at: 1))
        #expect(String(decoding: marker.lineBytes(at: 2), as: UTF8.self) == "0a1 5:6:7.8 - z/last.json")
        #expect(marker.paths == ["guides/a b/index.html", "x.json", "z/last.json"])
        #expect(OutputMarker.empty.count == 0 && OutputMarker.empty.index(of: "x.json") == nil)
    }

    /// The marker read ahead is taken while the file is the one read; replaced (as a commit
    /// replaces it, by a rename), or gone, it is not.
    @Test func aMarkerReadAheadIsTakenOnlyWhileItIsTheFileInPlace() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("locker-marker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        let path = output.appendingPathComponent(OutputWriter.marker).path
        #expect(OutputPrefetch(output: output).marker() == nil, "no marker")
        try OutputWriter.replaceFile(Data("h\nformat 2\na 1 - x.json\n".utf8), at: path)
        let prefetched = OutputPrefetch(output: output)
        #expect(prefetched.marker()?["x.json"]?.sha256 == "a")
        #expect(prefetched.marker()?["x.json"]?.sha256 == "a", "asked twice")
        try OutputWriter.replaceFile(Data("h\nformat 2\nb 1 - x.json\n".utf8), at: path)
        #expect(prefetched.marker() == nil, "replaced since")
        let again = OutputPrefetch(output: output)
        #expect(again.marker()?["x.json"]?.sha256 == "b")
    }

    @Test func aLaterLineOfAPathWinsAndLinesOutOfOrderAreNoticed() {
        let repeated = OutputMarker(Data("h\nformat 2\na 1 - x.json\nb 2 - y.json\nc 3 - x.json\n".utf8))
        #expect(repeated.count == 2)
        #expect(repeated["x.json"]?.sha256 == "c")
        #expect(!repeated.isSorted)
        let unsorted = OutputMarker(Data("h\nformat 2\na 1 - y.json\nb 2 - x.json\n".utf8))
        #expect(unsorted.count == 2 && !unsorted.isSorted)
        // Blank lines are passed over, as the marker's first reader passed them: the format line
        // is the second line that is not blank.
        let spaced = OutputMarker(Data("\nheading\n\nformat 2\n\nabc 1 fed a b.json\n\n".utf8))
        #expect(spaced.count == 1)
        #expect(spaced["a b.json"] == Recorded(sha256: "abc", stamp: "1", inputs: "fed"))
        // A byte that is not UTF-8: read, but no line of it goes into the next marker as it is.
        var damaged = Array("h\nformat 2\na 1 - x.json\nb 2 - y.json\n".utf8)
        damaged[damaged.count - 4] = 0xFF
        let unreadable = OutputMarker(bytes: damaged)
        #expect(unreadable.count == 2 && unreadable.isSorted && !unreadable.linesAreCopyable)
        let ledger = OutputLedger(previous: unreadable)
        for line in 0..<2 { ledger.kept(line: line, reused: false) }
        #expect(ledger.closing().marker.data == OutputWriter.markerText(unreadable.files))
        #expect(String(decoding: ledger.closing().marker.data, as: UTF8.self).contains("y.j\u{FFFD}on"))
        #expect(OutputMarker(Data("h\nformat 2\na 1 - x.json\n".utf8)).linesAreCopyable)
        // A marker without the format line lists nothing: its folder is rebuilt whole.
        #expect(OutputMarker(Data("h\nabc 1:2:3 - guides/a b/index.html\n".utf8)).count == 0)
    }

    /// Many paths, so that the table's probing wraps and fills: each is found, none invented.
    @Test func everyPathOfALargeMarkerIsFound() {
        let paths = (0..<5000).map { "site/guides/note-\($0)/index.html" }.sorted { $0.utf8Precedes($1) }
        var files: [String: Recorded] = [:]
        for (offset, path) in paths.enumerated() {
            files[path] = Recorded(sha256: "\(offset)", stamp: "-", inputs: nil)
        }
        let marker = OutputMarker(OutputWriter.markerText(files))
        #expect(marker.count == 5000 && marker.isSorted)
        for (offset, path) in paths.enumerated() {
            #expect(marker.index(of: path) == offset)
            #expect(marker.index(of: path + "x") == nil)
        }
    }

    /// A path looked for after a line found before is found at the next line when it is there,
    /// and anywhere else as without the hint: a hint from another marker, a line out of range, a
    /// line far from the path, or a path the marker does not list.
    @Test func aPathLookedForAfterAnEarlierLineIsFoundWhereverItIs() {
        let paths = (0..<500).map { "site/guides/note-\($0)/index.html" }.sorted { $0.utf8Precedes($1) }
        let marker = OutputMarker(
            OutputWriter.markerText(
                Dictionary(uniqueKeysWithValues: paths.map { ($0, Recorded(sha256: "a", stamp: "-", inputs: nil)) })))
        for (offset, path) in paths.enumerated() {
            for hint in [offset - 1, offset, offset + 1, offset - 2, 0, -1, -7, 499, 500, 10_000, Int.max, Int.min] {
                #expect(marker.index(of: path, after: hint) == offset, "\(path) after \(hint)")
            }
            #expect(marker.index(of: path + "x", after: offset - 1) == nil)
            #expect(marker.index(of: String(path.dropLast()), after: offset - 1) == nil)
        }
        #expect(OutputMarker.empty.index(of: paths[0], after: -1) == nil)
        #expect(OutputMarker.empty.index(of: paths[0], after: 3) == nil)
    }

    /// Paths of every length from 1 to 40 bytes, many alike in their first eight or sixteen, and
    /// some in their last byte only: each is found at its line, and none that differs by a byte.
    @Test func pathsOfEveryLengthAreFound() {
        var paths: [String] = []
        for length in 1...40 {
            for last in ["a", "b", "é"] {
                paths.append(String(repeating: "x", count: length - 1) + last)
            }
        }
        paths.sort { $0.utf8Precedes($1) }
        var files: [String: Recorded] = [:]
        for (offset, path) in paths.enumerated() {
            files[path] = Recorded(sha256: "\(offset)", stamp: "-", inputs: nil)
        }
        let marker = OutputMarker(OutputWriter.markerText(files))
        #expect(marker.count == paths.count)
        for (offset, path) in paths.enumerated() {
            #expect(marker.index(of: path) == offset, "\(path)")
            #expect(marker.index(of: path + "c") == nil && marker.index(of: "c" + path) == nil)
            #expect(marker.index(of: String(path.dropLast()) + "c") == nil)
        }
    }

    @Test func aFileHasTheStampTheMarkerRecordsUntilItChanges() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-marker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("a b"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stamp = try #require(try OutputWriter.writeFile(Data("one".utf8), to: folder.path + "/a b/file.json"))
        let text = "h\nformat 2\nabc \(stamp) - a b/file.json\nabc - - missing.json\nabc \(stamp) - a b\n"
        let marker = OutputMarker(Data(text.utf8))
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(marker.hasStamp(at: 0, in: descriptor))
        #expect(marker.hasStamp(at: 0, in: AT_FDCWD, under: folder.path + "/"))
        // No stamp recorded; a folder, not a file.
        #expect(!marker.hasStamp(at: 1, in: descriptor))
        #expect(!marker.hasStamp(at: 2, in: descriptor))
        try Data("two!".utf8).write(to: folder.appendingPathComponent("a b/file.json"))
        #expect(!marker.hasStamp(at: 0, in: descriptor))
        // A zero byte in a path names no file.
        let zero = OutputMarker(Data("h\nformat 2\nabc \(stamp) - a b/file.json\0x\n".utf8))
        #expect(zero.count == 1 && !zero.hasStamp(at: 0, in: descriptor))
    }

    /// The survey's answers, each file looked up from a folder opened for the lines beside it or
    /// below the folder above, are the ones its whole path gives: for files at the top, beside
    /// each other, alone in a folder of their own, in folders that share a prefix of their names,
    /// after an empty name (`a//b`), with a zero byte, changed, missing, or a folder.
    @Test func theSurveysAnswersAreTheWholePathsAnswers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-survey-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = [
            "_headers", "a/b/c/one.json", "a/b/c/two.json", "a/b/d/index.html", "a/b/e/index.html", "a/bb/index.html",
            "a/b/index.html", "deep/x/y/z/index.html", "g/en/1.json", "g/en/2.json", "g/en/3.json", "g/enx/1.json",
            "pages/p1/index.html", "pages/p2/index.html", "pages/p3/index.html", "top.json",
        ]
        var lines: [String] = []
        for file in files {
            let url = folder.appendingPathComponent(file)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let stamp = try #require(try OutputWriter.writeFile(Data(file.utf8), to: url.path))
            lines.append("abc \(stamp) - \(file)")
        }
        let stamp = try #require(try OutputWriter.writeFile(Data("x".utf8), to: folder.path + "/g/en/4.json"))
        lines += [
            "abc \(stamp) - g/en/missing.json", "abc - - g/en/4.json", "abc \(stamp) - g",
            "abc \(stamp) - g//en/4.json",
            "abc \(stamp) - g/en/4.json\0", "abc \(stamp) - pages/gone/index.html", "abc \(stamp) - g/en/4.json",
        ]
        // Changed after the marker was written: its stamp is not the recorded one.
        try Data("changed".utf8).write(to: folder.appendingPathComponent("pages/p2/index.html"))
        let marker = OutputMarker(Data(("h\nformat 2\n" + lines.sorted().joined(separator: "\n") + "\n").utf8))
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let expected = (0..<marker.count).map { marker.hasStamp(at: $0, in: AT_FDCWD, under: folder.path + "/") }
        // Every file but the changed one, and 4.json by both of its paths (`g//en/` is `g/en/`).
        #expect(expected.count { $0 } == files.count - 1 + 2)
        #expect(marker.stamps(of: 0..<marker.count, in: descriptor) == expected)
        // Every run a survey could take, from every line to every other.
        for start in 0..<marker.count {
            for end in start..<marker.count {
                #expect(marker.stamps(of: start..<end, in: descriptor) == Array(expected[start..<end]))
            }
        }
    }

    /// Kept lines are taken from the previous marker's bytes as they are, a line break added
    /// after a last line without one.
    @Test func keptLinesAreTakenWithTheirLineBreaks() {
        let text = "h\nformat 2\na 1:1:1.1 - x.json\nb 2:2:2.2 f y.json"
        let previous = OutputMarker(Data(text.utf8))
        #expect(previous.linesAreCopyable && previous.count == 2)
        let ledger = OutputLedger(previous: previous)
        for line in 0..<2 { ledger.kept(line: line, reused: false) }
        let marker = ledger.closing().marker.data
        #expect(marker == OutputWriter.markerText(previous.files))
        #expect(String(decoding: marker, as: UTF8.self).hasSuffix("2:2:2.2 f y.json\n"))
        // A new line after them, and one between them.
        let more = OutputLedger(previous: previous)
        for line in 0..<2 { more.kept(line: line, reused: false) }
        more.wrote("z.json", Recorded(sha256: "c", stamp: "3:3:3.3", inputs: nil))
        more.wrote("xa.json", Recorded(sha256: "d", stamp: nil, inputs: "e"))
        var files = previous.files
        files["z.json"] = Recorded(sha256: "c", stamp: "3:3:3.3", inputs: nil)
        files["xa.json"] = Recorded(sha256: "d", stamp: nil, inputs: "e")
        #expect(more.closing().marker.data == OutputWriter.markerText(files))
    }

    /// The build's record rides on the marker's third line, as one line of JSON whatever its
    /// report holds; the files are read as without it, and a marker written with none, or with
    /// a record line that is not JSON, has none.
    @Test func aMarkerCarriesTheBuildsRecordOnOneLine() throws {
        let record = BuildRecord(
            fingerprint: BuildFingerprint(hex: "ab12"), report: "a.md:1:2: error: x y\nrecord z\n", summary: "Built.\n")
        let files = [
            "a b.json": Recorded(sha256: "c", stamp: "1:2:3.4", inputs: nil),
            "site/index.html": Recorded(sha256: "d", stamp: nil, inputs: "e"),
        ]
        let text = OutputWriter.markerText(files, record: record)
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 5 && lines[2].hasPrefix(OutputMarker.recordPrefix))
        let marker = OutputMarker(text)
        #expect(marker.record == record)
        #expect(marker.files == files && marker.linesAreCopyable)
        #expect(OutputMarker(OutputWriter.markerText(files)).record == nil)
        let broken = Data("h\nformat 2\nrecord {not json\nc - - x.json\n".utf8)
        #expect(OutputMarker(broken).record == nil && OutputMarker(broken).count == 1)
        // The ledger's marker over it carries the next build's record, and none when given none.
        let ledger = OutputLedger(previous: marker)
        for line in 0..<marker.count { ledger.kept(line: line, reused: false) }
        let next = BuildRecord(fingerprint: BuildFingerprint(hex: "cd34"), report: "", summary: "Built again.\n")
        #expect(OutputMarker(ledger.closing(record: next).marker.data).record == next)
        #expect(OutputMarker(ledger.closing().marker.data).record == nil)
        #expect(OutputMarker(ledger.closing(record: next).marker.data).files == files)
    }

    /// The ledger's marker, made from the previous marker's lines, is the one
    /// ``OutputWriter/markerText(_:)`` writes for the same files; its removals and twins are
    /// those of the files it no longer has. Random builds over random previous builds.
    @Test(arguments: 0..<6) func theLedgersMarkerIsTheOneWrittenWhole(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let names = ["a", "B", "b", "guide", "Guide", "gúide", "z z", "x.json", "index.html"]
        func path() -> String { Self.randomPath(of: names, numbers: 40, using: &random) }
        func entry() -> Recorded { Self.randomEntry(using: &random) }
        var previousFiles: [String: Recorded] = [:]
        for _ in 0..<Int.random(in: 0..<120, using: &random) { previousFiles[path()] = entry() }
        let previousText = OutputWriter.markerText(previousFiles)
        // Blank lines and lines too short to read, which are passed over, between some others:
        // the kept lines around them are not side by side in the marker's bytes.
        let gappy = seed % 2 == 1
        let previous = OutputMarker(gappy ? Self.withGaps(previousText, using: &random) : previousText)

        let ledger = OutputLedger(previous: previous)
        var expected: [String: Recorded] = [:]
        for (path, file) in previousFiles.sorted(by: { $0.key < $1.key }) {
            let line = previous.index(of: path) ?? -1
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                // Kept, made from the same inputs or other ones.
                let inputs = Bool.random(using: &random) ? file.inputs : String(Int.random(in: 0..<3, using: &random))
                ledger.kept(line: line, path: path, inputs: inputs, reused: Bool.random(using: &random))
                expected[path] = Recorded(sha256: file.sha256, stamp: file.stamp, inputs: inputs)
            case 1:
                let written = entry()
                ledger.wrote(path, written)
                expected[path] = written
            default:
                break  // removed
            }
        }
        for _ in 0..<Int.random(in: 0..<30, using: &random) {
            let new = path()
            if previousFiles[new] != nil { continue }
            let written = entry()
            ledger.wrote(new, written)
            expected[new] = written
        }
        let closing = ledger.closing()
        #expect(
            String(decoding: closing.marker.data, as: UTF8.self)
                == String(decoding: OutputWriter.markerText(expected), as: UTF8.self))
        let removals = previousFiles.keys.filter { expected[$0] == nil }
        #expect(closing.removals == removals.sorted { $0.utf8Precedes($1) })
        #expect(closing.twins == OutputWriter.Journal.twins(of: closing.removals, among: Array(expected.keys)))
        #expect(OutputMarker(closing.marker.data).files == expected)
    }

    /// A random path: one to three of `names`, joined by `/`, then a number below `numbers`.
    static func randomPath(of names: [String], numbers: Int, using random: inout SplitMix64) -> String {
        (0..<Int.random(in: 1...3, using: &random)).map { _ in names.randomElement(using: &random) ?? "a" }
            .joined(separator: "/") + "-\(Int.random(in: 0..<numbers, using: &random))"
    }

    /// A random marker entry: one of four hashes, with a stamp or none, with inputs or none.
    static func randomEntry(using random: inout SplitMix64) -> Recorded {
        Recorded(
            sha256: String(Int.random(in: 0..<4, using: &random)),
            stamp: Bool.random(using: &random) ? "\(Int.random(in: 1..<9, using: &random)):1:2.3" : nil,
            inputs: Bool.random(using: &random) ? String(Int.random(in: 0..<3, using: &random)) : nil)
    }

    /// `text`'s lines, its first kept first, with a blank line or a line too short to read
    /// after some of the others.
    static func withGaps(_ text: Data, using random: inout SplitMix64) -> Data {
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var out = ""
        for (number, line) in lines.enumerated() {
            out += line + (number + 1 < lines.count ? "\n" : "")
            guard number > 1, number + 1 < lines.count else { continue }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: out += "\n"
            case 1: out += "short line\n"
            default: break
            }
        }
        return Data(out.utf8)
    }
}
