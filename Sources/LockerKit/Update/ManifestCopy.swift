import Foundation

/// A manifest's bytes and hash, with the fields an update checks first; the whole manifest, its
/// thousands of files, decoded only when an update goes on to download.
final class ManifestCopy {
    /// The fields checked before anything is downloaded.
    struct Header: Decodable {
        var contentVersion: String
        var version: Int?
        var expires: String?
        var signedBy: [String]?
    }

    let bytes: Data
    let sha256: String
    let header: Header
    private var decoded: Manifest??

    init?(bytes: Data) {
        guard let header = try? JSONDecoder().decode(Header.self, from: bytes) else { return nil }
        self.bytes = bytes
        self.header = header
        sha256 = ContentHash.sha256Hex(bytes)
    }

    /// Whether the manifest names no signing key.
    var isUnsigned: Bool { (header.signedBy ?? []).isEmpty }

    /// The whole manifest, checked (``ContentBundle/decodeManifest(_:)``); nil when it fails.
    var manifest: Manifest? {
        if let decoded { return decoded }
        let manifest = try? ContentBundle.decodeManifest(bytes)
        decoded = manifest
        return manifest
    }

}
