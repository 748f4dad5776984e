import Crypto
import Foundation
import LockerKit

/// An Ed25519 private key that signs manifests (`locker build --sign-key`), read from the text
/// `locker keygen` writes to `locker-signing.key`: the key's 32 bytes in base64.
///
/// The apps trust its public half (``publicKey``), given to them as text, the form
/// ``TrustedKey/init(text:)`` reads.
public struct SigningKey: Sendable {
    private let key: Curve25519.Signing.PrivateKey
    /// The key's public half, which verifies its signatures.
    public let publicKey: TrustedKey

    /// A new key from the system's random numbers.
    public static func generate() throws(LockerError) -> SigningKey {
        try SigningKey(key: Curve25519.Signing.PrivateKey())
    }

    /// Reads a key from its text: base64 of 32 bytes, surrounding whitespace ignored.
    ///
    /// - Parameter source: what the text came from, for the error (a file's path, an
    ///   environment variable's name).
    /// - Throws: ``LockerError/usage(_:)`` when the text is not such a key. The message never
    ///   quotes the text: it is a secret.
    public init(text: String, from source: String = "the signing key") throws(LockerError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let expected = "the base64 text of 32 bytes that `locker keygen` writes to locker-signing.key"
        guard !trimmed.isEmpty else { throw .usage("\(source) is empty: expected \(expected)") }
        guard let bytes = Data(base64Encoded: trimmed) else {
            throw .usage("\(source) is not a signing key: expected \(expected), got text that is not base64")
        }
        guard bytes.count == 32 else {
            throw .usage("\(source) is not a signing key: expected \(expected), got \(bytes.count) bytes")
        }
        let key: Curve25519.Signing.PrivateKey
        do {
            key = try Curve25519.Signing.PrivateKey(rawRepresentation: bytes)
        } catch {
            throw .usage("\(source) is not an Ed25519 signing key: \(error)")
        }
        try self.init(key: key)
    }

    private init(key: Curve25519.Signing.PrivateKey) throws(LockerError) {
        self.key = key
        do {
            publicKey = try TrustedKey(rawRepresentation: key.publicKey.rawRepresentation)
        } catch {
            // A private key's own public half is always a key; said rather than trapped on.
            throw .usage("the signing key's public key is not usable: \(error)")
        }
    }

    /// The key as text: base64 of its 32 bytes, what `locker-signing.key` and
    /// `LOCKER_SIGNING_KEY` hold.
    public var text: String { key.rawRepresentation.base64EncodedString() }

    /// The key's Ed25519 signature of `bytes` (64 bytes).
    public func sign(_ bytes: some DataProtocol) throws(LockerError) -> Data {
        do {
            return try key.signature(for: bytes)
        } catch {
            throw .io("cannot sign with key \(publicKey.id): \(error)")
        }
    }
}
