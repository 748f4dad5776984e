import Foundation

/// Which of the previous build's files are still the ones it wrote (same size, inode and
/// modification time): an `lstat` each, taken on a thread of its own as an ``OutputWriter/Update``
/// begins, while the vault is read and linked, which leaves a core idle for much of the time.
///
/// The survey goes through the marker in order, a run of lines at a time, and says how far it
/// has come after each run. A build asking about a file the survey has not reached yet waits for
/// it rather than look at the file itself: the survey reaches the bundle's files first, then the
/// site's, the order in which a build asks, and a file looked at twice cost the build as much as
/// the wait. Only when the survey has stopped, or could not open the folder, is a file asked
/// about looked at directly.
///
/// A file changed after it was surveyed is kept as the previous build's, as it would be if it
/// changed just after being looked at; the next build sees its new stamp and writes it again.
final class OutputSurvey: @unchecked Sendable {
    private let condition = NSCondition()
    private let marker: OutputMarker
    /// Whether each of the marker's files is intact, by its line: the first ``surveyed`` are known.
    private var intact: [Bool]
    /// How many of the marker's lines the survey has been through, in order.
    private var surveyed = 0
    /// Set when the survey will go no further: done, stopped, unable to open the folder, or
    /// without a thread to run on.
    private var finished = false
    /// Set when the update is discarded: the survey stops where it is.
    private var stopped = false

    init(output: String, marker: OutputMarker) {
        self.marker = marker
        intact = [Bool](repeating: false, count: marker.count)
        let running = WorkerThread.start { [self] in
            defer {
                condition.withLock { finished = true }
                condition.broadcast()
            }
            let folder = open(output, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard folder >= 0 else { return }
            defer { close(folder) }
            for run in Compiler.runs(of: marker.count, length: 512) {
                if condition.withLock({ stopped }) { return }
                let found = marker.stamps(of: run, in: folder)
                condition.withLock {
                    intact.replaceSubrange(run, with: found)
                    surveyed = run.upperBound
                }
                condition.broadcast()
            }
        }
        if !running { finished = true }
    }

    /// Stops the survey, if it still runs: the update it was for is discarded.
    func stop() {
        condition.withLock { stopped = true }
        condition.broadcast()
    }

    /// Whether the survey found the file of the marker's line `line` intact, once it has been
    /// through that line; nil when it will not get there (stopped, no folder to look in, no
    /// thread to look from).
    func isIntact(line: Int) -> Bool? {
        condition.lock()
        defer { condition.unlock() }
        while line >= surveyed, !finished { condition.wait() }
        return line < surveyed ? intact[line] : nil
    }

    /// Whether the survey found `path`'s file intact (false when the marker does not list it);
    /// nil when it will not get to it.
    func isIntact(_ path: String) -> Bool? {
        guard let line = marker.index(of: path) else { return false }
        return isIntact(line: line)
    }
}
