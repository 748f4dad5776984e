import LockerKit

/// The manifest a build wrote, its files kept in the order they were written along with the
/// order the manifest lists them in: a build writes the manifest without sorting a copy of its
/// files, which ``manifest`` makes when asked.
public struct WrittenManifest: Sendable {
    /// The manifest without its files.
    public var header: Manifest
    /// The bundle's files, in the order written.
    var files: [Manifest.File]
    /// The places in ``files`` in the manifest's order: by path.
    var order: [Int]

    init(header: Manifest, files: [Manifest.File], order: [Int]) {
        self.header = header
        self.files = files
        self.order = order
    }

    /// How many files the manifest lists.
    public var fileCount: Int { order.count }

    /// The manifest whole, its files sorted by path.
    public var manifest: Manifest {
        var manifest = header
        manifest.files = order.map { files[$0] }
        return manifest
    }
}
