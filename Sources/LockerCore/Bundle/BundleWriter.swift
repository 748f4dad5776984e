import Foundation
import LockerKit

/// Lays out the bundle: one content-addressed file per document, an index per kind and locale,
/// the assets, the manifest, its signature file when signed, and the `_headers` file for the host.
///
/// Editing one note changes its own file, the index of its kind and locale (only when what the
/// index shows changed) and the manifest; every other file keeps its name and bytes.
struct BundleWriter: Sendable {
    var config: VaultConfig
    var generatedAt: String?
    /// The manifest's `version` and `expires`, when known.
    var version: Int?
    var expires: String?
    /// The keys that sign the manifest; none for an unsigned bundle.
    var signingKeys: [SigningKey] = []
    /// Whether the previous build's manifest, if still in the output, was written by this
    /// program with these settings (its ``NoteRecord`` holds): a file it lists with the same path
    /// and SHA-256 has the same entry, which is copied from it (``Manifest/encodedRun(of:order:reusing:)``).
    var previousManifestHolds = false

    /// What ``render(documents:assets:into:progress:)`` wrote: every file of the bundle but the
    /// manifest and `_headers`, which ``writeManifest(of:into:)`` writes.
    struct Layout: Sendable {
        /// Every file written, in the order written: the indexes, the documents, the assets.
        fileprivate var written: [Manifest.File]
        /// Where the documents' files start in `written`, and how many there are.
        fileprivate var documents: Range<Int>

        /// How many documents have a bundle file.
        var documentCount: Int { documents.count }

        /// The bundle file of the document at `offset` among the documents.
        func documentFile(_ offset: Int) -> Manifest.File { written[documents.lowerBound + offset] }

        /// Whether the bundle file of the document at `offset` has this SHA-256 and size: the
        /// file's other fields are not copied out to tell.
        func documentFile(_ offset: Int, is sha256: String, size: Int) -> Bool {
            written[documents.lowerBound + offset].size == size
                && written[documents.lowerBound + offset].sha256 == sha256
        }

        /// Each document's bundle file's SHA-256, by the document's place.
        var documentSHA256s: [String] { written[documents].map(\.sha256) }
    }

    /// Writes every file of the bundle but the manifest into `sink` as it is encoded: the
    /// indexes, the documents and the assets.
    func render(
        documents: [Document], assets: [AssetCatalog.Asset], into sink: some OutputSink,
        progress: ProgressCounter? = nil
    ) throws -> Layout {
        @Sendable func emit(
            _ data: Data, folder: String, prefix: String = "", kind: String, locale: String?, id: String?,
            lists: String?, name: String? = nil, sha256 known: String? = nil
        ) throws -> Manifest.File {
            try Self.emit(
                data, folder: folder, prefix: prefix, kind: kind, locale: locale, id: id, lists: lists, name: name,
                sha256: known, into: sink)
        }

        // Every kind has an index in every locale, listing every document of the kind: in that
        // locale when translated, else in the default locale, else in the first locale that has it.
        let indexes = ContentKind.known.flatMap { kind in config.locales.map { (kind: kind, locale: $0) } }
        @Sendable func writeIndex(kind: ContentKind, locale: String) throws -> Manifest.File {
            let key = "\(kind)/\(locale)"
            // Grouped by offset in the index's own job, and only when it is listed again: a
            // document is a large value, and copies retain every field.
            let byID = Dictionary(grouping: documents.indices.filter { documents[$0].kind == kind }) {
                documents[$0].id
            }
            var indexEntries: [ContentIndex.Entry] = []
            for (_, versions) in byID {
                guard let chosen = config.preferred(versions, in: locale, localeOf: { documents[$0].locale })
                else { continue }
                indexEntries.append(documents[chosen].indexEntry)
            }
            indexEntries = Self.indexPermutation(indexEntries).map { indexEntries[$0] }
            let data = CanonicalJSONWriter.data(for: ContentIndex(kind: kind, locale: locale, entries: indexEntries))
            return try emit(
                data, folder: key, prefix: "index.", kind: "index", locale: locale, id: nil, lists: kind.rawValue)
        }
        @Sendable func writeDocument(_ offset: Int) throws -> Manifest.File {
            defer { progress?.tick() }
            return try Self.write(documents[offset], into: sink)
        }

        // Indexes and documents are encoded and written on every core, the indexes first: one
        // index of a large vault is as much work as many documents. Only manifest entries are kept.
        let jobs = indexes.indices.map(BundleJob.index) + documents.indices.map(BundleJob.document)
        // The entries are made where they stay: results unwrapped one by one afterwards, on one
        // core, copied each entry (retaining its strings) and then freed the results.
        let failure = FirstFailure()
        let indexCount = indexes.count
        var entries = Compiler.parallelMap(jobs) { job -> Manifest.File in
            do {
                switch job {
                case .index(let offset):
                    let index = indexes[offset]
                    return try writeIndex(kind: index.kind, locale: index.locale)
                case .document(let offset):
                    return try writeDocument(offset)
                }
            } catch {
                switch job {
                case .index(let offset): failure.note(error, at: offset)
                case .document(let offset): failure.note(error, at: indexCount + offset)
                }
                return FirstFailure.placeholder
            }
        }
        try failure.rethrow()
        let documentRange = indexes.count..<entries.count
        for asset in assets {
            entries.append(
                try emit(
                    asset.data, folder: "", kind: "asset", locale: nil, id: nil, lists: nil, name: asset.bundlePath,
                    sha256: asset.sha256))
        }
        return Layout(written: entries, documents: documentRange)
    }

    /// Writes one file into the bundle, named by its hash (`name`, for an asset, keeps its
    /// name), and describes it as the manifest lists it.
    private static func emit(
        _ data: Data, folder: String, prefix: String = "", kind: String, locale: String?, id: String?,
        lists: String?, name: String? = nil, sha256 known: String? = nil, into sink: some OutputSink
    ) throws -> Manifest.File {
        let sha256 = known ?? ContentHash.sha256Hex(data)
        let relative = name ?? path(folder: folder, prefix: prefix, sha256: sha256)
        try sink.write(OutputFile(path: BundleSchema.folder + "/" + relative, data: data), sha256: sha256)
        return Manifest.File(
            path: relative, kind: kind, locale: locale, id: id, lists: lists, sha256: sha256, size: data.count)
    }

    /// Writes a document's file into `sink`, named by its hash, and describes it; a guide
    /// written as it was built has its file.
    static func write(_ document: Document, into sink: some OutputSink) throws -> Manifest.File {
        if case .written(let written) = document { return written.file }
        let folder = "\(document.kind)/\(document.locale)"
        return try emit(
            try document.encoded(), folder: folder, kind: document.kind.rawValue, locale: document.locale,
            id: document.id, lists: nil, into: sink)
    }

    /// The bundle file of a guide the previous build's record keeps, taken from its output when
    /// it is still there; nil when it is not.
    static func keep(_ guide: NoteRecord.KeptGuide, into sink: some OutputSink) throws -> Manifest.File? {
        let relative = path(folder: "\(ContentKind.guide)/\(guide.locale)", sha256: guide.bundleSHA256)
        guard try sink.keep(BundleSchema.folder + "/" + relative, if: .bytes(sha256: guide.bundleSHA256)) else {
            return nil
        }
        return Manifest.File(
            path: relative, kind: ContentKind.guide.rawValue, locale: guide.locale, id: guide.id, lists: nil,
            sha256: guide.bundleSHA256, size: guide.bundleSize)
    }

    /// Writes the manifest of the files `layout` holds, its signature file when the bundle is
    /// signed, and the `_headers` file for the host, into `sink`; returns the manifest. Needs
    /// nothing of the site: a build writes it while the site is rendered.
    func writeManifest(of layout: Layout, into sink: some OutputSink) throws -> WrittenManifest {
        let root = BundleSchema.folder
        let files = layout.written
        // Listed by path, through their places: the files themselves are not copied. The
        // previous manifest's entries are found meanwhile.
        let path = root + "/manifest.json"
        let (previous, order) = Compiler.concurrently { [previousManifestHolds] in
            previousManifestHolds ? sink.previousFile(path).flatMap(ManifestEntries.init(bytes:)) : nil
        } and: {
            files.map(\.path).utf8SortedOffsets()
        }
        // The manifest's files are written in runs on every core, then joined in order.
        let runs = Compiler.parallelMap(Compiler.runs(of: order.count, length: 1024)) { range in
            Manifest.encodedRun(of: files, order: order[range], reusing: previous)
        }
        let header = Manifest(
            schemaVersion: BundleSchema.version,
            contentVersion: Manifest.contentVersion(ofLines: runs.map(\.versionLines)),
            generatedAt: generatedAt, title: config.title, defaultLocale: config.defaultLocale, locales: config.locales,
            deepLinkScheme: config.deepLinkScheme, siteURL: config.baseURL, files: [], version: version, expires: expires,
            signedBy: signingKeys.isEmpty ? nil : Self.signers(signingKeys))
        let manifest = OutputFile(path: path, pieces: header.pieces(fileRuns: runs.map(\.json)))
        try sink.write(manifest)
        if !signingKeys.isEmpty { try sink.write(try signatureFile(of: manifest.data)) }
        try sink.write(
            OutputFile(
                path: "_headers",
                data: Data(headers(files: files, order: order, signed: !signingKeys.isEmpty).utf8)))
        return WrittenManifest(header: header, files: files, order: order)
    }

    /// The manifest's `signedBy`: the keys' IDs, sorted, each once.
    static func signers(_ keys: [SigningKey]) -> [String] {
        Set(keys.map(\.publicKey.id)).sorted { $0.utf8Precedes($1) }
    }

    /// The signature file of the manifest with these bytes: each key's signature of them, at the
    /// path named by their hash.
    func signatureFile(of manifest: Data) throws -> OutputFile {
        var seen = Set<String>()
        var entries: [ManifestSignature.Entry] = []
        for key in signingKeys where seen.insert(key.publicKey.id).inserted {
            let signature = try key.sign(manifest).base64EncodedString()
            entries.append(ManifestSignature.Entry(keyID: key.publicKey.id, signature: signature))
        }
        return OutputFile(
            path: BundleSchema.folder + "/" + ManifestSignature.path(forManifest: manifest),
            data: ManifestSignature(signatures: entries).data)
    }

    /// A content-addressed file's path in the bundle folder: named by its hash.
    static func path(folder: String, prefix: String = "", sha256: String) -> String {
        // The hash's first 16 bytes (hex digits), not its first 16 characters, which cost a
        // grapheme check each.
        "\(folder)/\(prefix)\(Substring(sha256.utf8.prefix(16))).json"
    }

    /// The offsets of `entries` in the order an index lists them (see ``indexOrder(_:_:)``).
    /// Offsets are sorted rather than the entries: moving an entry copies its dozen fields.
    static func indexPermutation(_ entries: [ContentIndex.Entry]) -> [Int] {
        entries.indices.sorted { indexOrder(entries[$0], entries[$1]) }
    }

    /// Whether `lhs` comes before `rhs` in an index: by `order`, those without one last, then
    /// by title and ID, compared as bytes.
    static func indexOrder(_ lhs: ContentIndex.Entry, _ rhs: ContentIndex.Entry) -> Bool {
        switch (lhs.order, rhs.order) {
        case (let left?, let right?) where left != right: return left < right
        case (.some, .none): return true
        case (.none, .some): return false
        default: break
        }
        if !lhs.title.utf8.elementsEqual(rhs.title.utf8) { return lhs.title.utf8Precedes(rhs.title) }
        return lhs.id.utf8Precedes(rhs.id)
    }

    /// Netlify / Cloudflare Pages `_headers`: hashed folders immutable, the manifest revalidated.
    ///
    /// The manifest is matched by its own rule and the hashed files by their folders, so no path
    /// matches two rules (hosts merge the headers of every matching rule). The signature files,
    /// named by the manifest's hash and listed in no manifest, are one such folder when signed.
    private func headers(files: [Manifest.File], order: [Int], signed: Bool) -> String {
        let root = "/" + BundleSchema.folder
        var folders: Set<String> = signed ? [ManifestSignature.folder] : []
        for (folder, places) in FolderRuns.runs(order.count, path: { files[order[$0]].path }) {
            folders.insert(folder ?? files[order[places.lowerBound]].path)
        }
        var out = "# Written by locker build. Content-addressed files never change; the manifest does.\n"
        out += "\(root)/manifest.json\n  Cache-Control: no-cache\n  Access-Control-Allow-Origin: *\n"
        for folder in folders.sorted() {
            out +=
                "\(root)/\(folder)/*\n  Cache-Control: public, max-age=31536000, immutable\n  Access-Control-Allow-Origin: *\n"
        }
        return out
    }
}

/// The error of the first file of the bundle (in the order of the jobs) that could not be
/// written, when files are written on several cores: the one a build reports, whichever core
/// met it first. The documents stage notes a guide's by its place among the documents.
final class FirstFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var first: (place: Int, error: any Error)?

    /// What a job that failed gives in place of its entry; never written.
    static let placeholder = Manifest.File(
        path: "", kind: "", locale: nil, id: nil, lists: nil, sha256: "", size: 0)

    func note(_ error: any Error, at place: Int) {
        lock.lock()
        defer { lock.unlock() }
        if first.map({ place < $0.place }) ?? true { first = (place, error) }
    }

    /// Throws the first error noted, if any.
    func rethrow() throws {
        lock.lock()
        let first = self.first
        lock.unlock()
        if let first { throw first.error }
    }
}

/// One file of the bundle to encode and write: an index (by its place in the list of indexes)
/// or a document (by its place among the documents).
private enum BundleJob {
    case index(Int)
    case document(Int)
}
