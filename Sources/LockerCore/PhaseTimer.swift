import Foundation

/// The wall time of each phase of a compilation, for `--timings`: a phase lasts from its first
/// update to the next phase's first update, or to ``finish()``.
public final class PhaseTimer: BuildProgress, @unchecked Sendable {
    private let lock = NSLock()
    private var phase: BuildPhase?
    private var phaseStart: UInt64 = 0
    private var durations: [(phase: BuildPhase, seconds: Double)] = []

    public init() {}

    /// Only a phase's start is timed.
    public var showsCounts: Bool { false }

    public func update(_ phase: BuildPhase, done: Int, total: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard phase != self.phase else { return }
        // Read under the lock, so times only grow.
        let now = DispatchTime.now().uptimeNanoseconds
        endPhase(at: now)
        self.phase = phase
        phaseStart = now
    }

    /// Ends the phase under way; returns every phase's wall time, in order, and starts over.
    public func finish() -> [(phase: BuildPhase, seconds: Double)] {
        lock.lock()
        defer { lock.unlock() }
        endPhase(at: DispatchTime.now().uptimeNanoseconds)
        phase = nil
        let finished = durations
        durations = []
        return finished
    }

    /// A line per phase and one for their total, as `--timings` prints them:
    /// `rendering   1.120 s`; empty when no phase was timed.
    public static func report(_ durations: [(phase: BuildPhase, seconds: Double)]) -> String {
        guard !durations.isEmpty else { return "" }
        var out = ""
        for (phase, seconds) in durations {
            out += row(phase.rawValue, seconds) + "\n"
        }
        return out + row("total", durations.reduce(0) { $0 + $1.seconds }) + "\n"
    }

    /// `rendering   1.120 s`: a name, then seconds.
    public static func row(_ name: String, _ seconds: Double) -> String {
        name.padding(toLength: 10, withPad: " ", startingAt: 0) + String(format: "%7.3f s", seconds)
    }

    private func endPhase(at now: UInt64) {
        guard let phase else { return }
        durations.append((phase, Double(now > phaseStart ? now - phaseStart : 0) / 1e9))
    }
}
