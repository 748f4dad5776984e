import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A thread of its own with a stack of a given size, for the command line's whole run.
///
/// Unlike Foundation's `Thread`, which goes on as if a thread it could not create had started,
/// it says whether the thread started.
public enum WorkerThread {
    /// Runs `body` on a new thread with a stack of `stackSize` bytes and waits for it to end;
    /// false when no thread could be started, and `body` did not run.
    public static func run(stackSize: Int, _ body: @escaping @Sendable () -> Void) -> Bool {
        #if os(Linux)
            guard let thread = thread(stackSize: stackSize, body) else { return false }
            pthread_join(thread, nil)
            return true
        #else
            body()
            return true
        #endif
    }

    #if os(Linux)
        /// A new thread running `body`, or nil when none could be created.
        private static func thread(stackSize: Int, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
            // Set up by `pthread_attr_init`, in memory of its own (the type's Swift initializer
            // is not visible here).
            let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
            pthread_attr_init(attributes)
            defer {
                pthread_attr_destroy(attributes)
                attributes.deallocate()
            }
            pthread_attr_setstacksize(attributes, stackSize)
            let job = Unmanaged.passRetained(Job(body))
            var thread: pthread_t = 0
            let started = pthread_create(
                &thread, attributes,
                { context in
                    guard let context else { return nil }
                    Unmanaged<Job>.fromOpaque(context).takeRetainedValue().body()
                    return nil
                }, job.toOpaque())
            guard started == 0 else {
                job.release()
                return nil
            }
            return thread
        }
    #endif

    /// What the thread runs, handed to it through `pthread_create`'s one pointer.
    private final class Job {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
