import Foundation

/// What a build has put in its output so far, from any thread: each file's marker entry, the
/// files written anew, and how many were kept from the previous build.
final class OutputLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: OutputWriter.RecordedFile] = [:]
    private var writtenPaths: [String] = []
    private var keptCount = 0

    /// A file written anew.
    func wrote(_ path: String, _ entry: OutputWriter.RecordedFile) {
        lock.lock()
        entries[path] = entry
        writtenPaths.append(path)
        lock.unlock()
    }

    /// A file of the previous build kept as it is: with its bytes (`reused` false) or, for a
    /// page, with its inputs unchanged (`reused` true, counted in ``reused``).
    func kept(_ path: String, _ entry: OutputWriter.RecordedFile, reused: Bool) {
        lock.lock()
        entries[path] = entry
        if reused { keptCount += 1 }
        lock.unlock()
    }

    /// Every file, by path, as the marker lists them.
    var files: [String: OutputWriter.RecordedFile] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    /// The files written anew.
    var written: [String] {
        lock.lock()
        defer { lock.unlock() }
        return writtenPaths
    }

    /// How many files were kept because their inputs were unchanged.
    var reused: Int {
        lock.lock()
        defer { lock.unlock() }
        return keptCount
    }
}
