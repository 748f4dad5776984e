import Foundation
import LockerKit

/// What `locker build` learned of each note, kept in the output (``fileName``) for the next build,
/// in another process: a note that has not changed, and whose guide was made from notes that have
/// not changed, is neither read, parsed, linked nor encoded again.
///
/// For every note the record holds its path, its stamp and its content hash. For a guide it also
/// holds what the rest of a build needs of the note without its text (``KeptGuide``): what the
/// link tables and the deck catalog read (kind, ID, locale, aliases), its diagnostics, the notes
/// and vault files its guide was made from, the guide's index entry, and the SHA-256 and size of
/// its bundle file.
///
/// The record holds for a build only when the program, the settings and the vault's shape
/// (``LinkSurface``: every note's path, kind, ID, locale and aliases) are those it was written
/// under; a guide is kept only when its note and every note it read have their recorded hashes,
/// and every vault file it embeds its recorded state (``BuildTrace``), so the output is the clean
/// build's, byte for byte. `locker serve` keeps its record in memory (``MemoryBuilds``).
struct NoteRecord: Sendable {
    /// The record's file in the output folder; listed in the marker like any file of the build,
    /// and replaced with the others at the commit.
    static let fileName = ".locker-notes"
    /// The first bytes of the file: a record of another format is not read.
    static let format = "locker-notes 4\n"

    /// The `locker` program that wrote it (``BuildFingerprint/program``).
    var program: String
    /// The SHA-256 of `locker.yml`, or empty without one.
    var config: String
    /// The SHA-256 of the vault's shape when it was written.
    var linkSurface: String
    /// What every page of the site was made from (``PageInputs/site``), empty when unknown: while
    /// it is the same, a kept guide's page is made from what it was made from.
    var pageSite = ""
    /// The bundle's indexes it was written with (``Manifest/File``, kind `index`): an index whose
    /// listing is unchanged is this file again.
    var indexes: [Manifest.File] = []
    /// Every note, in the order of the vault's notes.
    var notes: [Entry]
    /// The bytes it was read from, and where each note's entry and guide are in them: an entry
    /// or a guide kept as it is goes into the next record as the same bytes.
    private var source: [UInt8] = []
    private var entryBytes: [Range<Int>] = []
    private var guideBytes: [Range<Int>?] = []

    struct Entry: Sendable {
        var path: String
        /// The stamp the file had when it was read, when it had settled (see ``Compiler/settlingTime``):
        /// a file with the same stamp is not read again.
        var stamp: FileStamp?
        var sha256: String
        /// What a guide note keeps; nil for every other note, which is always read.
        var guide: KeptGuide?
    }

    /// A guide note as a build sees it without reading it.
    ///
    /// A class: a build passes every one of them from the record to the hollow notes and the
    /// kept documents, and a struct of this many fields costs a retain per field at each copy.
    final class KeptGuide: Sendable {
        // What the parse found that the link tables, the deck catalog and the ID checks read.
        let id: String
        let idPosition: SourcePosition
        let locale: String
        let explicitLocale: Bool
        let aliases: [String]
        let basePath: String
        let frontmatterID: String?
        let frontmatterKind: String?
        let frontmatterType: String?
        let parseDiagnostics: [Diagnostic]
        // What building the guide found and made.
        let diagnostics: [Diagnostic]
        /// The notes the guide was made from, by their place in ``NoteRecord/notes``.
        let reads: [Int]
        let assets: [AssetUse]
        /// The UUID of the guide's index entry, which its hollow note carries.
        let uuid: String
        private let storedEntry: StoredEntry
        let bundleSHA256: String
        let bundleSize: Int

        /// A guide's index entry: as made, or as a record holds it, decoded when asked.
        fileprivate enum StoredEntry: Sendable {
            case made(ContentIndex.Entry)
            case recorded(RecordBytes, Range<Int>)
        }

        /// The guide's index entry. Decoded from the record each time it is asked for, when the
        /// guide was read from one: a rebuild that keeps the guides' index asks for none of them
        /// (their titles and tags were a large part of a record's decoding).
        var entry: ContentIndex.Entry {
            switch storedEntry {
            case .made(let entry):
                return entry
            case .recorded(let source, let range):
                var reader = RecordReader(source.bytes, in: range)
                if let entry = try? NoteRecord.indexEntry(from: &reader, id: id, uuid: uuid) { return entry }
                // Not reached: the record's bytes were read through when it was, as here.
                return ContentIndex.Entry(
                    id: id, uuid: uuid, title: "", subtitle: nil, category: nil, type: nil, tags: [], order: nil,
                    locale: locale)
            }
        }

        convenience init(
            id: String, idPosition: SourcePosition, locale: String, explicitLocale: Bool, aliases: [String],
            basePath: String, frontmatterID: String? = nil, frontmatterKind: String? = nil,
            frontmatterType: String? = nil,
            parseDiagnostics: [Diagnostic], diagnostics: [Diagnostic], reads: [Int], assets: [AssetUse],
            entry: ContentIndex.Entry, bundleSHA256: String, bundleSize: Int
        ) {
            self.init(
                id: id, idPosition: idPosition, locale: locale, explicitLocale: explicitLocale, aliases: aliases,
                basePath: basePath, frontmatterID: frontmatterID, frontmatterKind: frontmatterKind,
                frontmatterType: frontmatterType, parseDiagnostics: parseDiagnostics, diagnostics: diagnostics,
                reads: reads, assets: assets, uuid: entry.uuid, storedEntry: .made(entry), bundleSHA256: bundleSHA256,
                bundleSize: bundleSize)
        }

        /// A guide with its index entry as `storedEntry` holds it (read from a record: left in
        /// its bytes), and that entry's UUID.
        fileprivate init(
            id: String, idPosition: SourcePosition, locale: String, explicitLocale: Bool, aliases: [String],
            basePath: String, frontmatterID: String?, frontmatterKind: String?, frontmatterType: String?,
            parseDiagnostics: [Diagnostic], diagnostics: [Diagnostic], reads: [Int], assets: [AssetUse],
            uuid: String, storedEntry: StoredEntry, bundleSHA256: String, bundleSize: Int
        ) {
            self.id = id
            self.idPosition = idPosition
            self.locale = locale
            self.explicitLocale = explicitLocale
            self.aliases = aliases
            self.basePath = basePath
            self.frontmatterID = frontmatterID
            self.frontmatterKind = frontmatterKind
            self.frontmatterType = frontmatterType
            self.parseDiagnostics = parseDiagnostics
            self.diagnostics = diagnostics
            self.reads = reads
            self.assets = assets
            self.uuid = uuid
            self.storedEntry = storedEntry
            self.bundleSHA256 = bundleSHA256
            self.bundleSize = bundleSize
        }
    }

    /// A record's bytes, held by the guides read from it for their index entries: one holder
    /// for each run of notes, made on the thread that decodes the run, so that the guides retain
    /// it each on their own core rather than all retain one array from both.
    final class RecordBytes: Sendable {
        let bytes: [UInt8]

        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    /// How many notes a run of the record holds, the last run fewer: each is read on a core of its own.
    static let runLength = 512

    /// The record's bytes: the notes' entries are written on every core, a run of notes each,
    /// one after the other.
    var encoded: Data { encoded(reusing: nil) }

    /// The bytes of ``encodedPieces(reusing:)``, joined.
    func encoded(reusing previous: NoteRecord?) -> Data {
        OutputFile.joined(encodedPieces(reusing: previous).map { $0[...] })
    }

    /// The record's bytes in pieces, to be written one after the other without being joined
    /// (``OutputFile/init(path:pieces:)``), with each guide that is `previous`'s own at the same
    /// place (the same object: kept from it unread) copied from the bytes it was read from.
    func encodedPieces(reusing previous: NoteRecord?) -> [[UInt8]] {
        encodedPieces(runs: Self.encodedRuns(of: notes, reusing: previous), noteCount: notes.count)
    }

    /// The notes' entries in runs, as ``encodedPieces(reusing:)`` writes them for a record of
    /// `notes`: all of the record's bytes but the few before them, so that a build can encode
    /// them before it knows the rest (``pageSite``, from the site's render).
    static func encodedRuns(of notes: [Entry], reusing previous: NoteRecord?) -> [[UInt8]] {
        encodedRuns(count: notes.count, reusing: previous, asRecorded: { _ in false }, entry: { notes[$0] })
    }

    /// The entries of `count` notes in runs, as ``encodedRuns(of:reusing:)`` writes them, each
    /// given by `entry` by its place, unless `asRecorded` says the previous record's entry at
    /// that place holds as it is (the same path, stamp and content hash, and no guide or the
    /// guide kept from it). Such an entry is copied from the bytes it was read from, with the
    /// entries beside it in one piece: a one-note rebuild neither gathers nor encodes the other
    /// notes again.
    static func encodedRuns(
        count: Int, reusing previous: NoteRecord?, asRecorded: @Sendable (Int) -> Bool,
        entry: @Sendable (Int) -> Entry
    ) -> [[UInt8]] {
        // A run is about as long as the previous record's notes were, on average.
        let noteBytes = previous.map { $0.source.count / max($0.notes.count, 1) + 16 } ?? 256
        let recorded = previous?.entryBytes ?? []
        return Compiler.parallelMap(Compiler.runs(of: count, length: Self.runLength)) { run -> [UInt8] in
            var writer = RecordWriter(capacity: run.count * noteBytes)
            /// The previous record's bytes still to be copied: its entries since the last written.
            var copying: Range<Int>?
            func copy() {
                if let pending = copying, let previous { writer.append(previous.source[pending]) }
                copying = nil
            }
            for place in run {
                if place < recorded.count, asRecorded(place) {
                    let bytes = recorded[place]
                    if let pending = copying, pending.upperBound == bytes.lowerBound {
                        copying = pending.lowerBound..<bytes.upperBound
                    } else {
                        copy()
                        copying = bytes
                    }
                    continue
                }
                copy()
                Self.write(entry(place), at: place, previous: previous, into: &writer)
            }
            copy()
            return writer.bytes
        }
    }

    /// The record's bytes in pieces, its `noteCount` notes' entries being `runs`
    /// (``encodedRuns(of:reusing:)`` for its ``notes``, or
    /// ``encodedRuns(count:reusing:asRecorded:entry:)``), whatever its ``notes``.
    func encodedPieces(runs: [[UInt8]], noteCount: Int) -> [[UInt8]] {
        headerPieces(runLengths: runs.map(\.count), noteCount: noteCount) + runs
    }

    /// The record's bytes before its runs (those of ``fileName``), for `noteCount` notes in runs
    /// of these lengths.
    func headerPieces(runLengths: [Int], noteCount: Int) -> [[UInt8]] {
        var writer = RecordWriter()
        writer.write(program)
        writer.write(config)
        writer.write(linkSurface)
        writer.write(pageSite)
        writer.write(UInt64(indexes.count))
        for index in indexes {
            writer.write(index.path)
            writer.write(index.locale)
            writer.write(index.lists)
            writer.write(index.sha256)
            writer.write(index.size)
        }
        writer.write(UInt64(noteCount))
        // Each run's length first, so that the next build reads the runs on every core too.
        var lengths = RecordWriter()
        lengths.write(UInt64(runLengths.count))
        for length in runLengths { lengths.write(UInt64(length)) }
        return [Array(Self.format.utf8), writer.bytes, lengths.bytes]
    }

    /// Writes the record into `sink`, its `noteCount` notes' entries being `runs`
    /// (``encodedRuns(count:reusing:asRecorded:entry:)``).
    func write(runs: [[UInt8]], noteCount: Int, into sink: some OutputSink) throws {
        try sink.writeUnhashed(
            OutputFile(path: Self.fileName, pieces: encodedPieces(runs: runs, noteCount: noteCount)))
    }

    /// The record the previous build left in the output `sink` writes over, still as that build
    /// wrote it; nil when it is missing, changed or damaged.
    static func read(from sink: some OutputSink) -> NoteRecord? {
        sink.previousFile(fileName).flatMap(NoteRecord.init(bytes:))
    }

    /// The fields before the runs: the program, the settings, the vault's shape, the pages'
    /// site, the indexes and the count of notes; and how long each run is.
    private static func header(from reader: inout RecordReader) throws -> (
        fields: (program: String, config: String, linkSurface: String, pageSite: String, indexes: [Manifest.File]),
        count: Int, runs: [Int]
    ) {
        let fields = (
            program: try reader.string(), config: try reader.string(), linkSurface: try reader.string(),
            pageSite: try reader.string(),
            indexes: try reader.list { reader in
                Manifest.File(
                    path: try reader.string(), kind: "index", locale: try reader.optionalString(), id: nil,
                    lists: try reader.optionalString(), sha256: try reader.string(), size: try reader.int())
            }
        )
        // Counted in the runs' files, which a record's first file does not hold: bounded so that
        // no sum of them overflows.
        let count = try reader.count(atMost: Int(Int32.max))
        let runs = try reader.list { try $0.count(atMost: Int(Int32.max)) }
        // Each run holds `runLength` notes but the last, as ``encodedRuns(of:reusing:)`` cuts them.
        guard (count + runLength - 1) / runLength == runs.count else { throw RecordReader.Damaged() }
        return (fields, count, runs)
    }

    /// Writes the entry of the note at `place`, its guide copied from `previous` when it is
    /// the one kept from there.
    private static func write(_ note: Entry, at place: Int, previous: NoteRecord?, into writer: inout RecordWriter) {
        writer.write(note.path)
        writer.write(note.sha256)
        writer.write(note.stamp != nil)
        if let stamp = note.stamp {
            writer.write(stamp.size)
            writer.write(Int64(bitPattern: stamp.inode))
            writer.write(stamp.modifiedSeconds)
            writer.write(stamp.modifiedNanoseconds)
            writer.write(stamp.changedSeconds)
            writer.write(stamp.changedNanoseconds)
        }
        writer.write(note.guide != nil)
        guard let guide = note.guide else { return }
        if let previous, place < previous.notes.count, previous.notes[place].guide === guide,
            place < previous.guideBytes.count, let range = previous.guideBytes[place]
        {
            writer.append(previous.source[range])
            return
        }
        writer.write(guide.id)
        writer.write(guide.idPosition)
        writer.write(guide.locale)
        writer.write(guide.explicitLocale)
        writer.write(guide.aliases)
        writer.write(guide.basePath)
        writer.write(guide.frontmatterID)
        writer.write(guide.frontmatterKind)
        writer.write(guide.frontmatterType)
        Self.write(guide.parseDiagnostics, into: &writer)
        Self.write(guide.diagnostics, into: &writer)
        writer.write(UInt64(guide.reads.count))
        for read in guide.reads { writer.write(read) }
        writer.write(UInt64(guide.assets.count))
        for asset in guide.assets {
            writer.write(asset.path)
            writer.write(asset.bundled)
            writer.write(asset.state)
        }
        let entry = guide.entry
        writer.write(entry.id)
        writer.write(entry.uuid)
        writer.write(entry.title)
        writer.write(entry.subtitle)
        writer.write(entry.category)
        writer.write(entry.type)
        writer.write(entry.tags)
        writer.write(entry.order)
        writer.write(entry.locale)
        writer.write(guide.bundleSHA256)
        writer.write(guide.bundleSize)
    }

    /// The record in `bytes`; nil when they are not a whole record of this format.
    init?(bytes: [UInt8]) {
        let format = Array(Self.format.utf8)
        guard bytes.starts(with: format) else { return nil }
        // Read where it lies, after the format line: the places of the guides' bytes are in `bytes`.
        var reader = RecordReader(bytes, in: format.count..<bytes.count)
        do {
            let (fields, count, lengths) = try Self.header(from: &reader)
            (program, config, linkSurface, pageSite, indexes) = fields
            // The runs of notes, each decoded on its own core.
            var start = 0
            let runs = lengths.map { length -> Range<Int> in
                defer { start += length }
                return start..<start + length
            }
            let first = reader.bytesRead
            let source = reader.source
            // Every entry takes a byte at least: a count beyond the runs' bytes is damage, and
            // no list is made at its size.
            guard first + start == source.count, count <= start else { return nil }
            // Each run holds `runLength` notes but the last, as ``encoded(reusing:)`` cuts them;
            // each is decoded into its own part of the list, so no entry is copied from run to run.
            let runPlaces = Compiler.runs(of: count, length: Self.runLength)
            guard runPlaces.count == runs.count else { return nil }
            var entries: [Entry] = []
            var guides = [Range<Int>?](repeating: nil, count: count)
            var entryRanges = [Range<Int>](repeating: 0..<0, count: count)
            guides.withUnsafeMutableBufferPointer { guides in
                entryRanges.withUnsafeMutableBufferPointer { entryRanges in
                    guard let guidesBase = guides.baseAddress, let rangesBase = entryRanges.baseAddress
                    else { return }
                    let guideSlots = RecordSlots(base: guidesBase)
                    let rangeSlots = RecordSlots(base: rangesBase)
                    entries = [Entry](unsafeUninitializedCapacity: count) { buffer, initialized in
                        guard let base = buffer.baseAddress else { return }
                        let entrySlots = RecordSlots(base: base)
                        // How many entries each run decoded, and whether they were the whole run.
                        let decoded = Compiler.parallelMap(Array(runs.indices)) { run -> (made: Int, whole: Bool) in
                            let bytes = (first + runs[run].lowerBound)..<(first + runs[run].upperBound)
                            var reader = RecordReader(source, in: bytes)
                            let holder = RecordBytes(source)
                            var place = runPlaces[run].lowerBound
                            while !reader.atEnd, place < runPlaces[run].upperBound {
                                let start = reader.bytesRead
                                guard let (entry, guide) = try? Self.entry(from: &reader, source: holder) else { break }
                                (entrySlots.base + place).initialize(to: entry)
                                guideSlots.base[place] = guide
                                rangeSlots.base[place] = start..<reader.bytesRead
                                place += 1
                            }
                            return (
                                place - runPlaces[run].lowerBound,
                                reader.atEnd && place == runPlaces[run].upperBound
                            )
                        }
                        guard decoded.allSatisfy(\.whole) else {
                            // A damaged run: the entries decoded are let go, and the record is not read.
                            for (run, done) in zip(runPlaces, decoded) {
                                (base + run.lowerBound).deinitialize(count: done.made)
                            }
                            initialized = 0
                            return
                        }
                        initialized = count
                    }
                }
            }
            guard entries.count == count else { return nil }
            notes = entries
            guideBytes = guides
            entryBytes = entryRanges
            self.source = source
            // Every place a guide read is one of the record's notes.
            let places = notes.indices
            guard notes.allSatisfy({ $0.guide?.reads.allSatisfy(places.contains) ?? true }) else {
                return nil
            }
        } catch {
            return nil
        }
    }

    /// One note's entry, and where its guide's bytes are.
    private static func entry(from reader: inout RecordReader, source: RecordBytes) throws -> (Entry, Range<Int>?) {
        var guideStart: Int?
        var entry = Entry(path: try reader.string(), sha256: try reader.string())
        if try reader.bool() {
            entry.stamp = FileStamp(
                size: try reader.int64(), inode: UInt64(bitPattern: try reader.int64()),
                modifiedSeconds: try reader.int64(), modifiedNanoseconds: try reader.int64(),
                changedSeconds: try reader.int64(), changedNanoseconds: try reader.int64())
        }
        if try reader.bool() {
            guideStart = reader.bytesRead
            let id = try reader.string()
            let (idPosition, locale, explicitLocale) = (try reader.position(), try reader.string(), try reader.bool())
            let aliases = try reader.strings()
            let basePath = try reader.string(sharing: id)
            let frontmatter = (try reader.optionalString(), try reader.optionalString(), try reader.optionalString())
            let (parseDiagnostics, diagnostics) = (
                try Self.diagnostics(from: &reader), try Self.diagnostics(from: &reader)
            )
            let reads = try reader.list { try $0.int() }
            let assets = try reader.list {
                AssetUse(path: try $0.string(), bundled: try $0.bool(), state: try $0.string())
            }
            // The index entry is read through, its UUID taken, the rest left in the bytes until
            // asked for (``KeptGuide/entry``), when ``indexEntry(from:id:uuid:)`` reads it as here.
            let entryStart = reader.bytesRead
            try reader.skipString()
            let uuid = try reader.string()
            try reader.skipString()
            for _ in 0..<3 { try reader.skipOptionalString() }
            try reader.skipStrings()
            try reader.skipOptionalInt()
            try reader.skipString()
            entry.guide = KeptGuide(
                id: id, idPosition: idPosition, locale: locale, explicitLocale: explicitLocale, aliases: aliases,
                basePath: basePath, frontmatterID: frontmatter.0, frontmatterKind: frontmatter.1,
                frontmatterType: frontmatter.2, parseDiagnostics: parseDiagnostics, diagnostics: diagnostics,
                reads: reads, assets: assets, uuid: uuid, storedEntry: .recorded(source, entryStart..<reader.bytesRead),
                bundleSHA256: try reader.string(), bundleSize: try reader.int())
        }
        return (entry, guideStart.map { $0..<reader.bytesRead })
    }

    /// A guide's index entry as ``write(_:at:previous:into:)`` writes it, its ID and UUID
    /// shared with `id` and `uuid` when they have the same bytes.
    fileprivate static func indexEntry(from reader: inout RecordReader, id: String, uuid: String) throws
        -> ContentIndex.Entry
    {
        ContentIndex.Entry(
            id: try reader.string(sharing: id), uuid: try reader.string(sharing: uuid), title: try reader.string(),
            subtitle: try reader.optionalString(), category: try reader.optionalString(),
            type: try reader.optionalString(), tags: try reader.strings(), order: try reader.optionalInt(),
            locale: try reader.string())
    }

    init(
        program: String, config: String, linkSurface: String, pageSite: String = "", indexes: [Manifest.File] = [],
        notes: [Entry]
    ) {
        self.program = program
        self.config = config
        self.linkSurface = linkSurface
        self.pageSite = pageSite
        self.indexes = indexes
        self.notes = notes
    }

    private static func write(_ diagnostics: [Diagnostic], into writer: inout RecordWriter) {
        writer.write(UInt64(diagnostics.count))
        for diagnostic in diagnostics {
            writer.write(diagnostic.severity.rawValue)
            writer.write(diagnostic.code.rawValue)
            writer.write(diagnostic.message)
            writer.write(diagnostic.file)
            writer.write(diagnostic.position)
            writer.write(diagnostic.hint)
        }
    }

    private static func diagnostics(from reader: inout RecordReader) throws -> [Diagnostic] {
        try reader.list { reader in
            guard let severity = Severity(rawValue: try reader.string()) else { throw RecordReader.Damaged() }
            let code = DiagnosticCode(rawValue: try reader.string())
            return Diagnostic(
                severity, code, try reader.string(), file: try reader.string(), at: try reader.position(),
                hint: try reader.optionalString())
        }
    }
}

/// Where ``NoteRecord/init(bytes:)`` decodes each run's entries: one part of the list per run,
/// written by one thread.
private struct RecordSlots<Value>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Value>
}
