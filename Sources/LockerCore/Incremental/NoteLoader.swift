import Foundation
import LockerKit

/// Reads and parses, once each, the notes a build kept unread from the previous build's record
/// (``ParsedNote/isHollow``) when it turns out to need their text: a note that links to a heading
/// of an edited note is built again, and so is read.
///
/// The note must still have the content hash it was recorded with: one saved again while the
/// build runs is a ``problems`` entry, which fails the build, rather than a mix of two versions.
final class NoteLoader: @unchecked Sendable {
    private let vault: URL
    private let parser: NoteParser
    /// Each note's content hash, by its place among the vault's notes.
    private let hashes: [String]
    private let lock = NSLock()
    private var loaded: [Int: ParsedNote] = [:]
    private var found: [Diagnostic] = []

    init(vault: URL, parser: NoteParser, hashes: [String]) {
        self.vault = vault
        self.parser = parser
        self.hashes = hashes
    }

    /// Why a note could not be loaded as it was recorded, if any could not.
    var problems: [Diagnostic] {
        lock.lock()
        defer { lock.unlock() }
        return found
    }

    /// The note at `place` whole; `hollow` itself when it cannot be read as it was recorded
    /// (a ``problems`` entry says so).
    func whole(_ place: Int, _ hollow: ParsedNote) -> ParsedNote {
        lock.lock()
        let known = loaded[place]
        lock.unlock()
        if let known { return known }
        // Parsed without the lock, so that notes load side by side; two threads after the same
        // note parse it twice and keep the first.
        let parsed = load(place, hollow)
        lock.lock()
        defer { lock.unlock() }
        if let known = loaded[place] { return known }
        switch parsed {
        case .note(let note):
            loaded[place] = note
            return note
        case .problem(let problem):
            if !found.contains(problem) { found.append(problem) }
            return hollow
        }
    }

    private enum Loaded {
        case note(ParsedNote)
        case problem(Diagnostic)
    }

    private func load(_ place: Int, _ hollow: ParsedNote) -> Loaded {
        let path = hollow.path
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.contents(of: vault.appendingPathComponent(path).path)
        } catch {
            return .problem(Diagnostic(.error, .fileUnreadable, "cannot read the file: \(error)", file: path))
        }
        guard place < hashes.count, ContentHash.sha256Hex(bytes) == hashes[place],
            let note = parser.parse(path: path, bytes: bytes).0
        else {
            return .problem(
                Diagnostic(
                    .error, .fileUnreadable, "the file changed while the vault was being built",
                    file: path, hint: "build again"))
        }
        return .note(note)
    }
}
