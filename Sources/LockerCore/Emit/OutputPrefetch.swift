import Foundation
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a rebuild reads of the previous build first, read on a thread of its own from the
/// moment the build starts, while the vault is walked for its fingerprint: the marker
/// (``OutputMarker``), parsed, then the ``NoteRecord``'s files, then the bundle's manifest
/// (whose entries a rebuild copies): what ``OutputWriter/Update/previousFile(_:)`` then takes
/// instead of reading the file.
///
/// They are not hashed: read between two equal stamps, and taken only while the file has the
/// stamp the marker lists for it, they are the bytes the previous build wrote, as every file a
/// rebuild keeps is trusted by its stamp (hashing them was a measurable part of every
/// rebuild's CPU). The build decodes the record on every core: decoded here, beside the
/// output's survey, it kept the build waiting.
///
/// The files are only ever replaced whole (renamed over), so a file read is the one in place
/// as long as its stamp (size, inode, modification and change times) is the same: ``marker()``
/// and ``file(_:)`` check it when asked, after the lock is taken and a cut-short commit
/// finished, and answer nil when the file changed, for the caller to read it again.
public final class OutputPrefetch: @unchecked Sendable {
    private let folder: String
    private let markerRead = DispatchSemaphore(value: 0)
    private let recordRead = DispatchSemaphore(value: 0)
    /// The marker, and its file's stamp.
    private var readMarker: (marker: OutputMarker, stamp: FileStamp)?
    /// The note record read.
    private var readRecord: (stamp: FileStamp, bytes: [UInt8])?
    private let manifestRead = DispatchSemaphore(value: 0)
    private var readManifest: (stamp: FileStamp, bytes: [UInt8])?
    /// The manifest's path in the output.
    static let manifest = BundleSchema.folder + "/manifest.json"

    /// Starts reading the marker, then the note record, then the manifest, of the output folder `output`.
    public init(output: URL) {
        folder = output.standardizedFileURL.path + "/"
        let running = WorkerThread.start { [self] in
            readMarker = OutputWriter.readMarker(inFolder: folder)
            markerRead.signal()
            if let (stamp, bytes) = Self.read(folder + NoteRecord.fileName) {
                readRecord = (stamp, bytes)
            }
            recordRead.signal()
            if let (stamp, bytes) = Self.read(folder + Self.manifest) {
                readManifest = (stamp, bytes)
            }
            manifestRead.signal()
        }
        // Without a thread, nothing is read ahead: the build reads the files itself.
        if !running {
            markerRead.signal()
            recordRead.signal()
            manifestRead.signal()
        }
    }

    /// The marker as read, when the file is still the one read; nil otherwise.
    func marker() -> OutputMarker? {
        markerRead.wait()
        markerRead.signal()
        guard let readMarker, readMarker.stamp == Self.stamp(of: folder + OutputWriter.marker) else { return nil }
        return readMarker.marker
    }

    /// The bytes of the file at `path` in the output as read ahead, when it is one of the note
    /// record's or the manifest and still the file read; nil otherwise.
    func file(_ path: String) -> [UInt8]? {
        let (done, read): (DispatchSemaphore, () -> (stamp: FileStamp, bytes: [UInt8])?)
        switch path {
        case Self.manifest: (done, read) = (manifestRead, { self.readManifest })
        case NoteRecord.fileName: (done, read) = (recordRead, { self.readRecord })
        default: return nil
        }
        done.wait()
        done.signal()
        guard let file = read(), Self.stamp(of: folder + path) == file.stamp else { return nil }
        return file.bytes
    }

    /// The bytes of the regular file at `path`, with its stamp, when it did not change while read.
    private static func read(_ path: String) -> (FileStamp, [UInt8])? {
        guard let before = stamp(of: path), let bytes = try? FileBytes.contents(of: path), stamp(of: path) == before
        else { return nil }
        return (before, bytes)
    }

    private static func stamp(of path: String) -> FileStamp? { FileStamp(regularFileAt: path) }
}
