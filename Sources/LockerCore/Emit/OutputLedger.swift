import Foundation
import LockerKit

/// What a build has put in its output so far, from any thread: the previous build's files kept
/// as they are (by their line in its marker), the files written anew or kept with another entry,
/// and how many were kept from the previous build. At the commit it gives the new marker, made
/// mostly of the previous marker's lines, and what the build no longer has (``closing()``).
final class OutputLedger: @unchecked Sendable {
    private let lock = NSLock()
    /// The previous build's marker.
    let previous: OutputMarker
    /// The previous build's lines kept as they are, by place: 0 not kept, 1 kept, 2 kept and
    /// counted in ``reused``. Each line is one file, kept by one thread, so each is written
    /// without the lock, a byte of its own (a rebuild's kept files took the lock in turns on
    /// every core); read only once the build is done with them (``reused``, ``closing()``).
    private let keptLines: UnsafeMutableBufferPointer<UInt8>
    /// The files written anew, or kept under an entry other than the previous build's line.
    private var entries: [String: OutputWriter.RecordedFile] = [:]
    private var writtenPaths: [String] = []
    private var keptCount = 0

    init(previous: OutputMarker = .empty) {
        self.previous = previous
        keptLines = .allocate(capacity: previous.count)
        keptLines.initialize(repeating: 0)
    }

    deinit {
        keptLines.deallocate()
    }

    /// Marks the previous build's line `line` kept as it is.
    private func keep(line: Int, reused: Bool) {
        guard line >= 0, line < keptLines.count else { return }
        keptLines[line] = reused ? 2 : 1
    }

    /// A file written anew.
    func wrote(_ path: String, _ entry: OutputWriter.RecordedFile) {
        lock.lock()
        entries[path] = entry
        writtenPaths.append(path)
        lock.unlock()
    }

    /// A file of the previous build kept as it is (its line in the previous marker at `line`,
    /// its SHA-256 the one that line records), now made from `inputs`: with its bytes (`reused`
    /// false) or, for a page, with its inputs unchanged (`reused` true, counted in ``reused``).
    func kept(line: Int, path: String, inputs: String?, reused: Bool) {
        // The same entry as the previous build's goes into the next marker as its line.
        let same = previous.hasInputs(inputs, at: line)
        var entry: OutputWriter.RecordedFile?
        if !same {
            entry = previous.entry(at: line)
            entry?.inputs = inputs
        }
        guard let entry else { return keep(line: line, reused: reused) }
        lock.lock()
        entries[path] = entry
        if reused { keptCount += 1 }
        lock.unlock()
    }

    /// A file of the previous build kept as it is, with the inputs it recorded (its line at
    /// `line` in the previous marker): a page made from what it was made from.
    func kept(line: Int, reused: Bool) {
        keep(line: line, reused: reused)
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
        return keptCount + keptLines.count { $0 == 2 }
    }

    /// What the commit needs of the ledger.
    struct Closing {
        /// The new marker: in pieces, runs of the previous marker's lines (not copied) between
        /// the new lines; whole when the previous marker's lines cannot be copied.
        var marker: OutputFile
        /// The previous build's files this build does not have, in byte order.
        var removals: [String]
        /// Each removal paired with a file of this build whose path may be another spelling of it
        /// (``OutputWriter/Journal/twins``).
        var twins: [[String]]
    }

    /// The new marker, the removals and their twins. A file written anew wins over its
    /// previous line. The marker's lines come in byte order of their paths, as
    /// ``OutputWriter/markerText(_:record:)`` writes them: the previous marker's lines kept as they are,
    /// merged with the new ones.
    func closing(record: BuildRecord? = nil) -> Closing {
        lock.lock()
        var kept = keptLines.map { $0 != 0 }
        let entries = self.entries
        lock.unlock()
        var replaced = [Bool](repeating: false, count: previous.count)
        for path in entries.keys {
            if let line = previous.index(of: path) {
                kept[line] = false
                replaced[line] = true
            }
        }
        var removals: [String] = []
        for line in 0..<previous.count where !kept[line] && !replaced[line] {
            removals.append(previous.path(at: line))
        }
        removals = removals.utf8SortedOffsets().map { removals[$0] }

        let marker: OutputFile
        let paths = Array(entries.keys)
        let order = paths.utf8SortedOffsets()
        if previous.linesAreCopyable {
            var pieces: [ArraySlice<UInt8>] = [OutputWriter.markerStart(record: record)[...]]
            /// The new lines since the last run of kept ones.
            var newLines: [UInt8] = []
            /// Appends a new file's line.
            func appendNew(_ offset: Int) {
                let path = paths[offset]
                OutputWriter.appendLine(path: path, entry: entries[path] ?? .init(sha256: ""), to: &newLines)
            }
            /// Appends the kept lines `lines`, after the new lines before them.
            func appendKept(_ lines: Range<Int>) {
                if !newLines.isEmpty { pieces.append(newLines[...]) }
                newLines = []
                previous.appendLines(lines, to: &pieces)
            }
            // Runs of kept lines are taken whole, the new lines merged in between, each before
            // the first line whose path does not come before its own: found by halving the
            // sorted lines (compared with every kept line, the last new path was compared with
            // every previous path on the commit's one core).
            let places = order.map { previous.firstLine(notPreceding: paths[$0]) }
            var next = 0
            var run: Int?
            for line in 0..<previous.count {
                guard kept[line] else {
                    if let start = run { appendKept(start..<line) }
                    run = nil
                    continue
                }
                if next < order.count, line >= places[next] {
                    if let start = run { appendKept(start..<line) }
                    run = nil
                    while next < order.count, line >= places[next] {
                        appendNew(order[next])
                        next += 1
                    }
                }
                if run == nil { run = line }
            }
            if let start = run { appendKept(start..<previous.count) }
            for offset in order[next...] { appendNew(offset) }
            if !newLines.isEmpty { pieces.append(newLines[...]) }
            marker = OutputFile(path: OutputWriter.marker, pieces: pieces)
        } else {
            // A marker of an earlier `locker`, out of order or damaged: every line written anew.
            var files = entries
            for line in 0..<previous.count where kept[line] {
                files[previous.path(at: line)] = previous.entry(at: line)
            }
            marker = OutputFile(path: OutputWriter.marker, data: OutputWriter.markerText(files, record: record))
        }

        var twins = OutputWriter.Journal.TwinFinder(removals: removals)
        if !removals.isEmpty {
            previous.forEachPath { path, line in
                if kept[line] { twins.consider(path) { String(decoding: path, as: UTF8.self) } }
            }
            for path in paths {
                var text = path
                text.withUTF8 { bytes in twins.consider(bytes) { path } }
            }
        }
        return Closing(marker: marker, removals: removals, twins: twins.twins)
    }

}
