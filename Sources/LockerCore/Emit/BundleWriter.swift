import Foundation
import LockerKit

/// A file of the build output: its path relative to the output folder, and its bytes.
public struct OutputFile: Sendable, Hashable {
    public var path: String
    public var data: Data

    public init(path: String, data: Data) {
        self.path = path
        self.data = data
    }
}

/// Lays out the bundle: one content-addressed file per document, an index per kind and locale,
/// the assets, the manifest and the `_headers` file for the host.
///
/// Editing one note changes its own file, the index of its kind and locale (only when what the
/// index shows changed) and the manifest; every other file keeps its name and bytes.
struct BundleWriter: Sendable {
    var config: VaultConfig
    var generatedAt: String?

    func render(documents: [Document], assets: [AssetCatalog.Asset]) throws -> (files: [OutputFile], manifest: Manifest)
    {
        let root = BundleSchema.folder
        var files: [OutputFile] = []
        var entries: [Manifest.File] = []

        func add(_ relative: String, _ data: Data, kind: String, locale: String?, id: String?, lists: String?) {
            files.append(OutputFile(path: root + "/" + relative, data: data))
            entries.append(
                Manifest.File(
                    path: relative, kind: kind, locale: locale, id: id, lists: lists,
                    sha256: ContentHash.sha256Hex(data),
                    size: data.count))
        }
        func hashed(_ folder: String, _ prefix: String, _ data: Data) -> String {
            "\(folder)/\(prefix)\(ContentHash.sha256Hex(data).prefix(16)).json"
        }

        let encoded = Compiler.parallelMap(documents) { document in Result { try document.encoded() } }
        for (document, result) in zip(documents, encoded) {
            let data = try result.get()
            let folder = "\(document.kind)/\(document.locale)"
            add(
                hashed(folder, "", data), data, kind: document.kind.rawValue, locale: document.locale, id: document.id,
                lists: nil)
        }
        // Every kind has an index in every locale, listing every document of the kind: in that
        // locale when translated, else in the default locale, else in the first locale that has it.
        for kind in ContentKind.known {
            let byID = Dictionary(grouping: documents.filter { $0.kind == kind }, by: \.id)
            for locale in config.locales {
                var indexEntries: [ContentIndex.Entry] = []
                for (_, versions) in byID {
                    guard let chosen = config.preferred(versions, in: locale, localeOf: \.locale) else { continue }
                    indexEntries.append(chosen.indexEntry)
                }
                indexEntries.sort(by: Self.indexOrder)
                let data = try CanonicalJSON.encode(
                    ContentIndex(kind: kind, locale: locale, entries: indexEntries), layout: .compact)
                add(
                    hashed("\(kind)/\(locale)", "index.", data), data, kind: "index", locale: locale, id: nil,
                    lists: kind.rawValue)
            }
        }
        var written: Set<String> = []
        for asset in assets where written.insert(asset.bundlePath).inserted {
            add(asset.bundlePath, asset.data, kind: "asset", locale: nil, id: nil, lists: nil)
        }
        entries.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        let manifest = Manifest(
            schemaVersion: BundleSchema.version,
            contentVersion: Manifest.contentVersion(of: entries),
            generatedAt: generatedAt, title: config.title, defaultLocale: config.defaultLocale, locales: config.locales,
            deepLinkScheme: config.deepLinkScheme, files: entries)
        files.append(
            OutputFile(path: root + "/manifest.json", data: try CanonicalJSON.encode(manifest, layout: .compact)))
        files.append(OutputFile(path: "_headers", data: Data(headers(entries: entries).utf8)))
        files.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return (files, manifest)
    }

    static func indexOrder(_ lhs: ContentIndex.Entry, _ rhs: ContentIndex.Entry) -> Bool {
        switch (lhs.order, rhs.order) {
        case (let left?, let right?) where left != right: return left < right
        case (.some, .none): return true
        case (.none, .some): return false
        default: break
        }
        if lhs.title != rhs.title { return lhs.title.utf8.lexicographicallyPrecedes(rhs.title.utf8) }
        return lhs.id.utf8.lexicographicallyPrecedes(rhs.id.utf8)
    }

    /// Netlify / Cloudflare Pages `_headers`: hashed folders immutable, the manifest revalidated.
    ///
    /// The manifest is matched by its own rule and the hashed files by their folders, so no path
    /// matches two rules (hosts merge the headers of every matching rule).
    private func headers(entries: [Manifest.File]) -> String {
        let root = "/" + BundleSchema.folder
        let folders = Set(entries.compactMap { $0.path.split(separator: "/").first.map(String.init) }).sorted()
        var out = "# Written by locker build. Content-addressed files never change; the manifest does.\n"
        out += "\(root)/manifest.json\n  Cache-Control: no-cache\n  Access-Control-Allow-Origin: *\n"
        for folder in folders {
            out +=
                "\(root)/\(folder)/*\n  Cache-Control: public, max-age=31536000, immutable\n  Access-Control-Allow-Origin: *\n"
        }
        return out
    }
}
