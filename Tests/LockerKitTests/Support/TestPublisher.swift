import Crypto
import Foundation
import LockerKit

/// The files of a small bundle: guides, checklists and decks in `ru` and `en`, an index of each
/// kind in each locale, and an asset, at content-addressed paths as a build names them.
struct TestContent {
    /// A file and what the manifest says of it, as ``HandBundle`` lists them.
    typealias Entry = HandBundle.Entry

    var entries: [Entry] = []

    /// `briefing` (guide, ru and en), `harbour` (guide, ru only), `check-in` (checklist, ru and
    /// en), `flags` (deck, en only), the indexes, and an asset. `edition` is written into the
    /// English briefing: another edition changes that one file (and the English guide index).
    static func sailing(edition: Int = 1) throws -> TestContent {
        var content = TestContent()
        try content.add(guide("briefing", locale: "ru", title: "Инструктаж", text: "Жилеты, огнетушитель."))
        try content.add(guide("briefing", locale: "en", title: "Briefing", text: "Life jackets, edition \(edition)."))
        try content.add(guide("harbour", locale: "ru", title: "Гавань", text: "Швартовка кормой."))
        try content.add(ChecklistFixtures.checkIn(), kind: .checklist, id: "check-in", locale: "en")
        try content.add(
            ChecklistFixtures.checklist(
                locale: "ru", title: "Приёмка",
                sections: [("Палуба", [.init(title: nil, items: [("sheets", "Шкоты")])])]),
            kind: .checklist, id: "check-in", locale: "ru")
        try content.add(HandBundle.flagsEN, kind: .deck, id: "flags", locale: "en")
        try content.addIndex(
            .guide, locale: "ru", ids: edition == 1 ? ["briefing", "harbour"] : ["harbour", "briefing"])
        try content.addIndex(
            .guide, locale: "en", ids: edition == 1 ? ["briefing", "harbour"] : ["harbour", "briefing"])
        for locale in ["ru", "en"] {
            try content.addIndex(.checklist, locale: locale, ids: ["check-in"])
            try content.addIndex(.deck, locale: locale, ids: ["flags"])
        }
        content.addAsset(HandBundle.asset, extension: "png")
        return content
    }

    static func guide(_ id: String, locale: String, title: String, text: String) -> Guide {
        Guide(
            id: id, uuid: ContentIdentity.uuidString(kind: .guide, id: id), locale: locale, title: title,
            subtitle: nil, category: nil, type: "document", tags: [], aliases: [], order: nil, source: "\(id).md",
            extra: [:], blocks: [Block(.paragraph([.text(text)]))], sections: [])
    }

    mutating func add(_ guide: Guide) throws {
        try add(guide, kind: .guide, id: guide.id, locale: guide.locale)
    }

    /// Adds a document at `<kind>/<locale>/<hash16>.json`.
    mutating func add(_ document: some Encodable, kind: ContentKind, id: String, locale: String) throws {
        let data = try CanonicalJSON.encode(document)
        entries.append(
            Entry(
                path: "\(kind.rawValue)/\(locale)/\(Self.hash16(data)).json", kind: kind.rawValue, locale: locale,
                id: id,
                lists: nil, data: data))
    }

    /// Adds the index of `kind` in `locale`, listing `ids` in that order.
    mutating func addIndex(_ kind: ContentKind, locale: String, ids: [String]) throws {
        let index = ContentIndex(
            kind: kind, locale: locale,
            entries: ids.enumerated().map { order, id in
                .init(
                    id: id, uuid: ContentIdentity.uuidString(kind: kind, id: id), title: id, subtitle: nil,
                    category: nil, type: nil, tags: [], order: order, locale: locale)
            })
        let data = try CanonicalJSON.encode(index)
        entries.append(
            Entry(
                path: "\(kind.rawValue)/\(locale)/index.\(Self.hash16(data)).json", kind: "index", locale: locale,
                id: nil, lists: kind.rawValue, data: data))
    }

    mutating func addAsset(_ data: Data, extension ext: String) {
        entries.append(
            Entry(
                path: "assets/\(Self.hash16(data)).\(ext)", kind: "asset", locale: nil, id: nil, lists: nil, data: data)
        )
    }

    /// The entry of document `kind`/`id` in `locale`.
    func entry(_ kind: ContentKind, _ id: String, _ locale: String) -> Entry? {
        entries.first { $0.kind == kind.rawValue && $0.id == id && $0.locale == locale }
    }

    /// The paths of the entries that `include` accepts.
    func paths(where include: (Entry) -> Bool = { _ in true }) -> Set<String> {
        Set(entries.filter(include).map(\.path))
    }

    /// The manifest's file list, sorted by path (UTF-8 bytes).
    var files: [Manifest.File] {
        entries.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }.map {
            Manifest.File(
                path: $0.path, kind: $0.kind, locale: $0.locale, id: $0.id, lists: $0.lists,
                sha256: ContentHash.sha256Hex($0.data), size: $0.data.count)
        }
    }

    static func hash16(_ data: Data) -> String { String(ContentHash.sha256Hex(data).prefix(16)) }
}

/// A bundle as a server publishes it: `manifest.json`'s bytes, its signature file and the
/// files, by path relative to the manifest's folder.
struct Publication {
    var manifest: Manifest
    var manifestBytes: Data
    var files: [String: Data]
    /// The signature file's bytes; nil when the manifest is unsigned.
    var signature: Data?

    /// Where the signature file of these manifest bytes is.
    var signaturePath: String { ManifestSignature.path(forManifest: manifestBytes) }
    /// The ETag a server gives the manifest.
    var etag: String { "\"m-\(ContentHash.sha256Hex(manifestBytes).prefix(16))\"" }
    /// How many bytes the files listed weigh.
    var bytes: Int { files.values.reduce(0) { $0 + $1.count } }

    /// Writes the bundle into `folder` as a build does (a seed bundle).
    func write(to folder: URL) throws {
        var all = files
        all["manifest.json"] = manifestBytes
        if let signature { all[signaturePath] = signature }
        for (path, data) in all {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
    }
}

/// Signs and publishes bundles as `locker build` with a signing key does.
struct TestPublisher {
    // Keys made once a run: what a test checks does not depend on their bytes.
    /// The key a repository signs with.
    static let key = Curve25519.Signing.PrivateKey()
    /// The key a repository rotates to.
    static let nextKey = Curve25519.Signing.PrivateKey()
    /// A key no app trusts.
    static let strangerKey = Curve25519.Signing.PrivateKey()

    /// The time tests run at, and the expiry of the manifests they publish by default.
    static let now = Date(timeIntervalSince1970: 1_782_864_000)  // 2026-07-01 00:00 UTC
    static let expires = "2026-08-01T00:00:00Z"

    /// The key an app trusts for `key`.
    static func trusted(_ key: Curve25519.Signing.PrivateKey) throws -> TrustedKey {
        try TrustedKey(rawRepresentation: key.publicKey.rawRepresentation)
    }

    /// The ID a manifest names `key` by.
    static func id(of key: Curve25519.Signing.PrivateKey) -> String {
        TrustedKey.id(of: key.publicKey.rawRepresentation)
    }

    /// Publishes `content` as `version`, signed by `signers` (none: unsigned).
    ///
    /// - Parameters:
    ///   - signedBy: the key IDs the manifest names; by default the signers'.
    ///   - edit: changes the manifest before it is written; `contentVersion` is made again after
    ///     it unless `keepContentVersion`.
    static func publish(
        _ content: TestContent, version: Int?, expires: String? = expires,
        signers: [Curve25519.Signing.PrivateKey] = [key], signedBy: [String]? = nil,
        schemaVersion: String = BundleSchema.version, keepContentVersion: Bool = false,
        edit: (inout Manifest) -> Void = { _ in }
    ) throws -> Publication {
        let files = content.files
        var manifest = Manifest(
            schemaVersion: schemaVersion, contentVersion: Manifest.contentVersion(of: files),
            generatedAt: "2026-06-30T12:00:00Z", title: "Sailing", defaultLocale: "ru", locales: ["ru", "en"],
            deepLinkScheme: nil, files: files, version: version, expires: expires,
            signedBy: signedBy ?? (signers.isEmpty ? nil : signers.map(id(of:))))
        edit(&manifest)
        if !keepContentVersion { manifest.contentVersion = Manifest.contentVersion(of: manifest.files) }
        let bytes = CanonicalJSONWriter.data(for: manifest)
        var signature: Data?
        if !signers.isEmpty {
            signature = try sign(bytes, with: signers)
        }
        var served: [String: Data] = [:]
        for entry in content.entries { served[entry.path] = entry.data }
        return Publication(manifest: manifest, manifestBytes: bytes, files: served, signature: signature)
    }

    /// The signature file of `bytes` by `keys`.
    static func sign(_ bytes: Data, with keys: [Curve25519.Signing.PrivateKey]) throws -> Data {
        let entries = try keys.map { key in
            ManifestSignature.Entry(keyID: id(of: key), signature: try key.signature(for: bytes).base64EncodedString())
        }
        return ManifestSignature(signatures: entries).data
    }
}
