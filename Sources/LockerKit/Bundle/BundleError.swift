/// Why a bundle, or a file of it, cannot be used. Every case names the file.
public enum BundleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is no `manifest.json` in the folder.
    case missingManifest(path: String)
    /// The manifest is not valid JSON of the expected shape.
    case unreadableManifest(path: String, reason: String)
    /// The bundle's schema major version is one this library does not know.
    case unsupportedSchema(path: String, version: String)
    /// The manifest's `contentVersion` does not match its list of files.
    case inconsistentManifest(path: String)
    /// A manifest path that is absolute, empty, or leaves the bundle folder (`..`).
    case unsafePath(path: String)
    /// A file the manifest lists is not there or cannot be read.
    case missingFile(path: String)
    /// A file's size differs from the manifest's.
    case sizeMismatch(path: String, expected: Int, actual: Int)
    /// A file's SHA-256 differs from the manifest's: damaged or tampered with.
    case hashMismatch(path: String, expected: String, actual: String)
    /// A verified file that does not decode as what the manifest says it is.
    case undecodable(path: String, reason: String)
    /// No document of this kind and ID in any locale.
    case notFound(kind: ContentKind, id: String)

    /// The file the error is about, relative to the bundle folder; `nil` for `notFound`.
    public var path: String? {
        switch self {
        case .missingManifest(let path), .unreadableManifest(let path, _), .unsupportedSchema(let path, _),
            .inconsistentManifest(let path), .unsafePath(let path), .missingFile(let path),
            .sizeMismatch(let path, _, _), .hashMismatch(let path, _, _), .undecodable(let path, _):
            path
        case .notFound: nil
        }
    }

    public var description: String {
        switch self {
        case .missingManifest(let path): "\(path): no manifest: not a bundle folder"
        case .unreadableManifest(let path, let reason): "\(path): unreadable manifest: \(reason)"
        case .unsupportedSchema(let path, let version):
            "\(path): schema version \(version) is not supported (this library reads \(BundleSchema.major).x)"
        case .inconsistentManifest(let path): "\(path): contentVersion does not match the files listed"
        case .unsafePath(let path): "\(path): unsafe path in the manifest"
        case .missingFile(let path): "\(path): missing or unreadable"
        case .sizeMismatch(let path, let expected, let actual):
            "\(path): \(actual) bytes, the manifest says \(expected): damaged or tampered with"
        case .hashMismatch(let path, let expected, let actual):
            "\(path): SHA-256 \(actual.prefix(12))…, the manifest says \(expected.prefix(12))…: damaged or tampered with"
        case .undecodable(let path, let reason): "\(path): does not decode: \(reason)"
        case .notFound(let kind, let id): "no \(kind) with ID '\(id)' in the bundle"
        }
    }
}
