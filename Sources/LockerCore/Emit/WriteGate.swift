import Foundation

/// Lets writers in until it is closed; ``close()`` waits for the writers already in, so that
/// what they wrote can be removed after them: a build is discarded (Ctrl-C) from one thread
/// while its files are written from others.
final class WriteGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var inside = 0
    private var closed = false

    /// Runs `body` as a writer; throws without running it once the gate is closed.
    func pass<T>(_ body: () throws -> T) throws -> T {
        try condition.withLock {
            guard !closed else { throw LockerError.io("the build was stopped") }
            inside += 1
        }
        defer {
            condition.withLock { inside -= 1 }
            condition.broadcast()
        }
        return try body()
    }

    /// Runs `body` unless the gate is closed, keeping it from closing meanwhile; returns
    /// whether it ran.
    @discardableResult
    func ifOpen(_ body: () -> Void) -> Bool {
        (try? pass(body)) != nil
    }

    /// Closes the gate and returns once no writer is inside.
    func close() {
        condition.withLock {
            closed = true
            while inside > 0 { condition.wait() }
        }
    }
}
