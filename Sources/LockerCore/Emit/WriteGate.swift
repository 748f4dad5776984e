import Foundation

/// Lets writers in until it is closed; ``close()`` waits for the writers already in, so that
/// what they wrote can be cleaned up after them.
///
/// A build is discarded (Ctrl-C) from one thread while its files are written from others: without
/// the gate, a file created just after the clean-up would be left behind.
final class WriteGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var inside = 0
    private var closed = false

    /// Runs `body` as a writer; throws without running it once the gate is closed.
    func pass<T>(_ body: () throws -> T) throws -> T {
        condition.lock()
        guard !closed else {
            condition.unlock()
            throw LockerError.io("the build was stopped")
        }
        inside += 1
        condition.unlock()
        defer {
            condition.lock()
            inside -= 1
            if inside == 0 { condition.broadcast() }
            condition.unlock()
        }
        return try body()
    }

    /// Closes the gate and returns once no writer is inside.
    func close() {
        condition.lock()
        closed = true
        while inside > 0 { condition.wait() }
        condition.unlock()
    }
}
