import Foundation
import LockerKit
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `locker keygen`, and `locker build` signing with the key it made, through the built binary.
@Suite struct KeygenTests {
    static let notes = ["locker.yml": "title: Signed\n", "a.md": "---\ntitle: A\n---\nHello [[b]].\n", "b.md": "B.\n"]

    /// The permission bits of the file at `path`, not following a link.
    static func mode(_ path: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path.path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    /// The umask this process (and so the `locker` it starts) runs under.
    static var fileMask: Int {
        let mask = umask(0)
        umask(mask)
        return Int(mask)
    }

    /// Runs `locker keygen --out <folder>` in `workspace`.
    static func keygen(_ folder: String, in workspace: Workspace) throws -> LockerRun {
        try LockerRun(["keygen", "--out", folder], in: workspace.root)
    }

    /// The manifest the build in `out` wrote, its bytes, and its signature file, verified with
    /// `keys`: the key that verified.
    static func verify(_ out: String, in workspace: Workspace, trusting keys: [TrustedKey]) throws -> (
        Manifest, TrustedKey
    ) {
        let bytes = try workspace.read(out + "/bundles/v1/manifest.json")
        let manifest = try JSONDecoder().decode(Manifest.self, from: bytes)
        let signature = try ManifestSignature(
            data: workspace.read(out + "/bundles/v1/" + ManifestSignature.path(forManifest: bytes)))
        return (manifest, try signature.verify(manifest: bytes, naming: manifest.signedBy, trusting: keys))
    }

    @Test func keygenWritesAPrivateKeyOnlyItsOwnerReadsAndPrintsThePublicKey() throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        let run = try Self.keygen("keys/new", in: workspace)
        #expect(run.status == 0, "\(run.stderr)")
        let keys = workspace.root.appendingPathComponent("keys/new")
        let privateKey = keys.appendingPathComponent("locker-signing.key")
        let publicKey = keys.appendingPathComponent("locker-signing.pub")
        #expect(try Self.mode(privateKey) == 0o600 & ~Self.fileMask)
        #expect(try Self.mode(privateKey) & 0o077 == 0, "the private key is readable by others")
        #expect(try Self.mode(publicKey) == 0o644 & ~Self.fileMask)
        let publicText = String(decoding: try Data(contentsOf: publicKey), as: UTF8.self)
        #expect(run.stdout == publicText)
        #expect(publicText.hasSuffix("\n") && publicText.filter { $0 == "\n" }.count == 1)
        let trusted = try TrustedKey(text: publicText)
        #expect(trusted.rawRepresentation.count == 32)
        let privateText = String(decoding: try Data(contentsOf: privateKey), as: UTF8.self)
        #expect(Data(base64Encoded: privateText.trimmingCharacters(in: .newlines))?.count == 32)
        #expect(privateText != publicText)
        #expect(run.stderr.contains("keys/new/locker-signing.key"), "\(run.stderr)")
        #expect(run.stderr.contains("LOCKER_SIGNING_KEY"), "\(run.stderr)")
        #expect(!run.stderr.contains(privateText.trimmingCharacters(in: .newlines)), "the secret is printed")
        #expect(!run.stdout.contains(privateText.trimmingCharacters(in: .newlines)), "the secret is printed")
    }

    @Test func keygenRefusesToOverwriteEitherFile() throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        #expect(try Self.keygen("keys", in: workspace).status == 0)
        let before = try [workspace.read("keys/locker-signing.key"), workspace.read("keys/locker-signing.pub")]
        let again = try Self.keygen("keys", in: workspace)
        #expect(again.status == 2)
        #expect(again.stdout.isEmpty)
        #expect(again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(try [workspace.read("keys/locker-signing.key"), workspace.read("keys/locker-signing.pub")] == before)

        // A public key alone (the private one moved to CI) is not overwritten either, and no
        // private key is written beside it.
        try FileManager.default.removeItem(at: workspace.root.appendingPathComponent("keys/locker-signing.key"))
        let half = try Self.keygen("keys", in: workspace)
        #expect(half.status == 2)
        #expect(
            !FileManager.default.fileExists(
                atPath: workspace.root.appendingPathComponent("keys/locker-signing.key").path))
        #expect(try workspace.read("keys/locker-signing.pub") == before[1])
    }

    @Test(arguments: ["vault", "vault/keys", "vault/guides/deep/keys"])
    func keygenRefusesToWriteInsideAVault(_ folder: String) throws {
        let workspace = try Workspace(Self.notes.merging(["guides/g.md": "G.\n"]) { $1 })
        defer { workspace.remove() }
        let run = try Self.keygen(folder, in: workspace)
        #expect(run.status == 2)
        #expect(run.stderr.contains("inside the vault"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("vault/keys").path))
        #expect(
            !FileManager.default.fileExists(
                atPath: workspace.root.appendingPathComponent(folder + "/locker-signing.key").path))
    }

    @Test func keygenRefusesToWriteInsideABuildOutput() throws {
        let workspace = try Workspace(Self.notes)
        defer { workspace.remove() }
        #expect(try LockerRun(["build", "vault", "--out", "out"], in: workspace.root).status == 0)
        let run = try Self.keygen("out/site/keys", in: workspace)
        #expect(run.status == 2)
        #expect(run.stderr.contains("inside the build output"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("out/site/keys").path))
    }

    @Test func keygenWarnsInsideAGitWorkTree() throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        try FileManager.default.createDirectory(
            at: workspace.root.appendingPathComponent(".git"), withIntermediateDirectories: true)
        let run = try Self.keygen("secrets", in: workspace)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning:") && run.stderr.contains("out of the repository"), "\(run.stderr)")
        let outside = try Workspace([:])
        defer { outside.remove() }
        let quiet = try Self.keygen("secrets", in: outside)
        #expect(quiet.status == 0)
        #expect(!quiet.stderr.contains("warning:"), "\(quiet.stderr)")
    }

    @Test func buildSignsWithEachSignKeyAndTheSignatureVerifies() throws {
        let workspace = try Workspace(Self.notes)
        defer { workspace.remove() }
        #expect(try Self.keygen("../keys-\(workspace.root.lastPathComponent)/one", in: workspace).status == 0)
        let keys = workspace.root.deletingLastPathComponent().appendingPathComponent(
            "keys-\(workspace.root.lastPathComponent)")
        defer { try? FileManager.default.removeItem(at: keys) }
        #expect(
            try LockerRun(["keygen", "--out", keys.appendingPathComponent("two").path], in: workspace.root).status == 0)
        let one = try TrustedKey(
            text: String(
                decoding: try Data(contentsOf: keys.appendingPathComponent("one/locker-signing.pub")), as: UTF8.self))
        let two = try TrustedKey(
            text: String(
                decoding: try Data(contentsOf: keys.appendingPathComponent("two/locker-signing.pub")), as: UTF8.self))

        let signed = try LockerRun(
            [
                "build", "vault", "--out", "out", "--sign-key",
                keys.appendingPathComponent("one/locker-signing.key").path,
            ],
            in: workspace.root, environment: ["SOURCE_DATE_EPOCH": "1700000000", "LOCKER_SIGNING_KEY": ""])
        #expect(signed.status == 0, "\(signed.stdout)\(signed.stderr)")
        #expect(signed.stdout.contains(", signed by \(one.id); the site"), "\(signed.stdout)")
        let (manifest, verified) = try Self.verify("out", in: workspace, trusting: [one])
        #expect(verified == one)
        #expect(manifest.version == 1_700_000_000)
        #expect(manifest.expires == "2023-12-14T22:13:20Z")
        #expect(manifest.signedBy == [one.id])
        #expect(throws: SignatureError.self) { try Self.verify("out", in: workspace, trusting: [two]) }

        // Both keys, while one replaces the other: not up to date, and either verifies.
        let both = try LockerRun(
            [
                "build", "vault", "--out", "out", "--sign-key",
                keys.appendingPathComponent("one/locker-signing.key").path,
                "--sign-key", keys.appendingPathComponent("two/locker-signing.key").path,
            ], in: workspace.root, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(!both.stdout.contains("Up to date"), "\(both.stdout)")
        #expect(
            both.stdout.contains("signed by \([one.id, two.id].sorted().joined(separator: ", "));"), "\(both.stdout)")
        #expect(try Self.verify("out", in: workspace, trusting: [two]).1 == two)
        #expect(try Self.verify("out", in: workspace, trusting: [one]).1 == one)
        let signatures = try FileManager.default.contentsOfDirectory(
            atPath: workspace.root.appendingPathComponent("out/bundles/v1/signatures").path)
        #expect(signatures.count == 1, "the first manifest's signature file is removed: \(signatures)")
        let headers = String(decoding: try workspace.read("out/_headers"), as: UTF8.self)
        #expect(headers.contains("/bundles/v1/signatures/*\n  Cache-Control: public, max-age=31536000, immutable\n"))
    }

    @Test func buildSignsWithTheKeyInLOCKER_SIGNING_KEY() throws {
        let workspace = try Workspace(Self.notes)
        defer { workspace.remove() }
        let keys = workspace.root.deletingLastPathComponent().appendingPathComponent("keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: keys) }
        #expect(try LockerRun(["keygen", "--out", keys.path], in: workspace.root).status == 0)
        let secret = String(
            decoding: try Data(contentsOf: keys.appendingPathComponent("locker-signing.key")), as: UTF8.self)
        let trusted = try TrustedKey(
            text: String(
                decoding: try Data(contentsOf: keys.appendingPathComponent("locker-signing.pub")), as: UTF8.self))
        let run = try LockerRun(
            ["build", "vault", "--out", "out"], in: workspace.root,
            environment: ["SOURCE_DATE_EPOCH": "1700000000", "LOCKER_SIGNING_KEY": secret])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("signed by \(trusted.id);"), "\(run.stdout)")
        #expect(!run.stdout.contains(secret.trimmingCharacters(in: .newlines)))
        #expect(try Self.verify("out", in: workspace, trusting: [trusted]).1 == trusted)

        // Not a key: refused before anything is written, without repeating the secret's text.
        let bad = try LockerRun(
            ["build", "vault", "--out", "other"], in: workspace.root,
            environment: ["SOURCE_DATE_EPOCH": "1700000000", "LOCKER_SIGNING_KEY": "hunter2-not-a-key"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("LOCKER_SIGNING_KEY is not a signing key"), "\(bad.stderr)")
        #expect(!bad.stderr.contains("hunter2"))
        #expect(!FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("other").path))

        // Empty, as a CI secret a fork's pull request cannot see: unsigned, and says so.
        let empty = try LockerRun(
            ["build", "vault", "--out", "unsigned"], in: workspace.root,
            environment: ["SOURCE_DATE_EPOCH": "1700000000", "LOCKER_SIGNING_KEY": ""])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout.contains(", unsigned; the site"), "\(empty.stdout)")
        let manifest = try JSONDecoder().decode(
            Manifest.self, from: workspace.read("unsigned/bundles/v1/manifest.json"))
        #expect(manifest.signedBy == nil)
        #expect(manifest.version == 1_700_000_000)
    }

    /// Outside git and without `SOURCE_DATE_EPOCH` the content has no time to count the
    /// manifest's expiry from: a signed build stops (exit 2, nothing written) and says what to
    /// do, given a version or not, as apps refuse a signed manifest without an expiry.
    @Test func aSignedBuildWithoutAContentTimeFailsAndSaysWhatToDo() throws {
        let workspace = try Workspace(Self.notes)
        defer { workspace.remove() }
        let keys = workspace.root.deletingLastPathComponent().appendingPathComponent("keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: keys) }
        #expect(try LockerRun(["keygen", "--out", keys.path], in: workspace.root).status == 0)
        let key = keys.appendingPathComponent("locker-signing.key").path
        let environment = ["SOURCE_DATE_EPOCH": "", "LOCKER_SIGNING_KEY": ""]
        for extra in [[], ["--bundle-version", "12"]] {
            let run = try LockerRun(
                ["build", "vault", "--out", "out", "--sign-key", key] + extra, in: workspace.root,
                environment: environment)
            #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
            for advice in ["needs the content's time", "expiry", "SOURCE_DATE_EPOCH", "commit the vault"] {
                #expect(run.stderr.contains(advice), "\(run.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("out").path))
        }

        // Unsigned, the same build writes a manifest without a version or an expiry.
        let unsigned = try LockerRun(
            ["build", "vault", "--out", "out", "--bundle-version", "12"], in: workspace.root,
            environment: environment)
        #expect(unsigned.status == 0, "\(unsigned.stderr)")
        let manifest = try JSONDecoder().decode(Manifest.self, from: try workspace.read("out/bundles/v1/manifest.json"))
        #expect(manifest.version == 12 && manifest.expires == nil && manifest.signedBy == nil)
    }

    /// A `SOURCE_DATE_EPOCH` whose expiry is past the year 9999 (or the integers): the signed
    /// build stops (exit 2, nothing written) and says so, rather than sign a manifest without an
    /// expiry, which every app would refuse.
    @Test(arguments: ["253402300799", "9223372036854775807"])
    func aSignedBuildWhoseExpiryIsPastADateFails(_ epoch: String) throws {
        let workspace = try Workspace(Self.notes)
        defer { workspace.remove() }
        let keys = workspace.root.deletingLastPathComponent().appendingPathComponent("keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: keys) }
        #expect(try LockerRun(["keygen", "--out", keys.path], in: workspace.root).status == 0)
        let run = try LockerRun(
            ["build", "vault", "--out", "out", "--sign-key", keys.appendingPathComponent("locker-signing.key").path],
            in: workspace.root, environment: ["SOURCE_DATE_EPOCH": epoch, "LOCKER_SIGNING_KEY": ""])
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        for said in ["needs an expiry", "(\(epoch) s since 1970", "past the year 9999", "SOURCE_DATE_EPOCH"] {
            #expect(run.stderr.contains(said), "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("out").path))
    }
}
