import Foundation

/// A file's size, inode, and modification and change times to the nanosecond: what changes
/// when it is saved. Compared as numbers; ``text`` writes it down.
struct FileStamp: Hashable, Sendable {
    var size: Int64
    var inode: UInt64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64
    var changedSeconds: Int64
    var changedNanoseconds: Int64

    init(
        size: Int64, inode: UInt64, modifiedSeconds: Int64, modifiedNanoseconds: Int64, changedSeconds: Int64,
        changedNanoseconds: Int64
    ) {
        self.size = size
        self.inode = inode
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedSeconds = changedSeconds
        self.changedNanoseconds = changedNanoseconds
    }

    init(_ status: stat) {
        size = Int64(status.st_size)
        inode = UInt64(status.st_ino)
        #if canImport(Darwin)
            modifiedSeconds = Int64(status.st_mtimespec.tv_sec)
            modifiedNanoseconds = Int64(status.st_mtimespec.tv_nsec)
            changedSeconds = Int64(status.st_ctimespec.tv_sec)
            changedNanoseconds = Int64(status.st_ctimespec.tv_nsec)
        #else
            modifiedSeconds = Int64(status.st_mtim.tv_sec)
            modifiedNanoseconds = Int64(status.st_mtim.tv_nsec)
            changedSeconds = Int64(status.st_ctim.tv_sec)
            changedNanoseconds = Int64(status.st_ctim.tv_nsec)
        #endif
    }

    /// The stamp of the regular file at `path`, not following a link; nil for anything else.
    init?(regularFileAt path: String) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        self.init(status)
    }

    /// The stamp of the file at `path`, following a link; nil when it cannot be read.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    /// Size, inode, and modification and change times as `seconds.nanoseconds`, tab-separated.
    var text: String {
        "\(size)\t\(inode)\t\(modifiedSeconds).\(modifiedNanoseconds)\t\(changedSeconds).\(changedNanoseconds)"
    }

    /// Size, inode and modification time, without the change time (which a hard link changes):
    /// how the output's files are recognised as the ones a build wrote.
    var contentText: String { "\(size):\(inode):\(modifiedSeconds).\(modifiedNanoseconds)" }

    /// Appends the six numbers, 8 bytes each, little-endian: what ``VaultWalk/record`` holds.
    func append(to bytes: inout [UInt8]) {
        func put(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        put(UInt64(bitPattern: size))
        put(inode)
        put(UInt64(bitPattern: modifiedSeconds))
        put(UInt64(bitPattern: modifiedNanoseconds))
        put(UInt64(bitPattern: changedSeconds))
        put(UInt64(bitPattern: changedNanoseconds))
    }

    /// Whether ``contentText`` is `text`, without making the string: the output survey asks it of
    /// every file of a build.
    func hasContentText(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { hasContentText(bytes: $0) }
    }

    /// Whether ``contentText`` is the UTF-8 text `expected` (a field of the output's marker, read
    /// in place).
    func hasContentText(bytes expected: UnsafeBufferPointer<UInt8>) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 96) { buffer in
            var count = 0
            func put(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            func put(_ value: UInt64, negative: Bool = false) {
                if negative { put(UInt8(ascii: "-")) }
                let start = count
                var rest = value
                repeat {
                    put(UInt8(ascii: "0") + UInt8(rest % 10))
                    rest /= 10
                } while rest > 0
                var (low, high) = (start, count - 1)
                while low < high {
                    buffer.swapAt(low, high)
                    (low, high) = (low + 1, high - 1)
                }
            }
            put(size.magnitude, negative: size < 0)
            put(UInt8(ascii: ":"))
            put(inode)
            put(UInt8(ascii: ":"))
            put(modifiedSeconds.magnitude, negative: modifiedSeconds < 0)
            put(UInt8(ascii: "."))
            put(modifiedNanoseconds.magnitude, negative: modifiedNanoseconds < 0)
            return UnsafeBufferPointer(rebasing: buffer[..<count]).hasSameBytes(as: expected)
        }
    }
}
