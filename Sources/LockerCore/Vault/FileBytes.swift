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

    /// `prefix`, then the bytes of each file at `paths`, which has the size `sizes` gives at the
    /// same place, in one array: files that a reader joins are read where they go, not copied
    /// there. Every file is opened, and its size checked, before the array is made: sizes
    /// from a damaged file never ask for more memory than the files hold. Throws when a file
    /// cannot be read or has another size.
    static func contents(of paths: [String], sizes: [Int], after prefix: [UInt8]) throws(Failure) -> [UInt8] {
        guard paths.count == sizes.count else { throw Failure(description: "not the sizes of the files") }
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        for (path, size) in zip(paths, sizes) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { throw Failure(description: reason()) }
            descriptors.append(descriptor)
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { throw Failure(description: reason()) }
            guard (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) == size else {
                throw Failure(description: "not a regular file of \(size) bytes")
            }
        }
        var total = prefix.count
        for size in sizes {
            let (sum, overflow) = total.addingReportingOverflow(size)
            guard !overflow, size >= 0 else { throw Failure(description: "too large") }
            total = sum
        }
        var failure: Failure?
        let bytes = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else { return }
            prefix.withUnsafeBufferPointer { prefix in
                if let start = prefix.baseAddress { base.initialize(from: start, count: prefix.count) }
            }
            var offset = prefix.count
            for (descriptor, size) in zip(descriptors, sizes) {
                do throws(Failure) {
                    try fill(base + offset, from: descriptor, size: size)
                } catch {
                    failure = error
                    return
                }
                offset += size
            }
            initialized = total
        }
        if let failure { throw failure }
        return bytes
    }

    /// Reads `size` bytes, the whole of the open regular file `descriptor`, into `destination`.
    private static func fill(
        _ destination: UnsafeMutablePointer<UInt8>, from descriptor: Int32, size: Int
    ) throws(Failure) {
        var count = 0
        while count < size {
            let got = read(descriptor, destination + count, size - count)
            if got == 0 { throw Failure(description: "shorter than \(size) bytes") }
            if got < 0 {
                if errno == EINTR { continue }
                throw Failure(description: reason())
            }
            count += got
        }
        // Grown since: not the file of that size.
        var extra: UInt8 = 0
        guard read(descriptor, &extra, 1) == 0 else { throw Failure(description: "longer than \(size) bytes") }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
