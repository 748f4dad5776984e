import Foundation
import LockerCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Shows a long build's progress on one line of standard error (`parsing 4,213/10,000 notes`),
/// redrawn at most ten times a second and cleared when done; and, with `--timings`, how long each
/// phase took. Draws nothing when standard error is not a terminal, so logs and CI stay clean.
final class ProgressLine: BuildProgress, @unchecked Sendable {
    private let draws: Bool
    private let timings: Bool
    private let lock = NSLock()
    private var phase: BuildPhase?
    private var lastDraw: UInt64 = 0
    private var drawn = false
    /// Times the phases when `timings`.
    private let timer = PhaseTimer()
    private var details: [String] = []

    /// - Parameters:
    ///   - interactive: whether to draw; by default, when standard error is a terminal other than `dumb`.
    ///   - timings: whether ``finish()`` prints each phase's wall time.
    init(interactive: Bool? = nil, timings: Bool = false) {
        draws =
            interactive ?? (isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb")
        self.timings = timings
    }

    /// The counts are drawn, when the line is; the timer needs each phase's start only.
    var showsCounts: Bool { draws }

    func update(_ phase: BuildPhase, done: Int, total: Int) {
        if timings { timer.update(phase, done: done, total: total) }
        guard draws else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = DispatchTime.now().uptimeNanoseconds
        if phase != self.phase {
            self.phase = phase
        } else if now < lastDraw &+ 100_000_000, done != total {
            return
        }
        lastDraw = now
        var line = phase.rawValue
        if total > 0 {
            line += " \(Self.grouped(done))/\(Self.grouped(total)) \(phase.unit)"
        }
        write("\r\u{1B}[2K" + line + "…")
        drawn = true
    }

    /// Clears the line and prints the timings, if asked for.
    func finish() {
        let durations = timer.finish()
        lock.lock()
        defer { lock.unlock() }
        phase = nil
        clearLine()
        guard timings, !durations.isEmpty else { return }
        write(PhaseTimer.report(durations) + details.joined())
        details = []
    }

    /// A line under the phases' timings, for what is measured across them:
    /// `templates   1.120 s of CPU, 10,002 pages at 112 µs`.
    func detail(_ name: String, seconds: Double, _ text: String) {
        guard timings else { return }
        lock.lock()
        defer { lock.unlock() }
        details.append(PhaseTimer.row(name, seconds) + " " + text + "\n")
    }

    /// Draws `text` as the line (at most ten times a second), for work that is not a build's
    /// phase: `locker sync`'s downloads.
    func show(_ text: String) {
        guard draws else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now >= lastDraw &+ 100_000_000 else { return }
        lastDraw = now
        write("\r\u{1B}[2K" + text + "…")
        drawn = true
    }

    /// Clears the line, so other output can be printed; the next update draws it again.
    func clear() {
        lock.lock()
        defer { lock.unlock() }
        clearLine()
    }

    private func clearLine() {
        if drawn { write("\r\u{1B}[2K") }
        drawn = false
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// `10,000`: thousands grouped, the same in every locale.
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }
}
