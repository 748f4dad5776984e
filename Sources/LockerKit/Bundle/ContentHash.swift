import Crypto
import Foundation

/// SHA-256 as bundles use it: lowercase hex, and the strong ETag built from it.
public enum ContentHash {
    /// The lowercase hexadecimal SHA-256 of the data.
    public static func sha256Hex(_ data: some DataProtocol) -> String {
        hex(SHA256.hash(data: data))
    }

    /// The lowercase hexadecimal SHA-256 of `pieces`' bytes one after the other, hashed where
    /// they are rather than joined first.
    package static func sha256Hex(pieces: [ArraySlice<UInt8>]) -> String {
        var hasher = SHA256()
        for piece in pieces { piece.withUnsafeBytes { hasher.update(bufferPointer: $0) } }
        return hex(hasher.finalize())
    }

    /// Bytes as lowercase hexadecimal.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The lowercase hexadecimal digits, by value (``ContentIdentity`` writes UUIDs with them).
    static let digits = Array("0123456789abcdef".utf8)

    /// The ETag a manifest gives a file with this hash: `"sha256-<hex>"`.
    public static func etag(sha256: String) -> String { "\"sha256-\(sha256)\"" }
}
