import Crypto
import Foundation
import LockerKit
import Testing

/// ``ManifestSignature`` and ``TrustedKey``: reading keys, naming and reading signature files,
/// and which signatures count.
@Suite struct ManifestSignatureTests {
    static let manifest = Data(#"{"contentVersion":"0","files":[],"signedBy":["…"]}"#.utf8)

    static func signature(_ bytes: Data = manifest, by keys: [Curve25519.Signing.PrivateKey]) throws
        -> ManifestSignature
    {
        try ManifestSignature(data: TestPublisher.sign(bytes, with: keys))
    }

    static let key = TestPublisher.key
    static let next = TestPublisher.nextKey
    static let stranger = TestPublisher.strangerKey
    static func id(_ key: Curve25519.Signing.PrivateKey) -> String { TestPublisher.id(of: key) }

    // MARK: - TrustedKey

    @Test func readsAKeyFromItsTextWithSurroundingWhiteSpace() throws {
        let raw = Self.key.publicKey.rawRepresentation
        let key = try TrustedKey(text: "  \(raw.base64EncodedString())\n")
        #expect(key.rawRepresentation == raw)
        #expect(key.text == raw.base64EncodedString())
        #expect(key.id == String(ContentHash.sha256Hex(raw).prefix(16)))
        #expect(key.id.count == 16)
        #expect(try TrustedKey(text: key.text) == key)
    }

    @Test(arguments: [
        "", "not a key", "AAAA", Data(repeating: 7, count: 31).base64EncodedString(),
        Data(repeating: 7, count: 33).base64EncodedString(), String(repeating: "ab", count: 32),
        Data(repeating: 7, count: 32).base64EncodedString() + "!",
    ])
    func rejectsTextThatIsNotAKey(text: String) {
        #expect {
            try TrustedKey(text: text)
        } throws: { error in
            guard case .invalidKey = error as? SignatureError else { return false }
            return true
        }
    }

    @Test func tellsItsOwnSignatureFromOthers() throws {
        let key = try TestPublisher.trusted(Self.key)
        let signature = try Self.key.signature(for: Self.manifest)
        #expect(key.isValidSignature(signature, of: Self.manifest))
        #expect(!key.isValidSignature(signature, of: Self.manifest + Data(" ".utf8)))
        #expect(!key.isValidSignature(try Self.stranger.signature(for: Self.manifest), of: Self.manifest))
        #expect(!key.isValidSignature(Data(), of: Self.manifest))
    }

    // MARK: - The file

    @Test func isNamedByTheManifestsHash() {
        let path = ManifestSignature.path(forManifest: Self.manifest)
        #expect(path == "signatures/\(ContentHash.sha256Hex(Self.manifest).prefix(16)).json")
        #expect(ManifestSignature.path(forManifest: Self.manifest + Data("\n".utf8)) != path)
    }

    @Test func readsWhatItWritesWithEntriesSortedByKeyID() throws {
        let entries = [
            ManifestSignature.Entry(keyID: "ffff", signature: "c2ln"),
            ManifestSignature.Entry(keyID: "0000", signature: "c2ln"),
        ]
        let signature = ManifestSignature(signatures: entries)
        #expect(signature.signatures.map(\.keyID) == ["0000", "ffff"])
        #expect(
            String(decoding: signature.data, as: UTF8.self)
                == #"{"signatures":[{"keyID":"0000","signature":"c2ln"},{"keyID":"ffff","signature":"c2ln"}]}"# + "\n")
        #expect(try ManifestSignature(data: signature.data) == signature)
    }

    @Test(arguments: ["", "{}", "[]", #"{"signatures":[{"keyID":1}]}"#, "<html></html>"])
    func refusesAFileThatIsNotASignatureFile(text: String) {
        #expect {
            try ManifestSignature(data: Data(text.utf8))
        } throws: { error in
            guard case .unreadable = error as? SignatureError else { return false }
            return true
        }
    }

    // MARK: - verify

    @Test func acceptsASignatureByATrustedKeyTheManifestNames() throws {
        let trusted = try TestPublisher.trusted(Self.key)
        let signature = try Self.signature(by: [Self.key])
        #expect(
            try signature.verify(manifest: Self.manifest, naming: [Self.id(Self.key)], trusting: [trusted]) == trusted)
    }

    @Test func returnsTheTrustedKeyAmongSeveralSigners() throws {
        let next = try TestPublisher.trusted(Self.next)
        let signature = try Self.signature(by: [Self.key, Self.next])
        let named = [Self.id(Self.key), Self.id(Self.next)]
        #expect(try signature.verify(manifest: Self.manifest, naming: named, trusting: [next]) == next)
        let both = try [TestPublisher.trusted(Self.stranger), next]
        #expect(try signature.verify(manifest: Self.manifest, naming: named, trusting: both) == next)
    }

    @Test(arguments: [nil, [String]()])
    func refusesAManifestThatNamesNoKey(signedBy: [String]?) throws {
        let signature = try Self.signature(by: [Self.key])
        #expect(throws: SignatureError.untrusted("the manifest names no signing key (signedBy)")) {
            try signature.verify(manifest: Self.manifest, naming: signedBy, trusting: [TestPublisher.trusted(Self.key)])
        }
    }

    @Test func refusesAValidSignatureByAKeyTheManifestDoesNotName() throws {
        let signature = try Self.signature(by: [Self.key, Self.next])
        #expect(throws: SignatureError.self) {
            try signature.verify(
                manifest: Self.manifest, naming: [Self.id(Self.key)], trusting: [TestPublisher.trusted(Self.next)])
        }
    }

    @Test func refusesAManifestNamingOnlyKeysTheAppDoesNotTrust() throws {
        let signature = try Self.signature(by: [Self.stranger])
        #expect(throws: SignatureError.self) {
            try signature.verify(
                manifest: Self.manifest, naming: [Self.id(Self.stranger)], trusting: [TestPublisher.trusted(Self.key)])
        }
        #expect(throws: SignatureError.self) {
            try signature.verify(manifest: Self.manifest, naming: [Self.id(Self.stranger)], trusting: [])
        }
    }

    @Test func refusesAlteredBytes() throws {
        let signature = try Self.signature(by: [Self.key])
        var altered = Self.manifest
        altered[2] ^= 1
        #expect(throws: SignatureError.self) {
            try signature.verify(
                manifest: altered, naming: [Self.id(Self.key)], trusting: [TestPublisher.trusted(Self.key)])
        }
    }

    @Test func refusesASignatureByAnotherKeyFiledUnderTheTrustedKeysID() throws {
        let forged = ManifestSignature(signatures: [
            .init(
                keyID: Self.id(Self.key),
                signature: try Self.stranger.signature(for: Self.manifest).base64EncodedString())
        ])
        #expect(throws: SignatureError.self) {
            try forged.verify(
                manifest: Self.manifest, naming: [Self.id(Self.key)], trusting: [TestPublisher.trusted(Self.key)])
        }
    }

    @Test func skipsAnEntryThatIsNotBase64AndTriesTheNext() throws {
        let good = try Self.key.signature(for: Self.manifest).base64EncodedString()
        let id = Self.id(Self.key)
        let trusted = try TestPublisher.trusted(Self.key)
        let broken = ManifestSignature(signatures: [.init(keyID: id, signature: "%%%")])
        #expect(throws: SignatureError.self) {
            try broken.verify(manifest: Self.manifest, naming: [id], trusting: [trusted])
        }
        let both = ManifestSignature(signatures: [
            .init(keyID: id, signature: "%%%"), .init(keyID: id, signature: good),
        ])
        #expect(try both.verify(manifest: Self.manifest, naming: [id], trusting: [trusted]) == trusted)
    }
}
