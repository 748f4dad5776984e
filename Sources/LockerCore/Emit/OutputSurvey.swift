import Foundation

/// Which of the previous build's files are still the ones it wrote (same size, inode and
/// modification time): an `lstat` each, taken on a thread of its own as an ``OutputWriter/Update``
/// begins, while the vault is read and linked, which leaves a core idle for much of the time.
///
/// Until the survey is done (or when the folder cannot be opened), a file asked about is looked
/// at directly. A file
/// changed after it was surveyed is kept as the previous build's, as it would be if it changed
/// just after being looked at; the next build sees its new stamp and writes it again.
final class OutputSurvey: @unchecked Sendable {
    private let lock = NSLock()
    private let marker: OutputMarker
    /// Whether each of the marker's files is intact, by its line; nil until the survey is done.
    private var intact: [Bool]?
    /// Set when the update is discarded: the survey stops where it is.
    private var stopped = false

    init(output: String, marker: OutputMarker) {
        self.marker = marker
        let thread = Thread { [self] in
            let folder = open(output, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard folder >= 0 else { return }
            defer { close(folder) }
            var found: [Bool] = []
            found.reserveCapacity(marker.count)
            for run in Compiler.runs(of: marker.count, length: 1024) {
                if lock.withLock({ stopped }) { return }
                found += marker.stamps(of: run, in: folder)
            }
            lock.withLock { intact = found }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Stops the survey, if it still runs: the update it was for is discarded.
    func stop() { lock.withLock { stopped = true } }

    /// Whether the survey found the file of the marker's line `line` intact; nil while it runs.
    func isIntact(line: Int) -> Bool? {
        lock.withLock { intact.map { $0[line] } }
    }

    /// Whether the survey found `path`'s file intact (false when the marker does not list it);
    /// nil while it runs.
    func isIntact(_ path: String) -> Bool? {
        guard let line = marker.index(of: path) else { return lock.withLock { intact.map { _ in false } } }
        return isIntact(line: line)
    }
}
