import Foundation
import LockerKit

/// Reads and parses again a note whose text the build does not hold when it turns out to need
/// it: a note kept unread from the previous build's record (``ParsedNote/isHollow``), which a
/// note built again links to a heading of, say; or a guide whose tree the build let go once its
/// document was built (``ParsedNote/releaseBody()``), for a note that embeds it. Each time: the
/// build holds one note's tree at a time, and such reads are few.
///
/// The note must still have the content hash it was parsed or recorded with: one saved again
/// while the build runs is a ``problems`` entry, which fails the build, rather than a mix of two
/// versions.
final class NoteLoader: Sendable {
    private let vault: URL
    private let parser: NoteParser
    /// Each note's content hash, by its place among the vault's notes.
    private let hashes: [String]
    /// Each note's file as the scan listed it, by its place (empty: the vault's path joined to the
    /// note's). A note's path is NFC; the name on disk may not be (a file from macOS on Linux).
    private let files: [String]
    private let found = Guarded<[Diagnostic]>([])

    init(vault: URL, parser: NoteParser, hashes: [String], files: [String] = []) {
        self.vault = vault
        self.parser = parser
        self.hashes = hashes
        self.files = files
    }

    /// Why a note could not be read as it was parsed or recorded, if any could not.
    var problems: [Diagnostic] { found.withLock { $0 } }

    /// The note at `place` whole; `held` itself when it cannot be read as it was parsed or
    /// recorded (a ``problems`` entry says so).
    func whole(_ place: Int, _ held: ParsedNote) -> ParsedNote {
        let path = held.path
        let problem: Diagnostic
        do {
            let file = place < files.count ? files[place] : vault.appendingPathComponent(path).path
            let bytes = try FileBytes.contents(of: file)
            if place < hashes.count, ContentHash.sha256Hex(bytes) == hashes[place],
                let note = parser.parse(path: path, bytes: bytes).0
            {
                return note
            }
            problem = Diagnostic(
                .error, .fileUnreadable, "the file changed while the vault was being built", file: path,
                hint: "build again")
        } catch {
            problem = Diagnostic(.error, .fileUnreadable, "cannot read the file: \(error)", file: path)
        }
        found.withLock { if !$0.contains(problem) { $0.append(problem) } }
        return held
    }
}
