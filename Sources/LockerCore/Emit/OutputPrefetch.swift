import Foundation
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a rebuild reads of the previous build first, read and decoded on a thread of its own
/// from the moment the build starts, while the vault is walked for its fingerprint: the marker
/// (``OutputMarker``, 3.5 MB for 10,000 notes), then the ``NoteRecord`` (as much again).
///
/// Both files are only ever replaced whole (renamed over), so a file read is the one in place
/// as long as its stamp (size, inode, modification and change times) is the same: ``marker()``
/// and ``noteRecord()`` check it when asked, after the lock is taken and a cut-short commit
/// finished, and answer nil when the file changed, for the caller to read it again.
public final class OutputPrefetch: Sendable {
    private let folder: String
    private let reads: Reads

    /// What the reading thread found, each part published by the signal of its semaphore.
    private final class Reads: @unchecked Sendable {
        let markerRead = DispatchSemaphore(value: 0)
        let recordRead = DispatchSemaphore(value: 0)
        /// Signalled once the record is wanted, or never will be (the prefetch is gone).
        let wanted = DispatchSemaphore(value: 0)
        var marker: (stamp: FileStamp, marker: OutputMarker)?
        var record: (stamp: FileStamp, sha256: String, record: NoteRecord)?
        /// Set when the prefetch is let go of: a record not decoded yet is not wanted.
        private var isAbandoned = false
        private let lock = NSLock()

        var abandoned: Bool {
            get { lock.withLock { isAbandoned } }
            set { lock.withLock { isAbandoned = newValue } }
        }
    }

    /// Starts reading the marker, then the note record, of the output folder `output`. The
    /// record is decoded once ``decodeNoteRecord()`` or ``noteRecord()`` asks for it.
    public init(output: URL) {
        let folder = output.standardizedFileURL.path + "/"
        let reads = Reads()
        (self.folder, self.reads) = (folder, reads)
        // The thread holds what it fills in, not the prefetch: a prefetch let go of lets it end.
        let thread = Thread {
            if let (stamp, bytes) = Self.read(folder + OutputWriter.marker) {
                reads.marker = (stamp, OutputMarker(bytes: bytes))
            }
            reads.markerRead.signal()
            let bytes = Self.read(folder + NoteRecord.fileName)
            let sha256 = bytes.map { ContentHash.sha256Hex($0.1) }
            // Decoded only for a build that writes: not for an output found up to date.
            reads.wanted.wait()
            if !reads.abandoned, let (stamp, bytes) = bytes, let sha256, let decoded = NoteRecord(bytes: bytes) {
                reads.record = (stamp, sha256, decoded)
            }
            reads.recordRead.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit {
        reads.abandoned = true
        reads.wanted.signal()
    }

    /// The marker as read, when the file is still the one read; nil otherwise.
    func marker() -> OutputMarker? {
        reads.markerRead.wait()
        reads.markerRead.signal()
        guard let read = reads.marker, Self.stamp(of: folder + OutputWriter.marker) == read.stamp else { return nil }
        return read.marker
    }

    /// Goes on to decode the note record read: the output is not up to date, and the build
    /// will want it (``noteRecord()``) once it holds the output.
    public func decodeNoteRecord() { reads.wanted.signal() }

    /// The note record as read, with the SHA-256 of its bytes, when the file is still the one
    /// read; nil otherwise.
    func noteRecord() -> (record: NoteRecord, sha256: String)? {
        reads.wanted.signal()
        reads.recordRead.wait()
        reads.recordRead.signal()
        guard let read = reads.record, Self.stamp(of: folder + NoteRecord.fileName) == read.stamp else { return nil }
        return (read.record, read.sha256)
    }

    /// The bytes of the regular file at `path`, with its stamp, when it did not change while read.
    private static func read(_ path: String) -> (FileStamp, [UInt8])? {
        guard let before = stamp(of: path), let bytes = try? FileBytes.contents(of: path), stamp(of: path) == before
        else { return nil }
        return (before, bytes)
    }

    private static func stamp(of path: String) -> FileStamp? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileStamp(status)
    }
}

/// A sink that may hold the previous build's ``NoteRecord`` read ahead (``OutputPrefetch``).
protocol NoteRecordSource {
    /// The previous build's note record, when it was read ahead from the file that build wrote
    /// and that is still in place; nil when it must be read now.
    func prefetchedNoteRecord() -> NoteRecord?
}
