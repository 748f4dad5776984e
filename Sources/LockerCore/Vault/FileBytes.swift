#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a whole file into bytes with the C library: one `read` into an array of the file's
/// size, more while the file has more.
///
/// Foundation's `Data(contentsOf:)` would copy into an array again, and on Linux leaks a 4 KiB
/// buffer for every empty file it reads (found by the vault fuzzer under LeakSanitizer), which
/// `locker serve` would do on every rebuild of a vault with an empty note.
enum FileBytes {
    /// Why a file could not be read, in the C library's words.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
    }

    /// The file's bytes, following symbolic links. Opened without blocking, so that a FIFO in
    /// the place of a file is refused (not a regular file) rather than wait for a writer.
    static func contents(of path: String) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw Failure(description: reason()) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(description: reason()) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw Failure(description: "not a regular file") }
        // One byte over the size, so that a file that grew since `fstat` is read on, not cut short.
        // Not zeroed first (the marker and the record are megabytes): `read` fills what is kept.
        var bytes = [UInt8](unsafeUninitializedCapacity: Int(status.st_size) + 1) { buffer, initialized in
            initialized = buffer.count
        }
        var count = 0
        while true {
            if count == bytes.count { bytes += repeatElement(0, count: bytes.count) }
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return read(descriptor, base + count, buffer.count - count)
            }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw Failure(description: reason())
            }
            count += got
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
