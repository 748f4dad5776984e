import Foundation

/// A stage of a compilation, as a progress display names it.
public enum BuildPhase: String, Sendable, CaseIterable {
    /// Listing the vault's files.
    case scanning
    /// Reading and parsing notes.
    case parsing
    /// Resolving links and building documents.
    case linking
    /// Encoding and writing the bundle's files.
    case bundling
    /// Rendering and writing the site's pages.
    case rendering
    /// Syncing the output and swapping it in.
    case finishing

    /// What the counted things are, for a progress line.
    public var unit: String {
        switch self {
        case .scanning, .parsing, .linking: "notes"
        case .bundling: "documents"
        case .rendering: "pages"
        case .finishing: ""
        }
    }
}

/// Receives a compilation's progress: a phase, and how much of it is done.
///
/// Called from several threads at once and often (once per note, document or page); a receiver
/// that draws must throttle and lock itself. ``Compiler`` calls it only when one is given.
public protocol BuildProgress: Sendable {
    /// `done` of `total` things of `phase` are finished; `total` is 0 when not known.
    func update(_ phase: BuildPhase, done: Int, total: Int)

    /// Whether it shows how much of a phase is done (a progress line drawn on a terminal does):
    /// when not, a compilation tells it of each phase's start only, not of each of the
    /// thousands of notes, documents and pages finished, which took a lock each on every core.
    var showsCounts: Bool { get }
}

extension BuildProgress {
    public var showsCounts: Bool { true }
}

/// Counts finished things of one phase from several threads and reports each to a receiver.
final class ProgressCounter: @unchecked Sendable {
    private let progress: (any BuildProgress)?
    private let phase: BuildPhase
    private let total: Int
    private var done = 0
    private let lock = NSLock()

    init(_ progress: (any BuildProgress)?, _ phase: BuildPhase, total: Int) {
        // Ticks go only to a receiver that shows them; every receiver learns the phase began.
        self.progress = progress?.showsCounts == true ? progress : nil
        self.phase = phase
        self.total = total
        progress?.update(phase, done: 0, total: total)
    }

    /// One more thing is finished.
    func tick() {
        guard let progress else { return }
        lock.lock()
        done += 1
        let now = done
        lock.unlock()
        progress.update(phase, done: now, total: total)
    }
}
