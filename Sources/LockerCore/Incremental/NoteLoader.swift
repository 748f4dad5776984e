import Foundation
import LockerKit

/// Reads and parses a note whose text the build does not hold when it turns out to need it: a
/// guide held in outline (``ParsedNote/Holding/outline``), to build it or a note that embeds it;
/// a note kept unread from the previous build's record (``ParsedNote/isHollow``), which a note
/// built again links to a heading of, say; or a guide whose tree the build let go once its
/// document was built (``ParsedNote/releaseBody()``). Each time: the build holds one note's
/// tree at a time.
///
/// The note must still have the content hash it was parsed or recorded with: one saved again
/// while the build runs is a ``problems`` entry, which fails the build, rather than a mix of two
/// versions. A note held in outline must have the outline its text gives: when one has not
/// (``OutlineScanner`` read it wrong), ``outlineFailed`` says so, and the compile parses every
/// note whole.
final class NoteLoader: Sendable {
    private let vault: URL
    private let parser: NoteParser
    /// Each note's content hash, by its place among the vault's notes.
    private let hashes: [String]
    /// Each note's file as the scan listed it, by its place (empty: the vault's path joined to the
    /// note's). A note's path is NFC; the name on disk may not be (a file from macOS on Linux).
    private let files: [String]
    private let found = Guarded<(problems: [Diagnostic], outlineFailed: Bool)>(([], false))

    init(vault: URL, parser: NoteParser, hashes: [String], files: [String] = []) {
        self.vault = vault
        self.parser = parser
        self.hashes = hashes
        self.files = files
    }

    /// Why a note could not be read as it was parsed or recorded, if any could not.
    var problems: [Diagnostic] { found.withLock { $0.problems } }

    /// Whether a note held in outline was read with another outline than its text gives.
    var outlineFailed: Bool { found.withLock { $0.outlineFailed } }

    /// The note at `place` whole; `held` itself when it cannot be read as it was parsed or
    /// recorded (a ``problems`` entry says so).
    func whole(_ place: Int, _ held: ParsedNote) -> ParsedNote { read(place, held).note }

    /// The note at `place` whole, and what reading it found: for a note held in outline, what
    /// its body has wrong; else everything (``NoteParser/Reading``).
    func read(_ place: Int, _ held: ParsedNote) -> (note: ParsedNote, diagnostics: [Diagnostic]) {
        let path = held.path
        let problem: Diagnostic
        do {
            let file = place < files.count ? files[place] : vault.appendingPathComponent(path).path
            let bytes = try FileBytes.contents(of: file)
            // A note held whole or in outline has all its frontmatter, read once.
            let reading: NoteParser.Reading = held.isHollow ? .whole : .body(of: held)
            if place < hashes.count, ContentHash.sha256Hex(bytes) == hashes[place],
                case (let note?, let diagnostics) = parser.parse(path: path, bytes: bytes, reading: reading)
            {
                if held.holding == .outline,
                    note.title != held.title || note.headings != held.headings || !note.blockIDs.isEmpty
                {
                    found.withLock { $0.outlineFailed = true }
                }
                // A guide that joined a deck below a folder note is one of the deck's notes.
                return (
                    held.kind == .deck && note.kind != .deck ? note.asDeckNote(id: held.id, locale: held.locale) : note,
                    diagnostics
                )
            }
            problem = Diagnostic(
                .error, .fileUnreadable, "the file changed while the vault was being built", file: path,
                hint: "build again")
        } catch {
            problem = Diagnostic(.error, .fileUnreadable, "cannot read the file: \(error)", file: path)
        }
        found.withLock { if !$0.problems.contains(problem) { $0.problems.append(problem) } }
        return (held, [])
    }
}
