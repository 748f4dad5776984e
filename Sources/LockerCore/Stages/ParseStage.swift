import Foundation
import LockerKit

/// What the parse stage made of the vault's notes: each note's tree and frontmatter
/// (``ParsedNote``), and what the incremental build keeps of it.
struct ParsedVault: Sendable {
    /// What parsing one note gave: the note (nil when it could not be read), its diagnostics, its
    /// content hash when the record wants it, and its stamp when the record does.
    typealias Result = (note: ParsedNote?, diagnostics: [Diagnostic], sha256: String?, stamp: FileStamp?)

    /// The notes read, in the vault's order; a guide in outline when the parse outlined guides
    /// (``ParsedNote/Holding/outline``).
    var notes: [ParsedNote] = []
    /// Each note's content hash ("" when no record is written), by its place in ``notes``.
    var hashes: [String] = []
    /// Each note's file as the scan listed it (``VaultFile/absolutePath``), by its place in
    /// ``notes``: where a note is read again (``NoteLoader``).
    var files: [String] = []
    /// For the next build's record: each note's stamp, and a guide's parse diagnostics, by its
    /// place in ``notes``; empty when no record is written.
    var stamps: [FileStamp?] = []
    var guideDiagnostics: [[Diagnostic]] = []
    /// Every note's diagnostics, in the vault's order; of a guide in outline, those of its
    /// frontmatter: the documents stage reads its body, and reports what that finds.
    var diagnostics: [Diagnostic] = []
    /// What each note's parse gave, kept with the rest for a one-shot build to exit without
    /// freeing it.
    var results: [Result] = []
    /// The time before which a note's stamp had settled when the parse began: only such a stamp
    /// goes into the record (``Compiler/settlingTime``).
    var settled: Int64 = 0

    /// The notes, moved out for the index stage, which gathers decks' notes in place.
    mutating func takeNotes() -> [ParsedNote] {
        defer { notes = [] }
        return notes
    }
}

extension Compiler {
    /// The parse stage: every note read and parsed on every core; a guide the previous build's
    /// `record` holds with the same stamp, or the same content hash, stands unread as a hollow
    /// note (``ParsedNote/hollow(path:kept:)``). `recording`: whether this build writes a record;
    /// a build that does, and so knows each note's content hash, holds a guide in outline
    /// when `outlining` (``ParsedNote/Holding/outline``).
    func parse(
        _ files: [VaultFile], settings: Settings, record: NoteRecord?, recording: Bool, outlining: Bool
    ) -> ParsedVault {
        var parsed = ParsedVault()
        // A stamp goes into the record only when the note had not changed for `settlingTime`
        // before it was read: taken now, before any note is read.
        parsed.settled = Int64(time(nil)) - Int64(settlingTime)
        parsed.results = parseNotes(
            files, config: settings.config, configHash: settings.hash, previous: record, hashing: recording,
            outlining: outlining)
        for (place, (note, noteDiagnostics, sha256, stamp)) in parsed.results.enumerated() {
            parsed.diagnostics += noteDiagnostics
            guard let note else { continue }
            parsed.notes.append(note)
            parsed.hashes.append(sha256 ?? "")
            parsed.files.append(files[place].absolutePath)
            if recording {
                parsed.stamps.append(stamp)
                parsed.guideDiagnostics.append(note.kind == .guide ? noteDiagnostics : [])
            }
        }
        return parsed
    }

    /// Each note parsed, with its content hash and stamp when the record wants them. A guide the
    /// previous build's record holds with the same stamp, or the same content hash, is not parsed:
    /// it stands as a hollow note (``ParsedNote/hollow(path:kept:)``).
    private func parseNotes(
        _ files: [VaultFile], config: VaultConfig, configHash: String, previous: NoteRecord?, hashing: Bool,
        outlining: Bool
    ) -> [ParsedVault.Result] {
        var scanning = NoteParser(config: config)
        scanning.outlines = outlines
        let parser = scanning
        let parsing = ProgressCounter(progress, .parsing, total: files.count)
        // Each note's entry in the record: at its own place while the vault lists the notes the
        // record does, in its order (the shape a record is kept under); else looked up by path.
        let recordedNotes = previous?.notes ?? []
        let aligned =
            recordedNotes.count == files.count
            // By place: zipping them copied every entry and file (their strings retained).
            && files.indices.allSatisfy { recordedNotes[$0].path.hasSameBytes(as: files[$0].path) }
        let recorded =
            aligned
            ? [:]
            : Dictionary(
                recordedNotes.enumerated().compactMap { $0.element.guide == nil ? nil : ($0.element.path, $0.offset) },
                uniquingKeysWith: { first, _ in first })
        return Self.parallelMap(Array(files.indices)) { place in
            defer { parsing.tick() }
            let file = files[place]
            let stamp = hashing ? file.stamp ?? FileStamp(path: file.absolutePath) : nil
            let entry = aligned ? recordedNotes[place] : recorded[file.path].map { recordedNotes[$0] }
            /// The note as the record keeps it, unread, when it has the recorded stamp or hash.
            func hollow(sha256: String?) -> ParsedVault.Result? {
                guard let entry, let guide = entry.guide,
                    sha256.map(entry.sha256.hasSameBytes(as:)) ?? (stamp != nil && entry.stamp == stamp)
                else { return nil }
                return (ParsedNote.hollow(path: file.path, kept: guide), guide.parseDiagnostics, entry.sha256, stamp)
            }
            if let kept = hollow(sha256: nil) { return kept }
            let bytes: [UInt8]
            do {
                bytes = try FileBytes.contents(of: file.absolutePath)
            } catch {
                return (
                    nil, [Diagnostic(.error, .fileUnreadable, "cannot read the file: \(error)", file: file.path)], nil,
                    stamp
                )
            }
            guard hashing else {
                let (note, diagnostics) = parser.parse(path: file.path, bytes: bytes)
                return (note, diagnostics, nil, stamp)
            }
            let sha256 = ContentHash.sha256Hex(bytes)
            if let kept = hollow(sha256: sha256) { return kept }
            let (note, diagnostics) = parser.parse(
                path: file.path, bytes: bytes, reading: outlining ? .outliningGuides : .whole)
            return (note, diagnostics, sha256, stamp)
        }
    }
}
