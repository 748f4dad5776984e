/// Why an update did not happen. Whatever the error, the active content is as it was, and usable.
public enum UpdateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No answer from the server: no connection, a timeout, a connection lost mid-file.
    case network(url: String, reason: String)
    /// The server answered with an error status (404, 500, 503, …).
    case httpStatus(url: String, status: Int)
    /// The manifest is not signed by a trusted key: unsigned, signed by a key the app does not
    /// trust, altered after signing, or its signature file is missing.
    case signature(String)
    /// The manifest's `version` is lower than the active one's (or equal, with other content):
    /// an old manifest replayed.
    case rollback(active: Int?, offered: Int?)
    /// The manifest's `expires` has passed: the repository stopped publishing, or someone serves
    /// an old manifest to freeze the app on old content.
    case expired(expires: String)
    /// The manifest's schema major is one this library does not read.
    case unsupportedSchema(version: String)
    /// The manifest does not decode, does not match its files, or lists unsafe paths.
    case invalidManifest(String)
    /// A downloaded file's size or SHA-256 differs from the manifest's: damaged or tampered with.
    case damagedFile(path: String, reason: String)
    /// The store folder cannot be read or written.
    case store(String)
    /// Another update of the same store folder is running (in this process or another).
    case busy

    /// Whether what the server sent failed verification (signature, version, expiry, schema,
    /// manifest, a file's hash), rather than failing to arrive. `locker sync` exits with 3 then.
    public var isVerificationFailure: Bool {
        switch self {
        case .signature, .rollback, .expired, .unsupportedSchema, .invalidManifest, .damagedFile: true
        case .network, .httpStatus, .store, .busy: false
        }
    }

    /// Whether trying again later may succeed without anything changing here (network, server,
    /// another update). `locker sync` exits with 4 then.
    public var isTemporary: Bool {
        switch self {
        case .network, .httpStatus, .busy: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .network(let url, let reason): "\(url): \(reason)"
        case .httpStatus(let url, let status): "\(url): HTTP \(status)"
        case .signature(let reason): "signature: \(reason)"
        case .rollback(let active, let offered):
            "rollback refused: the server offers version \(offered.map(String.init) ?? "none"), "
                + "not newer than the active \(active.map(String.init) ?? "none")"
        case .expired(let expires): "the manifest expired at \(expires): the server serves stale content"
        case .unsupportedSchema(let version):
            "schema version \(version) is not supported (this library reads \(BundleSchema.major).x)"
        case .invalidManifest(let reason): "invalid manifest: \(reason)"
        case .damagedFile(let path, let reason): "\(path): \(reason): damaged or tampered with"
        case .store(let reason): "store: \(reason)"
        case .busy: "another update of this store is running"
        }
    }
}

/// What an update did.
public enum UpdateResult: Sendable, Hashable {
    /// The active content is the newest the server has.
    case upToDate
    /// A new set is active: from the active manifest's `version` to the new one's, with the
    /// number of files and bytes downloaded.
    case updated(from: Int?, to: Int?, files: Int, bytes: Int)
}

/// How far an update is: files and bytes downloaded of those needed.
public struct UpdateProgress: Sendable, Hashable {
    public var files: Int
    public var totalFiles: Int
    public var bytes: Int
    public var totalBytes: Int

    public init(files: Int, totalFiles: Int, bytes: Int, totalBytes: Int) {
        self.files = files
        self.totalFiles = totalFiles
        self.bytes = bytes
        self.totalBytes = totalBytes
    }
}
