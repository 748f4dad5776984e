import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Process {
    /// Starts the process with no signal blocked.
    ///
    /// A child starts with its parent thread's signal mask, and tests run on Dispatch's worker
    /// threads, which block most signals: an nginx started from a test ignored the SIGTERM of
    /// ``terminate()`` (SIGTERM stayed pending) and the test waited for ever.
    func runWithSignalsUnblocked() throws {
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try run()
    }

    /// Stops the process with SIGTERM and waits for it; SIGKILL after `grace` seconds, so a
    /// server that ignores SIGTERM cannot hold a test for ever.
    func stopAndWait(grace: TimeInterval = 5) {
        if isRunning { terminate() }
        let deadline = Date().addingTimeInterval(grace)
        while isRunning, Date() < deadline { usleep(1_000) }
        if isRunning { kill(processIdentifier, SIGKILL) }
        waitUntilExit()
    }

    /// Waits until the process ends or `deadline` passes; returns whether it ended. It polls
    /// ``isRunning`` every millisecond: `waitUntilExit()` on Linux turns the run loop in steps of
    /// up to 50 ms, which made each of the kill trials 40 ms longer.
    @discardableResult
    func wait(until deadline: Date) -> Bool {
        while isRunning, Date() < deadline { usleep(1_000) }
        return !isRunning
    }
}
