import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The previous build's marker (``OutputMarker``) read and parsed on a thread of its own from
/// the moment a build starts, while the vault is walked for its fingerprint: the first thing a
/// rebuild needs once it holds the output's lock, and 3.5 MB for 10,000 notes.
///
/// The marker is only ever replaced whole (renamed over), so the file read is the one in
/// place as long as its stamp (size, inode, modification and change times) is the same:
/// ``marker()`` checks it when asked, after the lock is taken and a cut-short commit
/// finished, and answers nil when the file changed, for the caller to read it again.
public final class OutputMarkerPrefetch: @unchecked Sendable {
    private let path: String
    private let done = DispatchSemaphore(value: 0)
    private var read: (stamp: FileStamp, marker: OutputMarker)?

    /// Starts reading the marker of the output folder `output`.
    public init(output: URL) {
        path = output.standardizedFileURL.path + "/" + OutputWriter.marker
        let thread = Thread { [self] in
            defer { done.signal() }
            guard let before = Self.stamp(of: path), let bytes = try? FileBytes.contents(of: path),
                Self.stamp(of: path) == before
            else { return }
            read = (before, OutputMarker(bytes: bytes))
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The marker as read, when the file is still the one read; nil otherwise.
    func marker() -> OutputMarker? {
        done.wait()
        done.signal()
        guard let read, Self.stamp(of: path) == read.stamp else { return nil }
        return read.marker
    }

    private static func stamp(of path: String) -> FileStamp? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileStamp(status)
    }
}
