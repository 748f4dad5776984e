import Foundation

/// The signature file of a manifest: Ed25519 signatures of the manifest's exact bytes, one per
/// signing key, at `signatures/<hash16>.json` beside `manifest.json`, named by the first 16 hex
/// digits of the manifest's SHA-256.
///
/// Named by the manifest it signs, the file never changes, so a CDN may cache it for good, and a
/// host that publishes the content-addressed files before `manifest.json` (as a host must) never
/// serves a manifest without its signature. `{"signatures":[{"keyID":"…","signature":"…"}]}`.
public struct ManifestSignature: Sendable, Hashable, Codable {
    /// One key's signature.
    public struct Entry: Sendable, Hashable, Codable {
        /// The ``TrustedKey/id`` of the key that signed.
        public var keyID: String
        /// The Ed25519 signature of the manifest's bytes, in base64 (64 bytes).
        public var signature: String

        public init(keyID: String, signature: String) {
            self.keyID = keyID
            self.signature = signature
        }
    }

    /// Every key's signature, sorted by key ID.
    public var signatures: [Entry]

    public init(signatures: [Entry]) {
        self.signatures = signatures.sorted { $0.keyID.utf8Precedes($1.keyID) }
    }

    /// The folder of signature files, beside `manifest.json`.
    public static let folder = "signatures"

    /// The path, relative to the folder holding `manifest.json`, of the signature file of the
    /// manifest with these bytes.
    public static func path(forManifest bytes: some DataProtocol) -> String {
        "\(folder)/\(ContentHash.sha256Hex(bytes).prefix(16)).json"
    }

    /// Reads a signature file's bytes.
    public init(data: Data) throws(SignatureError) {
        do {
            self = try JSONDecoder().decode(Self.self, from: data)
        } catch {
            throw .unreadable(String(describing: error))
        }
    }

    /// The file's canonical JSON, ending with a newline.
    public var data: Data { CanonicalJSONWriter.data(for: self) }

    /// Checks that `manifest` (decoded from `bytes`) is signed by a key of `trusted` that it
    /// names in `signedBy`; returns that key.
    ///
    /// - Throws: ``SignatureError/untrusted(_:)`` saying why no signature counts: the manifest
    ///   names no key, names only keys the app does not trust, or no signature verifies.
    public func verify(
        manifest bytes: some DataProtocol, naming signedBy: [String]?, trusting trusted: [TrustedKey]
    ) throws(SignatureError) -> TrustedKey {
        guard let signedBy, !signedBy.isEmpty else {
            throw .untrusted("the manifest names no signing key (signedBy)")
        }
        let named = trusted.filter { signedBy.contains($0.id) }
        guard !named.isEmpty else {
            throw .untrusted(
                "signed by \(signedBy.joined(separator: ", ")), which the app does not trust (it trusts "
                    + (trusted.isEmpty ? "no key" : trusted.map(\.id).joined(separator: ", ")) + ")")
        }
        for key in named {
            for entry in signatures where entry.keyID == key.id {
                guard let signature = Data(base64Encoded: entry.signature) else { continue }
                if key.isValidSignature(signature, of: bytes) { return key }
            }
        }
        throw .untrusted(
            "no valid signature by \(named.map(\.id).joined(separator: ", ")): the manifest was altered or signed by another key"
        )
    }
}

extension ManifestSignature: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in json.member("signatures", signatures) }
    }
}

extension ManifestSignature.Entry: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) {
        json.object { json in
            json.member("keyID", keyID)
            json.member("signature", signature)
        }
    }
}
