import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// Signing keys, and the manifest's signature file, `version` and `expires` as a build writes them.
@Suite struct SigningTests {
    static let notes = ["a.md": "---\ntitle: A\n---\nFirst.\n", "b.md": "Second [[a]].\n"]

    /// A compilation of `vault` signed by `keys`, its content time `SOURCE_DATE_EPOCH` when given.
    static func compile(
        _ vault: TestVault, keys: [SigningKey], epoch: String? = "1700000000", bundleVersion: Int? = nil
    ) throws -> Compilation {
        var compiler = Compiler(vault: vault.root, environment: epoch.map { ["SOURCE_DATE_EPOCH": $0] } ?? [:])
        compiler.signingKeys = keys
        compiler.bundleVersion = bundleVersion
        return try compiler.compile()
    }

    /// The manifest's bytes and its signature file's, from a compilation into memory.
    static func signed(_ compilation: Compilation) throws -> (manifest: Data, signature: ManifestSignature) {
        let byPath = Dictionary(uniqueKeysWithValues: compilation.files.map { ($0.path, $0.data) })
        let manifest = try #require(byPath["bundles/v1/manifest.json"])
        let path = "bundles/v1/" + ManifestSignature.path(forManifest: manifest)
        let signature = try #require(
            byPath[path], "no \(path) among \(compilation.files.map(\.path).filter { $0.hasPrefix("bundles/") })")
        return (manifest, try ManifestSignature(data: signature))
    }

    // MARK: Keys

    @Test func aKeyReadsBackFromItsTextAndSignsWhatItsPublicKeyVerifies() throws {
        let key = try SigningKey.generate()
        let read = try SigningKey(text: "  \n" + key.text + "\n\n")
        #expect(read.text == key.text)
        #expect(read.publicKey == key.publicKey)
        #expect(key.publicKey.id.count == 16)
        #expect(key.publicKey.id == String(ContentHash.sha256Hex(key.publicKey.rawRepresentation).prefix(16)))
        let message = Data("the manifest".utf8)
        let signature = try read.sign(message)
        #expect(signature.count == 64)
        let trusted = try TrustedKey(text: key.publicKey.text + "\n")
        #expect(trusted.isValidSignature(signature, of: message))
        #expect(!trusted.isValidSignature(signature, of: Data("the manifesT".utf8)))
        #expect(try SigningKey.generate().text != key.text, "two keys generated alike")
    }

    /// Text that is no key is an error, never a crash, and the message does not repeat the text,
    /// which may be a secret pasted in the wrong place.
    @Test(arguments: [
        "", "  \n", "not base64 at all!", Data(repeating: 7, count: 31).base64EncodedString(),
        Data(repeating: 7, count: 64).base64EncodedString(), "c2VjcmV0IHNlY3JldCBzZWNyZXQ",
    ])
    func refusesTextThatIsNotAKey(_ text: String) throws {
        let error = try #require(throws: LockerError.self) { try SigningKey(text: text, from: "LOCKER_SIGNING_KEY") }
        let message = error.description
        #expect(message.hasPrefix("LOCKER_SIGNING_KEY is "), "\(message)")
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty { #expect(!message.contains(trimmed), "\(message)") }
    }

    // MARK: The signature file

    @Test func aSignedBundlesSignatureVerifiesWithTheTrustedKey() throws {
        let vault = try TestVault(Self.notes)
        defer { vault.remove() }
        let key = try SigningKey.generate()
        let compilation = try Self.compile(vault, keys: [key])
        #expect(!compilation.failed, "\(compilation.diagnostics.rendered)")
        let (bytes, signature) = try Self.signed(compilation)
        let manifest = try JSONDecoder().decode(Manifest.self, from: bytes)
        #expect(manifest.signedBy == [key.publicKey.id])
        #expect(signature.signatures.map(\.keyID) == [key.publicKey.id])
        let trusted = try TrustedKey(text: key.publicKey.text)
        #expect(try signature.verify(manifest: bytes, naming: manifest.signedBy, trusting: [trusted]) == trusted)
        // Canonical, on one line, as every bundle file.
        #expect(signature.data == (try #require(compilation.files.first { $0.path.contains("/signatures/") }).data))
        // The signature file is not one of the manifest's files, which it could not name.
        #expect(!manifest.files.contains { $0.path.hasPrefix("signatures/") })
        // Another key's public half does not verify it.
        let stranger = try SigningKey.generate().publicKey
        #expect(throws: SignatureError.self) {
            try signature.verify(manifest: bytes, naming: manifest.signedBy, trusting: [stranger])
        }
    }

    @Test func alteringAnyByteOfTheManifestFailsVerification() throws {
        let vault = try TestVault(Self.notes)
        defer { vault.remove() }
        let key = try SigningKey.generate()
        let (bytes, signature) = try Self.signed(try Self.compile(vault, keys: [key]))
        let manifest = try JSONDecoder().decode(Manifest.self, from: bytes)
        var verified = 0
        for offset in bytes.indices {
            var altered = bytes
            altered[offset] ^= 0x01
            do {
                _ = try signature.verify(manifest: altered, naming: manifest.signedBy, trusting: [key.publicKey])
                verified += 1
                Issue.record("the manifest with byte \(offset) altered still verifies")
            } catch {}
        }
        #expect(verified == 0)
        #expect(
            try signature.verify(manifest: bytes, naming: manifest.signedBy, trusting: [key.publicKey]) == key.publicKey
        )
    }

    /// While a key replaces another, both sign: an app that trusts either one accepts the manifest.
    @Test func severalKeysEachSignAndEitherIsTrusted() throws {
        let vault = try TestVault(Self.notes)
        defer { vault.remove() }
        let old = try SigningKey.generate()
        let new = try SigningKey.generate()
        let (bytes, signature) = try Self.signed(try Self.compile(vault, keys: [old, new, old]))
        let manifest = try JSONDecoder().decode(Manifest.self, from: bytes)
        let ids = [old.publicKey.id, new.publicKey.id].sorted()
        #expect(manifest.signedBy == ids)
        #expect(signature.signatures.map(\.keyID) == ids)
        for key in [old, new] {
            #expect(
                try signature.verify(manifest: bytes, naming: manifest.signedBy, trusting: [key.publicKey])
                    == key.publicKey)
        }
    }

    @Test func twoSignedBuildsAreByteIdentical() throws {
        let vault = try TestVault(Self.notes)
        defer { vault.remove() }
        let key = try SigningKey.generate()
        let first = try Self.compile(vault, keys: [key])
        let second = try Self.compile(vault, keys: [SigningKey(text: key.text)])
        #expect(first.files.map(\.path) == second.files.map(\.path))
        for (one, two) in zip(first.files, second.files) {
            #if canImport(Darwin)
                // CryptoKit, which swift-crypto uses on Apple's systems, randomizes Ed25519
                // signatures; BoringSSL's follow RFC 8032, the same bytes every time.
                if one.path.contains("/signatures/") { continue }
            #endif
            #expect(one.data == two.data, "\(one.path) differs")
        }
    }

    @Test func headersMakeTheSignatureFilesImmutableWhenSigned() throws {
        let vault = try TestVault(Self.notes)
        defer { vault.remove() }
        let rule = "/bundles/v1/signatures/*\n  Cache-Control: public, max-age=31536000, immutable\n"
        for keys in [[], [try SigningKey.generate()]] {
            let compilation = try Self.compile(vault, keys: keys)
            let headers = try #require(compilation.files.first { $0.path == "_headers" })
            let text = String(decoding: headers.data, as: UTF8.self)
            #expect(text.contains(rule) == !keys.isEmpty, "\(text)")
            let signatures = compilation.files.filter { $0.path.hasPrefix("bundles/v1/signatures/") }
            #expect(signatures.count == (keys.isEmpty ? 0 : 1))
            for path in signatures.map(\.path) {
                let matching = HostHeaders(text).matching("/" + path, on: .cloudflare)
                #expect(matching.map(\.pattern) == ["/bundles/v1/signatures/*"])
            }
        }
    }

    // MARK: version and expires

    @Test func versionAndExpiresComeFromTheContentTime() throws {
        let vault = try TestVault(Self.notes)
        defer { vault.remove() }
        let unsigned = try #require(try Self.compile(vault, keys: []).manifest)
        #expect(unsigned.version == 1_700_000_000)
        #expect(unsigned.generatedAt == "2023-11-14T22:13:20Z")
        #expect(unsigned.expires == "2023-12-14T22:13:20Z", "30 days later by default")
        #expect(unsigned.signedBy == nil)

        try vault.write("locker.yml", Data("manifestExpiryDays: 7\n".utf8))
        let week = try #require(try Self.compile(vault, keys: [SigningKey.generate()]).manifest)
        #expect(week.version == 1_700_000_000)
        #expect(week.expires == "2023-11-21T22:13:20Z")

        // --bundle-version replaces the version, not the content's time the expiry counts from.
        let given = try #require(try Self.compile(vault, keys: [], bundleVersion: 42).manifest)
        #expect(given.version == 42)
        #expect(given.expires == "2023-11-21T22:13:20Z")
        #expect(given.generatedAt == "2023-11-14T22:13:20Z")
    }

    /// Outside git and without `SOURCE_DATE_EPOCH` the content's time is unknown: an unsigned
    /// build has neither field, and a signed one stops, even given a version: an app refuses a
    /// signed manifest without an expiry, which counts from the content's time.
    @Test func aSignedBuildWithoutAContentTimeStops() throws {
        let vault = try TestVault(Self.notes)
        defer { vault.remove() }
        let unsigned = try #require(try Self.compile(vault, keys: [], epoch: nil).manifest)
        #expect(unsigned.version == nil && unsigned.expires == nil && unsigned.generatedAt == nil)
        let given = try #require(try Self.compile(vault, keys: [], epoch: nil, bundleVersion: 7).manifest)
        #expect(given.version == 7 && given.expires == nil, "unsigned, a version without an expiry")
        let key = try SigningKey.generate()
        for bundleVersion in [nil, 7] {
            let error = try #require(throws: LockerError.self) {
                try Self.compile(vault, keys: [key], epoch: nil, bundleVersion: bundleVersion)
            }
            #expect(error.description == Compiler.untimedSigning)
        }
        for advice in ["SOURCE_DATE_EPOCH", "commit", "--bundle-version", "expiry"] {
            #expect(Compiler.untimedSigning.contains(advice), "\(Compiler.untimedSigning)")
        }
    }

    /// A content time whose expiry is past the year 9999 (or the integers): an unsigned build
    /// leaves `expires` out, and a signed one stops and says why.
    @Test func aSignedBuildWhoseExpiryIsPastADateStops() throws {
        let vault = try TestVault(Self.notes, config: "manifestExpiryDays: 36500\n")
        defer { vault.remove() }
        let key = try SigningKey.generate()
        let lastDay = Compiler.latestExpiry - 36_500 * 86_400
        let cases: [(epoch: Int, days: Int, expires: String?)] = [
            (lastDay, 36_500, "9999-12-31T23:59:59Z"),
            (lastDay + 1, 36_500, nil),
            (Compiler.latestExpiry + 1, 36_500, nil),
            (Int.max - 86_400, 36_500, nil),
            (Int.max, 36_500, nil),
        ]
        for (epoch, days, expires) in cases {
            let unsigned = try #require(try Self.compile(vault, keys: [], epoch: String(epoch)).manifest)
            #expect(unsigned.version == epoch)
            #expect(unsigned.expires == expires, "\(epoch)")
            if let expires {
                let signed = try #require(try Self.compile(vault, keys: [key], epoch: String(epoch)).manifest)
                #expect(signed.expires == expires && signed.signedBy != nil)
                continue
            }
            let error = try #require(throws: LockerError.self) {
                try Self.compile(vault, keys: [key], epoch: String(epoch))
            }
            #expect(error.description == Compiler.unexpiringSigning(contentTime: epoch, days: days))
            #expect(error.description.contains("9999") && error.description.contains("SOURCE_DATE_EPOCH"))
            #expect(error.description.contains("manifestExpiryDays") == (epoch <= Compiler.latestExpiry))
        }
    }

    @Test func anExpiryPastWhatADateSaysIsLeftOut() {
        #expect(Compiler.expiry(of: 0, days: 1) == "1970-01-02T00:00:00Z")
        #expect(Compiler.expiry(of: Compiler.latestExpiry - 86_400, days: 1) == "9999-12-31T23:59:59Z")
        #expect(Compiler.expiry(of: Compiler.latestExpiry - 86_399, days: 1) == nil, "the year 10000")
        #expect(Compiler.expiry(of: Int.max - 10, days: 1) == nil)
        #expect(Compiler.expiry(of: 0, days: Int.max) == nil)
    }

    // MARK: manifestExpiryDays

    static let invalidExpiries = [
        "manifestExpiryDays: 1️⃣0\n", "title: T\nmanifestExpiryDays: 1️⃣-3\n", "manifestExpiryDays: 1️⃣thirty\n",
        "manifestExpiryDays: 1️⃣1.5\n", "manifestExpiryDays: 1️⃣36501\n", "manifestExpiryDays: 1️⃣[30]\n",
        "manifestExpiryDays: 1️⃣\"30\"\n", "manifestExpiryDays: 1️⃣99999999999999999999999\n",
        "locales: [en]\nmanifestExpiryDays:\n  1️⃣days: 3\n",
    ]

    @Test(arguments: invalidExpiries)
    func reportsAnInvalidExpiryWhereItIsWritten(_ config: String) throws {
        let marked = MarkedText(config)
        let vault = try TestVault(Self.notes, config: marked.text)
        defer { vault.remove() }
        let compilation = try vault.compile()
        let found = compilation.diagnostics.filter { $0.code == .configInvalid }
        #expect(found.count == 1, "\(compilation.diagnostics.rendered)")
        let diagnostic = try #require(found.first)
        #expect(diagnostic.file == "locker.yml")
        #expect(diagnostic.position == marked["1"], "\(compilation.diagnostics.rendered)")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message == "'manifestExpiryDays' must be a whole number from 1 to 36500")
        #expect(compilation.manifest == nil, "a vault with errors writes nothing")
    }

    @Test(arguments: [1, 30, 36_500])
    func acceptsAnExpiryOfWholeDays(_ days: Int) throws {
        let vault = try TestVault(Self.notes, config: "manifestExpiryDays: \(days)\n")
        defer { vault.remove() }
        let compilation = try vault.compile()
        #expect(compilation.diagnostics.isEmpty, "\(compilation.diagnostics.rendered)")
        #expect(compilation.config.manifestExpiryDays == days)
        #expect(compilation.manifest?.expires == Compiler.internetDateTime(days * 86_400))
    }

    // MARK: Writing the output folder

    /// Builds `vault` into `output` as `locker build` does: in place over a previous build.
    static func build(_ vault: TestVault, into output: URL, keys: [SigningKey], bundleVersion: Int? = nil) throws {
        var compiler = Compiler(vault: vault.root, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        compiler.signingKeys = keys
        compiler.bundleVersion = bundleVersion
        let transaction = try OutputWriter.begin(replacing: output)
        let compilation = try compiler.compile(
            into: transaction, taking: BuildFingerprint(compiler: compiler, settings: []))
        #expect(!compilation.failed, "\(compilation.diagnostics.rendered)")
        try transaction.commit()
    }

    /// The signature files in `output`, by name.
    static func signatureFiles(in output: URL) -> [String] {
        let folder = output.appendingPathComponent("bundles/v1/signatures").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// A rebuild whose manifest changed writes the new manifest's signature file and removes the
    /// old one, as it removes every file the build no longer has; an unsigned one removes them all.
    @Test func aRebuildReplacesTheSignatureFileOfTheOldManifest() throws {
        let vault = try TestVault(Self.notes)
        defer { vault.remove() }
        let output = vault.root.deletingLastPathComponent().appendingPathComponent("out-\(UUID().uuidString)")
        defer { removeOutput(output) }
        let key = try SigningKey.generate()
        try Self.build(vault, into: output, keys: [key])
        let manifestURL = output.appendingPathComponent("bundles/v1/manifest.json")
        let first = try Data(contentsOf: manifestURL)
        #expect(Self.signatureFiles(in: output) == [String(ContentHash.sha256Hex(first).prefix(16)) + ".json"])

        try vault.write("a.md", Data("---\ntitle: A\n---\nFirst, edited.\n".utf8))
        try Self.build(vault, into: output, keys: [key])
        let second = try Data(contentsOf: manifestURL)
        #expect(second != first)
        let name = String(ContentHash.sha256Hex(second).prefix(16)) + ".json"
        #expect(Self.signatureFiles(in: output) == [name])
        let signature = try ManifestSignature(
            data: Data(contentsOf: output.appendingPathComponent("bundles/v1/signatures/" + name)))
        let manifest = try JSONDecoder().decode(Manifest.self, from: second)
        #expect(
            try signature.verify(manifest: second, naming: manifest.signedBy, trusting: [key.publicKey])
                == key.publicKey)
        // Listed in the marker like any file the build wrote.
        let marker = try String(contentsOf: output.appendingPathComponent(".locker-build"), encoding: .utf8)
        #expect(marker.contains("bundles/v1/signatures/" + name))

        try Self.build(vault, into: output, keys: [])
        #expect(Self.signatureFiles(in: output).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("bundles/v1/signatures").path))
    }

    /// The no-change check sees a key added or replaced, and a version given, as a change.
    @Test func theFingerprintChangesWithTheKeysAndTheVersionGiven() throws {
        let vault = try TestVault(Self.notes)
        defer { vault.remove() }
        let one = try SigningKey.generate()
        let two = try SigningKey.generate()
        func fingerprint(_ keys: [SigningKey], _ version: Int? = nil) -> String {
            var compiler = Compiler(vault: vault.root, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
            compiler.signingKeys = keys
            compiler.bundleVersion = version
            return BuildFingerprint(compiler: compiler, settings: []).hex
        }
        let prints = [
            fingerprint([]), fingerprint([one]), fingerprint([two]), fingerprint([one, two]), fingerprint([], 3),
        ]
        #expect(Set(prints).count == prints.count, "\(prints)")
        #expect(fingerprint([one]) == fingerprint([try SigningKey(text: one.text)]))
        #expect(fingerprint([two, one]) == fingerprint([one, two]))
    }
}
