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
    ///   of readers hold the lock together, and none while a build writes. A writer stops at
    ///   once when another build writes, and waits while only readers hold the lock: they hold
    ///   it for as long as they look at the folder's files.
    init?(for output: URL, shared: Bool = false) throws {
        var descriptor = open(Self.file(for: output).path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        if descriptor < 0 { descriptor = open(output.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW) }
        guard descriptor >= 0 else { return nil }
        func another() -> LockerError {
            close(descriptor)
            return LockerError.io("another build is writing into \(output.path); run this one when it is done")
        }
        while flock(descriptor, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK else {
                // A file system without locks.
                close(descriptor)
                return nil
            }
            if shared { throw another() }
            // Readers alone leave room for one more reader; a writer leaves none.
            guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { throw another() }
            flock(descriptor, LOCK_UN)
            usleep(10_000)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
