import Foundation

/// Which of the previous build's files are still the ones it wrote (same size, inode and
/// modification time): an `lstat` each, taken on a thread of its own as an ``OutputWriter/Update``
/// begins, while the vault is read and linked, which leaves a core idle for much of the time.
///
/// The marker's lines are surveyed in runs, in order. A build asking about a file whose run has
/// not been surveyed yet surveys that run itself, and one asking about a file whose run is being
/// surveyed waits for it: no file is looked at twice (each was, when the build outran the
/// survey), and once the build catches up with the survey the runs left are surveyed on every
/// core. Only when the survey has been stopped, or the folder cannot be opened, is a file asked
/// about looked at directly.
///
/// A file changed after it was surveyed is kept as the previous build's, as it would be if it
/// changed just after being looked at; the next build sees its new stamp and writes it again.
final class OutputSurvey: @unchecked Sendable {
    private let condition = NSCondition()
    /// The output folder, as a C string made on the thread that starts the survey: a path made
    /// into one for `open` on the survey's thread would be its first memory from the allocator.
    private let output: ContiguousArray<CChar>
    private let marker: OutputMarker
    private let runs: [Range<Int>]
    /// Whether each of the marker's files is intact, by its line, once its run is ``Run/done``.
    private var intact: [Bool]
    private var state: [Run]
    /// Set when the update is discarded: no run is started after it.
    private var stopped = false

    /// Where a run of lines stands.
    private enum Run {
        case waiting, underway, done
        /// Could not be surveyed (no folder to look in): its files are looked at one by one.
        case failed
    }

    /// How many lines a run holds.
    static let runLength = 512

    init(output: String, marker: OutputMarker) {
        self.output = output.utf8CString
        self.marker = marker
        runs = Compiler.runs(of: marker.count, length: Self.runLength)
        intact = [Bool](repeating: false, count: marker.count)
        state = [Run](repeating: .waiting, count: runs.count)
        // Without a thread, the build surveys every run itself, as it asks.
        _ = WorkerThread.start { [self] in
            for run in runs.indices { survey(run, waiting: false) }
        }
    }

    /// Stops the survey, if it still runs: the update it was for is discarded.
    func stop() {
        condition.withLock { stopped = true }
        condition.broadcast()
    }

    /// Whether the file of the marker's line `line` is intact, as its run's survey found it;
    /// nil when the run cannot be surveyed (the survey was stopped, or the folder cannot be
    /// opened).
    func isIntact(line: Int) -> Bool? {
        let run = line / Self.runLength
        guard line >= 0, line < intact.count, run < runs.count else { return nil }
        // Most runs are done by the time they are asked about: one lock, not the survey's two.
        if let answer = condition.withLock({ state[run] == .done ? intact[line] : nil }) { return answer }
        survey(run)
        return condition.withLock { state[run] == .done ? intact[line] : nil }
    }

    /// Whether the survey found `path`'s file intact (false when the marker does not list it);
    /// nil when its run cannot be surveyed.
    func isIntact(_ path: String) -> Bool? {
        guard let line = marker.index(of: path) else { return false }
        return isIntact(line: line)
    }

    /// Surveys the run at `run`, unless it is done, or underway (then, when `waiting`, waits
    /// for it to be done), or the survey is stopped.
    private func survey(_ run: Int, waiting: Bool = true) {
        condition.lock()
        while waiting, state[run] == .underway { condition.wait() }
        guard state[run] == .waiting, !stopped else {
            condition.unlock()
            return
        }
        state[run] = .underway
        condition.unlock()
        let folder = output.withUnsafeBufferPointer { path in
            path.baseAddress.map { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1
        }
        let range = runs[run]
        // The answers on the stack (a run's few hundred bytes): the survey's thread takes no
        // memory from the allocator.
        withUnsafeTemporaryAllocation(of: Bool.self, capacity: range.count) { found in
            if folder >= 0 {
                marker.stamps(of: range, in: folder, into: found)
                close(folder)
            }
            condition.withLock {
                if folder >= 0 {
                    for (line, answer) in zip(range, found) { intact[line] = answer }
                    state[run] = .done
                } else {
                    state[run] = .failed
                }
            }
        }
        condition.broadcast()
    }
}
