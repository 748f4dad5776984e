import Foundation
import LockerKit
import Testing

/// The repository's default vault (`content/`, copied first, so edits stay out of the
/// repository) built the ways the delivery tests need: signed, edited, signed by a key no app
/// trusts, expired, unsigned. Built once per test run (`shared()`) and never changed: each test
/// copies what it serves.
final class DeliveryBuilds: Sendable {
    /// A key pair from `locker keygen`.
    struct Keys: Sendable {
        let privateKey: URL
        let publicKey: URL
        let trusted: TrustedKey
    }

    /// One `locker build` output.
    struct Built: Sendable, CustomStringConvertible {
        let name: String
        /// The output folder (`_headers`, `bundles/v1/`).
        let output: URL
        let manifestBytes: Data
        let manifest: Manifest

        /// `output/bundles/v1`.
        var bundle: URL { output.appendingPathComponent("bundles/v1") }
        /// The manifest's paths (content-addressed: a changed file is a new path).
        var paths: Set<String> { Set(manifest.files.map(\.path)) }
        /// The manifest's signature file, relative to the bundle folder.
        var signaturePath: String { ManifestSignature.path(forManifest: manifestBytes) }
        var version: Int? { manifest.version }
        var totalBytes: Int { manifest.files.reduce(0) { $0 + $1.size } }
        var description: String { "\(name) (version \(version.map(String.init) ?? "none"))" }
    }

    /// The content time of `v1` (`SOURCE_DATE_EPOCH`): a minute before the tests started, so
    /// that its `expires`, 30 days later, is ahead.
    let epoch: Int
    /// The key apps trust, and one they do not.
    let key: Keys
    let otherKey: Keys
    /// The vault as it is, signed.
    let v1: Built
    /// `guides/anchoring.md` edited, built a minute later, signed.
    let v2: Built
    /// `v2`'s content signed by ``otherKey`` alone.
    let v2ByOtherKey: Built
    /// `v1`'s content rebuilt half a minute later, as a scheduled CI job does: a later version
    /// and expiry, the same files.
    let refreshed: Built
    /// `v1`'s content with a higher version, from a content time 90 days ago: expired.
    let expired: Built
    /// `v1`'s content, unsigned.
    let unsigned: Built
    /// Every English guide edited (on top of `v2`), two minutes after `v1`: many files to download.
    let manyEdits: Built
    /// Holds everything above; removed when the test process exits.
    let root: URL

    /// The note `v2` edits.
    static let editedNote = "guides/anchoring.md"

    private static let built = Result { try DeliveryBuilds() }

    /// The build of this name (``Built/name``), for test arguments.
    func named(_ name: String) throws -> Built {
        let all = [v1, v2, v2ByOtherKey, refreshed, expired, unsigned, manyEdits]
        guard let built = all.first(where: { $0.name == name }) else { throw Failure.unknown(name) }
        return built
    }

    /// The builds, made by the first test that asks.
    static func shared() throws -> DeliveryBuilds { try built.get() }

    private init() throws {
        root = Self.folder
        // The builds outlive every test, so they go when the process ends.
        atexit { try? FileManager.default.removeItem(at: DeliveryBuilds.folder) }
        let vault = root.appendingPathComponent("vault")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        try FileManager.default.copyItem(at: repository.appendingPathComponent("content"), to: vault)

        let epoch = Int(Date().timeIntervalSince1970) - 60
        self.epoch = epoch
        let key = try Self.keygen(in: root, name: "trusted")
        let otherKey = try Self.keygen(in: root, name: "other")
        self.key = key
        self.otherKey = otherKey
        let build = { (name: String, epoch: Int, keys: [Keys], extra: [String]) throws -> Built in
            try Self.build(
                vault, into: Self.folder.appendingPathComponent("out-\(name)"), name: name, epoch: epoch,
                signedBy: keys, extra: extra)
        }

        v1 = try build("v1", epoch, [key], [])
        unsigned = try build("unsigned", epoch, [], [])
        refreshed = try build("refreshed", epoch + 30, [key], [])
        expired = try build("expired", epoch - 90 * 86_400, [key], ["--bundle-version", String(epoch + 30)])
        try Self.append("\nEdited for the delivery tests.\n", to: vault.appendingPathComponent(Self.editedNote))
        v2 = try build("v2", epoch + 60, [key], [])
        v2ByOtherKey = try build("v2-other-key", epoch + 60, [otherKey], [])
        let guides = vault.appendingPathComponent("guides")
        let english = try FileManager.default.contentsOfDirectory(atPath: guides.path).sorted().filter {
            $0.hasSuffix(".md") && !$0.hasSuffix(".ru.md")
        }
        try #require(english.count > 1, "no English guides to edit in \(guides.path)")
        for name in english {
            try Self.append(
                "\nEdited again, with every other English guide.\n", to: guides.appendingPathComponent(name))
        }
        manyEdits = try build("many-edits", epoch + 120, [key], [])
    }

    /// Builds `vault` into `out` at content time `epoch`, signed by `keys`.
    private static func build(
        _ vault: URL, into out: URL, name: String, epoch: Int, signedBy keys: [Keys], extra: [String]
    ) throws -> Built {
        let arguments = ["build", vault.path, "--out", out.path] + keys.flatMap { ["--sign-key", $0.privateKey.path] }
        // An empty LOCKER_SIGNING_KEY counts as unset: the unsigned build stays unsigned
        // whatever the environment holds.
        let run = try LockerRun(
            arguments + extra, in: out.deletingLastPathComponent(),
            environment: ["SOURCE_DATE_EPOCH": String(epoch), "LOCKER_SIGNING_KEY": ""])
        guard run.status == 0 else { throw Failure.build(name, run.stdout + run.stderr) }
        let bytes = try Data(contentsOf: out.appendingPathComponent("bundles/v1/manifest.json"))
        return Built(name: name, output: out, manifestBytes: bytes, manifest: try ContentBundle.decodeManifest(bytes))
    }

    enum Failure: Error, CustomStringConvertible {
        case build(String, String)
        case keygen(String)
        case unknown(String)

        var description: String {
            switch self {
            case .build(let name, let output): "locker build (\(name)) failed: \(output)"
            case .keygen(let output): "locker keygen failed: \(output)"
            case .unknown(let name): "no build is named '\(name)'"
            }
        }
    }

    private static func keygen(in root: URL, name: String) throws -> Keys {
        let folder = root.appendingPathComponent("keys-\(name)")
        let run = try LockerRun(["keygen", "--out", folder.path], in: root)
        guard run.status == 0 else { throw Failure.keygen(run.stdout + run.stderr) }
        let publicKey = folder.appendingPathComponent("locker-signing.pub")
        return Keys(
            privateKey: folder.appendingPathComponent("locker-signing.key"), publicKey: publicKey,
            trusted: try TrustedKey(text: String(contentsOf: publicKey, encoding: .utf8)))
    }

    private static func append(_ text: String, to file: URL) throws {
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    private static let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "locker-delivery-builds-\(UUID().uuidString)")
}
