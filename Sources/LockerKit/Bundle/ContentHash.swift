import Crypto
import Foundation

/// SHA-256 as bundles use it: lowercase hex, and the strong ETag built from it.
public enum ContentHash {
    /// The lowercase hexadecimal SHA-256 of the data.
    public static func sha256Hex(_ data: Data) -> String {
        SHA256.hash(data: data).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The ETag a manifest gives a file with this hash: `"sha256-<hex>"`.
    public static func etag(sha256: String) -> String { "\"sha256-\(sha256)\"" }
}
