import Foundation
import LockerKit
import Testing

@testable import LockerCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `locker build` into its previous output keeps each guide whose note, and every note it
/// shows, is unchanged, from the record the previous build left (``NoteRecord``), without
/// reading, parsing, linking or encoding it; the output and the diagnostics are a clean build's.
@Suite struct NoteRecordTests {
    /// Four guides: `anchoring` links to a heading of `knots` and embeds `weather`; `tides`
    /// stands alone and has a broken link, whose warning must outlive the build that found it.
    static func vault() throws -> (TestVault, anchoring: MarkedText, tides: MarkedText) {
        let anchoring = MarkedText(
            """
            ---
            id: anchoring
            ---
            ## Setting the anchor

            Tie on with a 1️⃣[[knots#Bowline]] first.

            ![[weather]]
            """)
        let tides = MarkedText(
            """
            ---
            id: tides
            ---
            ## Springs and neaps

            See 1️⃣[[the almanac]] for the times.
            """)
        let vault = try TestVault([
            "guides/anchoring.md": anchoring.text,
            "guides/knots.md": "---\nid: knots\n---\n## Bowline\n\nA loop that holds.\n",
            "guides/weather.md": "---\nid: weather\n---\nWind against tide kicks up a sea.\n",
            "guides/tides.md": tides.text,
        ])
        return (vault, anchoring, tides)
    }

    /// Builds over the output and checks it against a clean build: files and diagnostics.
    static func rebuild(_ vault: TestVault, _ output: URL, checkingRecord: Bool = true) throws -> Compilation {
        let (built, _) = try PageInputsTests.build(vault, into: output, trustingStamps: true)
        let clean = try Compiler(vault: vault.root, environment: IncrementalBuildTests.environment).compile()
        #expect(built.diagnostics == clean.diagnostics)
        let differences = BuildOutputTests.differences(
            try PageInputsTests.tree(output), clean.files.map { ($0.path, $0.data) })
        #expect(differences == [], "\(differences)")
        let recordPath = output.appendingPathComponent(NoteRecord.fileName).path
        #expect(FileManager.default.fileExists(atPath: recordPath))
        // Every note's entry, written anew or copied from the previous record, has the note's
        // content hash and its stamp now (every stamp is kept, as `trustingStamps` asks).
        if checkingRecord {
            let record = try #require(try Self.record(in: output))
            #expect(!record.notes.isEmpty)
            for entry in record.notes {
                let file = vault.root.appendingPathComponent(entry.path).path
                #expect(entry.sha256 == ContentHash.sha256Hex(try FileBytes.contents(of: file)), "\(entry.path)")
                #expect(entry.stamp == FileStamp(path: file), "\(entry.path)")
            }
        }
        return built
    }

    /// A note saved again without a change keeps its guide, and the record takes its new stamp
    /// (its entry is not copied as it was recorded).
    @Test func aNoteTouchedWithoutAChangeIsRecordedWithItsNewStamp() throws {
        let (vault, _, _) = try Self.vault()
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        _ = try Self.rebuild(vault, output)
        _ = try Self.rebuild(vault, output)
        let path = vault.root.appendingPathComponent("guides/tides.md").path
        let before = try #require(FileStamp(path: path))
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(FileStamp(path: path) != before)
        // `rebuild` checks every entry's stamp against its note's.
        #expect(try Self.rebuild(vault, output).keptGuides.count == 4)
    }

    /// Texts are read back as written; lists are read whole however long; a length past the
    /// bytes is damage.
    @Test func textsAndListsReadBackAndNothingPastTheBytes() throws {
        var writer = RecordWriter()
        let texts = ["folder-18/note-03968", "folder-18/note-03968", "folder-18/note-03969", "", "якорь", "якорь!"]
        for text in texts { writer.write(text) }
        writer.write((0..<40).map { "tag \($0)" })
        var reader = RecordReader(writer.bytes)
        for text in texts { #expect(try reader.string() == text) }
        #expect(try reader.strings() == (0..<40).map { "tag \($0)" })
        #expect(reader.atEnd)
        // A count past the bytes left is damage, not a list.
        var damaged = RecordWriter()
        damaged.write(UInt64(1_000))
        damaged.write("a")
        var short = RecordReader(damaged.bytes)
        #expect(throws: RecordReader.Damaged.self) { try short.strings() }
        // A range past the bytes is read as far as they go: a string that would run past them
        // is damage, not bytes read beyond the record.
        var text = RecordWriter()
        text.write("abc")
        let cut = Array(text.bytes.dropLast())
        var past = RecordReader(cut, in: 0..<cut.count + 64)
        #expect(throws: RecordReader.Damaged.self) { try past.string() }
        var wholePast = RecordReader(text.bytes, in: 0..<text.bytes.count + 64)
        #expect(try wholePast.string() == "abc")
        #expect(wholePast.atEnd)
        var backwards = RecordReader(text.bytes, in: 100..<200)
        #expect(backwards.atEnd)
        #expect(throws: RecordReader.Damaged.self) { try backwards.string() }
    }

    /// The record is taken only while it is the file the previous build wrote: replaced since
    /// (by the same bytes, in one rename), it is not.
    @Test func aRecordIsTakenOnlyWhileItIsTheFileThePreviousBuildWrote() throws {
        try Self.withBuiltRecord { _, output, path, bytes in
            do {
                // Released at the end of the block, with the output's lock.
                let update = try OutputWriter.begin(replacing: output)
                #expect(update.previousFile(NoteRecord.fileName) == bytes)
                update.discard()
            }
            try OutputWriter.replaceFile(Data(bytes), at: path)
            let next = try OutputWriter.begin(replacing: output)
            #expect(next.previousFile(NoteRecord.fileName) == nil)
            next.discard()
        }
    }

    /// The record in `output`, read from its file.
    static func record(in output: URL) throws -> NoteRecord? {
        NoteRecord(bytes: try FileBytes.contents(of: output.appendingPathComponent(NoteRecord.fileName).path))
    }

    /// Builds the test vault into a new output folder and runs `body` with the vault, the
    /// folder, the record's path and its bytes; removes both folders after.
    static func withBuiltRecord(_ body: (TestVault, URL, String, [UInt8]) throws -> Void) throws {
        let (vault, _, _) = try Self.vault()
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        _ = try Self.rebuild(vault, output)
        let path = output.appendingPathComponent(NoteRecord.fileName).path
        try body(vault, output, path, try FileBytes.contents(of: path))
    }

    /// The record is written without a hash: its marker line has `-` for one, and the next build
    /// reads it between two looks at its stamp, both the marker's. Changed in place since the
    /// build, it is not taken.
    @Test func theRecordIsWrittenUnhashedAndReadBackByItsStamp() throws {
        try Self.withBuiltRecord { vault, output, path, bytes in
            let marker = try #require(try OutputWriter.previousFiles(of: output)).files
            #expect(marker[NoteRecord.fileName]?.sha256 == "-")
            #expect(marker[NoteRecord.fileName]?.stamp != nil)
            // Every other file has its hash.
            #expect(marker.keys.filter { marker[$0]?.sha256.utf8.count != 64 } == [NoteRecord.fileName])
            do {
                let update = try OutputWriter.begin(replacing: output)
                #expect(update.previousFile(NoteRecord.fileName) == bytes)
                update.discard()
            }
            // The same bytes written over it in place: the file, but not as the build left it.
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.write(contentsOf: Data(bytes))
            try handle.close()
            #expect(try FileBytes.contents(of: path) == bytes)
            do {
                // Released at the end of the block, with the output's lock.
                let next = try OutputWriter.begin(replacing: output)
                #expect(next.previousFile(NoteRecord.fileName) == nil)
                next.discard()
            }
            // A rebuild in place writes it unhashed too.
            _ = try Self.rebuild(vault, output)
            #expect(try OutputWriter.previousFiles(of: output)?.files[NoteRecord.fileName]?.sha256 == "-")
        }
    }

    /// A document is counted once whatever its languages, built or kept: what `locker build`
    /// says it built.
    @Test func aGuideIsCountedOnceInEveryLanguageBuiltOrKept() throws {
        let vault = try TestVault([
            "locker.yml": "locales: [en, ru]\n",
            "guides/anchoring.md": "## Chain\n", "guides/anchoring.ru.md": "## Цепь\n",
            "guides/knots.md": "## Bowline\n", "guides/tides.ru.md": "## Приливы\n",
            "checklists/daily.md": "---\nkind: checklist\n---\n## Deck\n- [ ] Hatches\n",
        ])
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        let first = try Self.rebuild(vault, output)
        #expect(first.builtGuides.count == 4 && first.keptGuides.isEmpty)
        #expect(first.idCount(of: .guide) == 3 && first.idCount(of: .checklist) == 1 && first.idCount(of: .deck) == 0)
        let again = try Self.rebuild(vault, output)
        #expect(again.keptGuides.count == 4)
        #expect(again.idCount(of: .guide) == 3)
    }

    @Test func aGuideIsKeptWhileItsNoteAndTheNotesItShowsAreUnchanged() throws {
        let (vault, anchoring, tides) = try Self.vault()
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        let first = try Self.rebuild(vault, output)
        #expect(first.keptGuides == [])
        #expect(first.builtGuides.count == 4)
        // A guide kept unread stands as a note with its index entry's UUID, which is the one its
        // kind and ID give.
        let record = try #require(try Self.record(in: output))
        for entry in record.notes {
            let guide = try #require(entry.guide)
            let hollow = ParsedNote.hollow(path: entry.path, kept: guide)
            #expect(hollow.uuid == ContentIdentity.uuidString(kind: .guide, id: guide.id))
        }

        // Nothing changed: every guide is kept, with the warning it had.
        let unchanged = try Self.rebuild(vault, output)
        #expect(unchanged.keptGuides.sorted() == ["anchoring", "knots", "tides", "weather"])
        #expect(unchanged.builtGuides.isEmpty)
        let warning = try #require(unchanged.diagnostics.first { $0.code == .linkBroken })
        #expect(warning.file == "guides/tides.md")
        #expect(warning.position == tides.markers["1"])

        // An embedded note's text: the note that embeds it is built again.
        try vault.write("guides/weather.md", Data("---\nid: weather\n---\nFog comes with a warm front.\n".utf8))
        let embedded = try Self.rebuild(vault, output)
        #expect(embedded.keptGuides.sorted() == ["knots", "tides"])
        #expect(embedded.builtGuides.map(\.id).sorted() == ["anchoring", "weather"])

        // A linked heading renamed: the link breaks, and the note that links to it says so.
        try vault.write("guides/knots.md", Data("---\nid: knots\n---\n## Bowline knot\n\nA loop that holds.\n".utf8))
        let renamed = try Self.rebuild(vault, output)
        #expect(renamed.keptGuides.sorted() == ["tides", "weather"])
        let broken = renamed.diagnostics.filter { $0.code == .linkBrokenHeading }
        #expect(broken.map(\.file) == ["guides/anchoring.md"])
        #expect(broken.map(\.position) == [anchoring.markers["1"]])

        // A note no other reads edited: the broken link is still reported, from the record.
        try vault.write("guides/tides.md", Data((tides.text + "\n\nA backing wind brings rain.\n").utf8))
        let unrelated = try Self.rebuild(vault, output)
        #expect(unrelated.keptGuides.sorted() == ["anchoring", "knots", "weather"])
        #expect(unrelated.diagnostics.filter { $0.code == .linkBrokenHeading } == broken)
        #expect(unrelated.diagnostics.filter { $0.code == .linkBroken }.map(\.file) == ["guides/tides.md"])

        // While every guide keeps its index entry, the guide index is the previous build's file;
        // a new title lists the guides again (each rebuild above is compared with a clean build).
        let guideIndexes = { () throws -> [String] in
            try FileManager.default.contentsOfDirectory(atPath: output.path + "/bundles/v1/guide/en")
                .filter { $0.hasPrefix("index.") }
        }
        let listed = try guideIndexes()
        try #require(!listed.isEmpty, "no guide index in the output")
        try vault.write("guides/tides.md", Data((tides.text + "\n\nNeaps are gentler.\n").utf8))
        _ = try Self.rebuild(vault, output)
        #expect(try guideIndexes() == listed)
        let retitled = tides.text.replacingOccurrences(
            of: "id: tides\n", with: "id: tides\ntitle: Tides and currents\n")
        try vault.write("guides/tides.md", Data(retitled.utf8))
        #expect(try Self.rebuild(vault, output).keptGuides.sorted() == ["anchoring", "knots", "weather"])
        #expect(try guideIndexes() != listed)
    }

    /// A build takes the stamps its fingerprint took instead of a `stat` per note: a note saved
    /// between the two is built as it was fingerprinted, and the next build sees the save.
    @Test func aNoteSavedBetweenTheFingerprintAndTheBuildIsSeenByTheNextBuild() throws {
        let (vault, _, _) = try Self.vault()
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        _ = try Self.rebuild(vault, output)

        var compiler = Compiler(vault: vault.root, environment: IncrementalBuildTests.environment)
        compiler.settlingTime = -1
        let fingerprint = BuildFingerprint(compiler: compiler, settings: [])
        #expect(fingerprint.walk?.files.count == 4)
        try vault.write("guides/weather.md", Data("---\nid: weather\n---\nFog comes with a warm front.\n".utf8))
        let built = try {
            let transaction = try OutputWriter.begin(replacing: output)
            let built = try compiler.compile(into: transaction, taking: fingerprint)
            try transaction.commit()
            return built
        }()
        // Kept by the stamp the fingerprint took: the save came after it.
        #expect(built.keptGuides.sorted() == ["anchoring", "knots", "tides", "weather"])

        let next = try Self.rebuild(vault, output)
        #expect(next.builtGuides.map(\.id).sorted() == ["anchoring", "weather"])
    }

    @Test func aNoteAddedOrRenamedReadsEveryNoteAgain() throws {
        let (vault, _, _) = try Self.vault()
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        _ = try Self.rebuild(vault, output)
        // The almanac appears: the broken link in tides now leads somewhere.
        try vault.write("guides/the almanac.md", Data("---\ntitle: Almanac\n---\nHigh water at noon.\n".utf8))
        let added = try Self.rebuild(vault, output)
        #expect(added.keptGuides == [])
        #expect(!added.diagnostics.contains { $0.code == .linkBroken })
        try FileManager.default.moveItem(
            at: vault.root.appendingPathComponent("guides/knots.md"),
            to: vault.root.appendingPathComponent("guides/rope.md"))
        let renamed = try Self.rebuild(vault, output)
        #expect(renamed.keptGuides == [])
        #expect(renamed.diagnostics.filter { $0.code == .linkBroken }.map(\.file) == ["guides/anchoring.md"])
        #expect(renamed.builtGuides.count == 5)
    }

    @Test func aBundleFileOrPageChangedInTheOutputIsMadeAgain() throws {
        let (vault, _, _) = try Self.vault()
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        let first = try Self.rebuild(vault, output)
        let manifest = try #require(first.manifest)
        let bundleFile = try #require(manifest.files.first { $0.id == "knots" })
        try Data("{}".utf8).write(to: output.appendingPathComponent("bundles/v1/" + bundleFile.path))
        try Data("edited".utf8).write(to: output.appendingPathComponent("site/guides/weather/index.html"))
        // Both guides are kept, and built when their files must be written again.
        let again = try Self.rebuild(vault, output)
        #expect(again.keptGuides.sorted() == ["anchoring", "knots", "tides", "weather"])
    }

    @Test func aRecordThatDoesNotHoldIsNotUsed() throws {
        let (vault, _, _) = try Self.vault()
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        _ = try Self.rebuild(vault, output)
        // Edited in the output: no longer the file the build wrote.
        let recordURL = output.appendingPathComponent(NoteRecord.fileName)
        let bytes = try Data(contentsOf: recordURL)
        try bytes.prefix(bytes.count / 2).write(to: recordURL)
        #expect(try Self.rebuild(vault, output).keptGuides == [])
        #expect(try Self.rebuild(vault, output).keptGuides.count == 4)
        // A byte changed in place, with the size and modification time put back: the stamp says
        // it is the file written, and the record is trusted by its stamp, as every file a rebuild
        // keeps is (the marker holds no hash of it). The byte is the first of a note's content
        // hash, and the note's own stamp is the recorded one: it is not read, every guide is
        // kept, and the output is still the clean build's (`rebuild` compares them).
        let runURL = recordURL
        var status = stat()
        #expect(stat(runURL.path, &status) == 0)
        let recorded = [UInt8](try Data(contentsOf: runURL))
        let path = Array("guides/anchoring.md".utf8)
        let start = try #require(recorded.indices.first { recorded[$0...].starts(with: path) })
        let offset = start + path.count + 1
        let handle = try FileHandle(forUpdating: runURL)
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(
            contentsOf: Data([recorded[offset] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")]))
        try handle.close()
        #if canImport(Darwin)
            var times = [status.st_atimespec, status.st_mtimespec]
        #else
            var times = [status.st_atim, status.st_mtim]
        #endif
        #expect(utimensat(AT_FDCWD, runURL.path, &times, 0) == 0)
        // The changed hash goes into the next record as it was read: the note's stamp holds.
        #expect(try Self.rebuild(vault, output, checkingRecord: false).keptGuides.count == 4)
        // Other settings: notes may parse differently.
        try vault.write("locker.yml", Data("title: Sailing\n".utf8))
        #expect(try Self.rebuild(vault, output).keptGuides == [])
    }

    @Test func aRecordReadsBackWhatWasWrittenAndNothingFromDamagedBytes() throws {
        func keptGuide(reads: [Int]) -> NoteRecord.KeptGuide {
            NoteRecord.KeptGuide(
                id: "anchoring", idPosition: SourcePosition(line: 2, column: 5), locale: "ru", explicitLocale: true,
                aliases: ["Якорь", ""], basePath: "guides/anchoring", frontmatterID: "anchoring",
                frontmatterKind: "guide",
                frontmatterType: nil, parseDiagnostics: [],
                diagnostics: [
                    Diagnostic(
                        .warning, .linkBroken, "no note named 'x'", file: "guides/anchoring.ru.md",
                        at: SourcePosition(line: 70_000, column: 3), hint: "check it")
                ],
                reads: reads, assets: [AssetUse(path: "images/boat.png", bundled: true, state: "abc")],
                entry: ContentIndex.Entry(
                    id: "anchoring", uuid: "u", title: "Якорь", subtitle: nil, category: "mooring", type: "document",
                    tags: ["a", "b"], order: -3, locale: "ru"),
                bundleSHA256: String(repeating: "ab", count: 32), bundleSize: 1 << 40)
        }
        let guide = keptGuide(reads: [0, 1])
        let stamp = FileStamp(
            size: 12, inode: UInt64.max, modifiedSeconds: -1, modifiedNanoseconds: 999_999_999, changedSeconds: 1 << 40,
            changedNanoseconds: 0)
        let record = NoteRecord(
            program: "binary /x 1", config: "", linkSurface: "s",
            notes: [
                NoteRecord.Entry(path: "guides/anchoring.ru.md", stamp: stamp, sha256: "h", guide: guide),
                NoteRecord.Entry(path: "checklists/daily.md", stamp: nil, sha256: "g", guide: nil),
            ])
        let bytes = [UInt8](record.encoded)
        let read = try #require(NoteRecord(bytes: bytes))
        #expect(read.program == record.program && read.linkSurface == "s" && read.notes.count == 2)
        #expect(read.notes[0].stamp == stamp && read.notes[1].stamp == nil && read.notes[1].guide == nil)
        let back = try #require(read.notes[0].guide)
        #expect(back.diagnostics == guide.diagnostics && back.entry == guide.entry && back.assets == guide.assets)
        #expect(back.aliases == guide.aliases && back.reads == guide.reads && back.bundleSize == guide.bundleSize)
        #expect(back.idPosition == guide.idPosition && back.frontmatterType == nil && back.frontmatterKind == "guide")
        // Every shorter prefix, and the whole with a byte more, is refused, never read past its end.
        for length in 0..<bytes.count { #expect(NoteRecord(bytes: Array(bytes.prefix(length))) == nil) }
        #expect(NoteRecord(bytes: bytes + [0]) == nil)
        // Read back and written again, it is the same bytes.
        #expect([UInt8](read.encoded) == bytes)

        // A count of notes far beyond the bytes is refused before anything is made for them.
        var huge = RecordWriter()
        for text in ["p", "", "s", ""] { huge.write(text) }
        huge.write(UInt64(0))
        huge.write(UInt64(Int32.max))
        huge.write(UInt64(0))
        #expect(NoteRecord(bytes: Array(NoteRecord.format.utf8) + huge.bytes) == nil)

        // A guide that read a note the record does not have (a place past the end, or before it).
        for place in [2, -1] {
            var wrong = record
            wrong.notes[0].guide = keptGuide(reads: [0, place])
            #expect(NoteRecord(bytes: [UInt8](wrong.encoded)) == nil, "read \(place)")
        }
    }

    /// The ID check is left out only under the shape the record was written under, which a build
    /// without errors had: a note taking another's ID changes the shape, and is reported where
    /// its ID is; the same build, as it was, finds it too.
    @Test func anIDTakenOverARecordIsADuplicate() throws {
        let (vault, _, _) = try Self.vault()
        let output = PageInputsTests.folder()
        defer { PageInputsTests.remove(vault, output) }
        _ = try Self.rebuild(vault, output)
        _ = try Self.rebuild(vault, output)
        try vault.write("guides/weather.md", Data("---\nid: Knots\n---\nWind against tide kicks up a sea.\n".utf8))
        let (failed, _) = try PageInputsTests.build(vault, into: output, trustingStamps: true)
        let duplicate = failed.diagnostics.filter { $0.code == .idDuplicate }
        #expect(duplicate.map(\.file) == ["guides/weather.md"])
        #expect(duplicate.map(\.position) == [SourcePosition(line: 2, column: 5)])
        let clean = try Compiler(vault: vault.root, environment: IncrementalBuildTests.environment).compile()
        #expect(failed.diagnostics == clean.diagnostics)
        // Every note saved at once, none kept unread: the record still stands for the build.
        for name in ["anchoring", "knots", "tides"] {
            let path = "guides/\(name).md"
            let text = try String(contentsOf: vault.root.appendingPathComponent(path), encoding: .utf8)
            try vault.write(path, Data((text + "\nSaved again.\n").utf8))
        }
        let (all, _) = try PageInputsTests.build(vault, into: output, trustingStamps: true)
        #expect(all.diagnostics.filter { $0.code == .idDuplicate }.map(\.file) == ["guides/weather.md"])
    }

    /// A record of many notes is written and read in runs of notes, each on its own core: every
    /// note comes back in its place, a guide's reads may reach into other runs, a run's length
    /// that does not add up is refused.
    @Test func aRecordOfManyNotesIsReadRunByRun() throws {
        let count = 2_500
        let entries = (0..<count).map { place -> NoteRecord.Entry in
            let guide =
                place % 3 == 0
                ? nil
                : NoteRecord.KeptGuide(
                    id: "g\(place)", idPosition: SourcePosition(line: place, column: 1), locale: "en",
                    explicitLocale: false, aliases: [], basePath: "g\(place)", parseDiagnostics: [], diagnostics: [],
                    reads: [place, (place * 7) % count], assets: [],
                    entry: ContentIndex.Entry(
                        id: "g\(place)", uuid: "u\(place)", title: "G \(place)", subtitle: nil, category: nil,
                        type: nil, tags: [], order: nil, locale: "en"),
                    bundleSHA256: "s\(place)", bundleSize: place)
            return NoteRecord.Entry(path: "n\(place).md", stamp: nil, sha256: "h\(place)", guide: guide)
        }
        let record = NoteRecord(program: "p", config: "", linkSurface: "s", notes: entries)
        let bytes = [UInt8](record.encoded)
        let read = try #require(NoteRecord(bytes: bytes))
        #expect(read.notes.map(\.path) == entries.map(\.path))
        #expect(read.notes.map { $0.guide?.reads ?? [] } == entries.map { $0.guide?.reads ?? [] })
        #expect(read.notes.map { $0.guide?.entry.title } == entries.map { $0.guide?.entry.title })
        #expect([UInt8](read.encoded) == bytes)
        // The lengths of the runs stand after the header: three runs of notes here. One byte
        // more in a run, or the record cut anywhere, and it is not read.
        #expect(NoteRecord(bytes: bytes + [0]) == nil)
        for length in stride(from: 0, to: bytes.count, by: 997) {
            #expect(NoteRecord(bytes: Array(bytes.prefix(length))) == nil)
        }
        // A byte damaged inside a run: the record is read whole or not at all, and the entries
        // of the runs decoded beside the damaged one are let go, once (`make sanitize` runs this
        // under AddressSanitizer).
        var unread = 0
        for offset in stride(from: bytes.count / 4, to: bytes.count, by: 211) {
            var damaged = bytes
            damaged[offset] = 0xFF
            if let read = NoteRecord(bytes: damaged) {
                #expect(read.notes.count == count)
            } else {
                unread += 1
            }
        }
        #expect(unread > 10)
    }

    /// `guides/knots.md` as the record keeps it, unread.
    private static func hollowKnots() -> ParsedNote {
        ParsedNote.hollow(
            path: "guides/knots.md",
            kept: NoteRecord.KeptGuide(
                id: "knots", idPosition: .start, locale: "en", explicitLocale: false, aliases: [],
                basePath: "guides/knots", parseDiagnostics: [], diagnostics: [], reads: [], assets: [],
                entry: ContentIndex.Entry(
                    id: "knots", uuid: ContentIdentity.uuidString(kind: .guide, id: "knots"), title: "",
                    subtitle: nil, category: nil, type: nil, tags: [], order: nil, locale: "en"),
                bundleSHA256: "", bundleSize: 0))
    }

    @Test func aNoteSavedAgainWhileTheBuildReadsItIsAProblem() throws {
        let vault = try TestVault(["guides/knots.md": "## Bowline\n"])
        defer { vault.remove() }
        let loader = NoteLoader(
            vault: vault.root, parser: NoteParser(config: VaultConfig()), hashes: ["not the hash it has now"])
        let hollow = Self.hollowKnots()
        #expect(loader.whole(0, hollow) === hollow)
        #expect(
            loader.problems
                == [
                    Diagnostic(
                        .error, .fileUnreadable, "the file changed while the vault was being built",
                        file: "guides/knots.md", hint: "build again")
                ])
        let matching = NoteLoader(
            vault: vault.root, parser: NoteParser(config: VaultConfig()),
            hashes: [ContentHash.sha256Hex(Data("## Bowline\n".utf8))])
        #expect(matching.whole(0, hollow).headings.values.contains("bowline"))
        #expect(matching.problems.isEmpty)
    }

    /// A guide's tree is let go once its document is built (``ParsedNote/releaseBody()``): a note
    /// that embeds it afterwards reads it again and gets what the tree gave, and a problem when it
    /// was saved again since it was parsed. A link to a block needs no tree.
    @Test func aGuideLetGoIsReadAgainForANoteThatEmbedsIt() throws {
        let knots = "## Bowline\n\nA loop. ^loop\n\n## Reef knot\n\nFlat.\n"
        let vault = try TestVault(["guides/knots.md": knots])
        defer { vault.remove() }
        let parser = NoteParser(config: VaultConfig())
        func build(letGo: Bool, hash: String) throws -> (guide: Guide, problems: [Diagnostic]) {
            let text = "![[knots#Bowline]]\n\n![[knots#^loop]]\n\n[[knots#^loop]]\n"
            let note = try #require(parser.parse(path: "guides/a.md", bytes: Array(text.utf8)).0)
            let target = try #require(parser.parse(path: "guides/knots.md", bytes: Array(knots.utf8)).0)
            if letGo { target.releaseBody() }
            #expect((target.holdingBody() != nil) == !letGo && target.blockIDs == ["loop"])
            var index = VaultIndex(notes: [note, target], assets: [])
            let loader = NoteLoader(vault: vault.root, parser: parser, hashes: ["", hash])
            index.loader = loader
            let resolver = LinkResolver(
                index: index, unresolvedSeverity: .warning, preference: VaultConfig().localePreference)
            var builder = DocumentBuilder(
                index: index, resolver: resolver, assets: AssetCatalog(root: vault.root), embedDepth: 3)
            let (guide, diagnostics) = builder.guide(0)
            #expect(diagnostics.isEmpty)
            return (guide, loader.problems)
        }
        let hash = ContentHash.sha256Hex(Data(knots.utf8))
        let whole = try build(letGo: false, hash: hash)
        #expect(whole.guide.blocks.count == 3)
        let readAgain = try build(letGo: true, hash: hash)
        #expect(readAgain.guide == whole.guide)
        #expect(readAgain.problems.isEmpty)
        let changed = try build(letGo: true, hash: "not the hash it has now")
        #expect(changed.problems.map(\.message) == ["the file changed while the vault was being built"])
    }

    /// A note the build hands out whole (``VaultIndex/whole(_:)``) keeps its blocks and sections
    /// when the thread that built it lets them go meanwhile: an embed read its blocks and then,
    /// the guide let go on another core, no sections, and the build shipped it without a word.
    @Test func aNoteHandedOutWholeKeepsItsTreeWhenItIsLetGo() throws {
        let knots = "## Bowline\n\nA loop. ^loop\n\n## Reef knot\n\nFlat.\n"
        let vault = try TestVault(["guides/knots.md": knots])
        defer { vault.remove() }
        let parser = NoteParser(config: VaultConfig())
        let target = try #require(parser.parse(path: "guides/knots.md", bytes: Array(knots.utf8)).0)
        var index = VaultIndex(notes: [target], assets: [])
        let loader = NoteLoader(
            vault: vault.root, parser: parser, hashes: [ContentHash.sha256Hex(Data(knots.utf8))])
        index.loader = loader
        let held = index.whole(0)
        target.releaseBody()
        #expect(held.sections.count == 2 && held.blocksByID.keys.sorted() == ["loop"])
        // Asked again once let go, it is read again.
        #expect(index.whole(0).sections.count == 2)
        #expect(loader.problems.isEmpty)
    }

    /// A guide let go is read again from the file the scan listed: a name on disk that is not
    /// NFC (a file from macOS, on Linux) is not the note's path, which is. Built on one thread,
    /// so that the guide is let go before the note after it embeds it.
    @Test func aGuideLetGoIsReadAgainFromTheFileTheScanListed() throws {
        let decomposed = "guides/a-cafe\u{301}.md"
        let vault = try TestVault([
            decomposed: "# Café\n\nThe café.\n\n## Menu\n\nCoffee.\n",
            "guides/b.md": "# B\n\n![[a-café]]\n",
        ])
        defer { vault.remove() }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("locker-out-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let built = try Compiler.$onOneThread.withValue(true) {
            try PageInputsTests.build(vault, into: output).0
        }
        #expect(built.diagnostics.isEmpty, "\(built.diagnostics)")
        #expect(!built.failed)
        let clean = try Compiler(vault: vault.root, environment: IncrementalBuildTests.environment).compile()
        let differences = BuildOutputTests.differences(
            try PageInputsTests.tree(output), clean.files.map { ($0.path, $0.data) })
        #expect(differences == [], "\(differences)")
    }

    /// A link to a note kept unread needs its kind, ID and UUID, which the record keeps: the note
    /// is read only for a heading. A loader whose hashes no longer match tells a read by the
    /// problem it keeps.
    @Test func aLinkReadsTheNoteItLeadsToOnlyForAHeading() throws {
        let vault = try TestVault(["guides/knots.md": "## Bowline\n"])
        defer { vault.remove() }
        let config = VaultConfig()
        let parser = NoteParser(config: config)
        let hollow = Self.hollowKnots()
        /// The guide of a note with `text`, linking to the kept note, and what its build read.
        func build(_ text: String) throws -> (guide: Guide, reads: Set<Int>, problems: [Diagnostic]) {
            let note = try #require(parser.parse(path: "guides/a.md", bytes: Array(text.utf8)).0)
            var index = VaultIndex(notes: [note, hollow], assets: [])
            let loader = NoteLoader(vault: vault.root, parser: parser, hashes: ["", "not the hash it has now"])
            index.loader = loader
            let resolver = LinkResolver(
                index: index, unresolvedSeverity: config.unresolvedLinks, preference: config.localePreference)
            var builder = DocumentBuilder(
                index: index, resolver: resolver, assets: AssetCatalog(root: vault.root), embedDepth: 3)
            let guide = builder.guide(0).0
            return (guide, builder.reads, loader.problems)
        }
        let plain = try build("[[knots]]\n")
        #expect(plain.problems.isEmpty)
        #expect(plain.reads == [0, 1])
        let expected = LinkTarget.document(
            kind: .guide, id: "knots", uuid: ContentIdentity.uuidString(kind: .guide, id: "knots"), anchor: nil)
        #expect(plain.guide.blocks.first?.content == .paragraph([.link(expected, [.text("knots")])]))
        let heading = try build("[[knots#Bowline]]\n")
        #expect(heading.problems.map(\.message) == ["the file changed while the vault was being built"])
        #expect(heading.reads == [0, 1])
    }
}
