import Crypto
import Foundation

/// An Ed25519 public key an app trusts to sign manifests, read from the text `locker keygen`
/// prints and writes to `locker-signing.pub`: the key's 32 bytes in base64, as Sparkle's
/// `SUPublicEDKey` is written.
///
/// An app trusts a list of keys, so a new key can be shipped in an app release before the
/// content repository signs with it (see "Signatures" in docs/bundle-format.md).
public struct TrustedKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's ID: the first 16 hex digits of the SHA-256 of its 32 bytes. A manifest's
    /// `signedBy` and its signature file name keys by it.
    public let id: String
    /// The key's 32 bytes.
    public let rawRepresentation: Data

    /// Reads a key from its text: base64 of 32 bytes, surrounding whitespace ignored.
    ///
    /// - Throws: ``SignatureError/invalidKey(_:)`` when the text is not such a key.
    public init(text: String) throws(SignatureError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Data(base64Encoded: trimmed), bytes.count == 32 else {
            throw .invalidKey("not an Ed25519 public key (base64 of 32 bytes): '\(trimmed.prefix(60))'")
        }
        try self.init(rawRepresentation: bytes)
    }

    /// A key from its 32 bytes.
    public init(rawRepresentation bytes: Data) throws(SignatureError) {
        guard (try? Curve25519.Signing.PublicKey(rawRepresentation: bytes)) != nil else {
            throw .invalidKey("not an Ed25519 public key")
        }
        rawRepresentation = bytes
        id = Self.id(of: bytes)
    }

    /// The key as text: base64 of its 32 bytes, the form an app embeds.
    public var text: String { rawRepresentation.base64EncodedString() }

    public var description: String { "\(id) (\(text))" }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    public func isValidSignature(_ signature: Data, of message: some DataProtocol) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// The ID of the key with these 32 bytes.
    public static func id(of rawRepresentation: Data) -> String {
        String(ContentHash.sha256Hex(rawRepresentation).prefix(16))
    }
}

/// Why a key or a signature cannot be used.
public enum SignatureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A key's text that is not an Ed25519 key.
    case invalidKey(String)
    /// A signature file that is not valid JSON of the expected shape.
    case unreadable(String)
    /// No signature of the file is by a key that is trusted and that the manifest names in
    /// `signedBy`, and valid.
    case untrusted(String)

    public var description: String {
        switch self {
        case .invalidKey(let reason): "invalid key: \(reason)"
        case .unreadable(let reason): "unreadable signature file: \(reason)"
        case .untrusted(let reason): reason
        }
    }
}
