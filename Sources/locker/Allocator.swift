import Foundation
import LockerCore

#if canImport(CMimalloc)
    import CMimalloc
    import Glibc
#endif

/// The memory allocator's settings, and the thread the program runs on after them.
///
/// On Linux `locker` is linked with mimalloc, which takes over `malloc` for the whole process.
/// By default it maps memory in 4 KiB pages, each zeroed by the kernel on its first touch, and
/// the page faults were a large part of a build's CPU, even of a rebuild of one note. In 2 MiB
/// pages (the kernel's transparent huge pages, asked for with `madvise`), committed as soon as
/// they are mapped, there are far fewer faults, for a little more peak memory
/// (`Benchmarks/README.md`).
///
/// mimalloc reads its settings from the environment when the process starts, and a thread keeps
/// the memory it has taken by then: the main thread's first segment (32 MiB) is mapped before
/// `main`, when the libraries' start-up first allocates, in small pages. So the options are set
/// first thing, and the command runs on a thread started after them, whose memory is mapped under
/// them (most of a one-note rebuild's page faults were the main thread's).
enum Allocator {
    /// Sets the options, then runs `body` on a thread of its own and waits for it to end; runs
    /// it on this thread when no thread can be started (a limit on processes, say).
    static func run(_ body: @escaping @Sendable () -> Void) {
        #if canImport(CMimalloc)
            mi_option_enable(mi_option_large_os_pages)
            // Committed at once from a thread's first memory, not its second.
            mi_option_set(mi_option_eager_commit_delay, 0)
            // The main thread's stack, as `ulimit -s` gives it on Linux by default.
            if !WorkerThread.run(stackSize: 8 << 20, body) { body() }
        #else
            body()
        #endif
    }
}
