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
/// and every vault file it embeds its recorded state (``Compiler/keptGuides(notes:hashes:record:assets:)``), so the output is the clean
/// build's, byte for byte. `locker serve` keeps its record in memory (``MemoryBuilds``).
struct NoteRecord: Sendable {
    /// The record's file in the output folder; listed in the marker like any file of the build,
    /// and replaced with the others at the commit.
    static let fileName = ".locker-notes"
    /// The first bytes of the file: a record of another format is not read.
    static let format = "locker-notes 6\n"

    /// The `locker` program that wrote it (``BuildFingerprint/program``).
    var program: String
    /// The SHA-256 of `locker.yml`, or empty without one.
    var config: String
    /// The SHA-256 of the vault's shape when it was written.
    var linkSurface: String
    /// Every note, in the order of the vault's notes.
    var notes: [Entry]

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
        /// The guide's index entry.
        let entry: ContentIndex.Entry
        let bundleSHA256: String
        let bundleSize: Int
        /// The UUID of the guide, which its hollow note carries.
        var uuid: String { entry.uuid }

        init(
            id: String, idPosition: SourcePosition, locale: String, explicitLocale: Bool, aliases: [String],
            basePath: String, frontmatterID: String? = nil, frontmatterKind: String? = nil,
            frontmatterType: String? = nil,
            parseDiagnostics: [Diagnostic], diagnostics: [Diagnostic], reads: [Int], assets: [AssetUse],
            entry: ContentIndex.Entry, bundleSHA256: String, bundleSize: Int
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
            self.entry = entry
            self.bundleSHA256 = bundleSHA256
            self.bundleSize = bundleSize
        }
    }

    /// How many notes a run of the record holds, the last run fewer: each run is encoded and
    /// decoded on a core of its own.
    static let runLength = 512

    init(program: String, config: String, linkSurface: String, notes: [Entry]) {
        (self.program, self.config, self.linkSurface, self.notes) = (program, config, linkSurface, notes)
    }

    /// The record's bytes, its notes' entries in runs each encoded on a core.
    var encoded: Data {
        let notes = self.notes
        let pieces = encodedPieces(runs: Self.encodedRuns(count: notes.count) { notes[$0] }, noteCount: notes.count)
        return OutputFile.joined(pieces.map { $0[...] })
    }

    /// The entries of `count` notes, each given by `entry` by its place, encoded in runs of
    /// ``runLength`` on every core: all of the record's bytes but the few before them.
    static func encodedRuns(count: Int, entry: @Sendable (Int) -> Entry) -> [[UInt8]] {
        Compiler.parallelMap(Compiler.runs(of: count, length: runLength)) { run -> [UInt8] in
            var writer = RecordWriter(capacity: run.count * 256)
            for place in run { write(entry(place), into: &writer) }
            return writer.bytes
        }
    }

    /// The record's bytes in pieces, its `noteCount` notes' entries being `runs`
    /// (``encodedRuns(count:entry:)``), whatever its ``notes``: the format line, the fields,
    /// each run's length (so that the next build decodes the runs on every core too), the runs.
    func encodedPieces(runs: [[UInt8]], noteCount: Int) -> [[UInt8]] {
        var writer = RecordWriter()
        writer.write(program)
        writer.write(config)
        writer.write(linkSurface)
        writer.write(UInt64(noteCount))
        writer.write(UInt64(runs.count))
        for run in runs { writer.write(UInt64(run.count)) }
        return [Array(Self.format.utf8), writer.bytes] + runs
    }

    /// Writes the record into `sink`, its `noteCount` notes' entries being `runs`
    /// (``encodedRuns(count:entry:)``).
    func write(runs: [[UInt8]], noteCount: Int, into sink: some OutputSink) throws {
        try sink.writeUnhashed(
            OutputFile(path: Self.fileName, pieces: encodedPieces(runs: runs, noteCount: noteCount)))
    }

    /// The record the previous build left in the output `sink` writes over, still as that build
    /// wrote it; nil when it is missing, changed or damaged.
    static func read(from sink: some OutputSink) -> NoteRecord? {
        sink.previousFile(fileName).flatMap(NoteRecord.init(bytes:))
    }

    /// The record in `bytes`; nil when they are not a whole record of this format.
    init?(bytes: [UInt8]) {
        let format = Array(Self.format.utf8)
        guard bytes.starts(with: format) else { return nil }
        var reader = RecordReader(bytes, in: format.count..<bytes.count)
        do {
            program = try reader.string()
            config = try reader.string()
            linkSurface = try reader.string()
            // Every entry takes a byte at least: no more of them than the bytes left.
            let count = try reader.count()
            // Bounded so that no sum of them overflows.
            let lengths = try reader.list { try $0.count(atMost: Int(Int32.max)) }
            // The runs as ``encodedRuns(count:entry:)`` cuts them, each to the end of the bytes.
            guard lengths.count == (count + Self.runLength - 1) / Self.runLength else { return nil }
            let places = Compiler.runs(of: count, length: Self.runLength)
            var start = reader.bytesRead
            let runs = lengths.map { length in
                defer { start += length }
                return start..<start + length
            }
            guard places.count == runs.count, start == bytes.count else { return nil }
            let decoded = Compiler.parallelMap(Array(runs.indices)) { run -> [Entry]? in
                var reader = RecordReader(bytes, in: runs[run])
                let entries = try? places[run].map { _ in try Self.entry(from: &reader) }
                return reader.atEnd ? entries : nil
            }
            var notes: [Entry] = []
            notes.reserveCapacity(count)
            for run in decoded {
                guard let run else { return nil }
                notes += run
            }
            // Every place a guide read is one of the record's notes.
            guard notes.allSatisfy({ $0.guide?.reads.allSatisfy(notes.indices.contains) ?? true }) else { return nil }
            self.notes = notes
        } catch {
            return nil
        }
    }

    /// Writes the entry of a note.
    private static func write(_ note: Entry, into writer: inout RecordWriter) {
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
        writer.write(guide.id)
        writer.write(guide.idPosition)
        writer.write(guide.locale)
        writer.write(guide.explicitLocale)
        writer.write(guide.aliases)
        writer.write(guide.basePath)
        writer.write(guide.frontmatterID)
        writer.write(guide.frontmatterKind)
        writer.write(guide.frontmatterType)
        write(guide.parseDiagnostics, into: &writer)
        write(guide.diagnostics, into: &writer)
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

    /// One note's entry, as ``write(_:into:)`` wrote it.
    private static func entry(from reader: inout RecordReader) throws -> Entry {
        var entry = Entry(path: try reader.string(), sha256: try reader.string())
        if try reader.bool() {
            entry.stamp = FileStamp(
                size: try reader.int64(), inode: UInt64(bitPattern: try reader.int64()),
                modifiedSeconds: try reader.int64(), modifiedNanoseconds: try reader.int64(),
                changedSeconds: try reader.int64(), changedNanoseconds: try reader.int64())
        }
        guard try reader.bool() else { return entry }
        let id = try reader.string()
        let (idPosition, locale, explicitLocale) = (try reader.position(), try reader.string(), try reader.bool())
        let aliases = try reader.strings()
        let basePath = try reader.string()
        let frontmatter = (try reader.optionalString(), try reader.optionalString(), try reader.optionalString())
        let (parseDiagnostics, diagnostics) = (try Self.diagnostics(from: &reader), try Self.diagnostics(from: &reader))
        let reads = try reader.list { try $0.int() }
        let assets = try reader.list { AssetUse(path: try $0.string(), bundled: try $0.bool(), state: try $0.string()) }
        let indexEntry = ContentIndex.Entry(
            id: try reader.string(), uuid: try reader.string(), title: try reader.string(),
            subtitle: try reader.optionalString(), category: try reader.optionalString(),
            type: try reader.optionalString(), tags: try reader.strings(), order: try reader.optionalInt(),
            locale: try reader.string())
        entry.guide = KeptGuide(
            id: id, idPosition: idPosition, locale: locale, explicitLocale: explicitLocale, aliases: aliases,
            basePath: basePath, frontmatterID: frontmatter.0, frontmatterKind: frontmatter.1,
            frontmatterType: frontmatter.2, parseDiagnostics: parseDiagnostics, diagnostics: diagnostics,
            reads: reads, assets: assets, entry: indexEntry, bundleSHA256: try reader.string(),
            bundleSize: try reader.int())
        return entry
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

/// A vault file a document embeds: in the bundle, or on its page alone.
struct AssetUse: Sendable, Hashable {
    var path: String
    var bundled: Bool
    /// The content hash, or why the file could not be read.
    var state: String
}
