import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on an output folder for as long as a build writes into it: a second
/// `locker build` into the same folder stops at once instead of interleaving its commit with
/// the first's. The lock goes with the process, so a build that was killed leaves none behind.
final class OutputLock: Sendable {
    private let descriptor: Int32

    /// Locks `folder`; nil when there is no folder yet (a first build writes beside it and swaps
    /// it in whole). Throws when another build holds it.
    init?(_ folder: URL) throws {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(descriptor)
            if reason == EWOULDBLOCK {
                throw LockerError.io(
                    "another build is writing into \(folder.path); run this one when it is done")
            }
            throw LockerError.io("cannot lock \(folder.path): \(String(cString: strerror(reason)))")
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
