import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` held for as long as a build writes its output folder: a second
/// `locker build` into the same folder stops at once instead of interleaving its files with the
/// first's. The lock goes with the process, so a build that was killed leaves none held.
///
/// The lock is on a file beside the output folder, `.<name>.lock` (as Hugo keeps
/// `.hugo_build.lock`): it exists before a first build, and outlives the swap that renames a
/// first build's staging folder into place, which a lock on the folder itself would not. The
/// file stays; removing a lock file races with the next build that opens it. Where it cannot be
/// created (a parent folder the user cannot write), the output folder itself is locked; where
/// the file system has no locks (some network volumes), the build goes on without one.
final class OutputLock: Sendable {
    private let descriptor: Int32

    /// The lock file of the output folder `output`.
    static func file(for output: URL) -> URL {
        output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).lock")
    }

    /// Locks `output`; nil when neither the lock file nor the folder can be opened, or the file
    /// system has no locks. Throws when another build holds the lock.
    ///
    /// - Parameter shared: for reading the folder (the check that it is up to date): any number
    ///   of readers hold the lock together, and none while a build writes. A writer waits up to
    ///   a second for readers, which hold it for a moment, before it gives up.
    init?(for output: URL, shared: Bool = false) throws {
        var descriptor = open(Self.file(for: output).path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        if descriptor < 0 { descriptor = open(output.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW) }
        guard descriptor >= 0 else { return nil }
        let operation = (shared ? LOCK_SH : LOCK_EX) | LOCK_NB
        var attempts = shared ? 1 : 50
        while flock(descriptor, operation) != 0 {
            let reason = errno
            attempts -= 1
            guard reason == EWOULDBLOCK, attempts > 0 else {
                close(descriptor)
                if reason == EWOULDBLOCK {
                    throw LockerError.io("another build is writing into \(output.path); run this one when it is done")
                }
                return nil
            }
            usleep(20_000)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
