import Crypto
import Foundation

/// `manifest.json`: the one mutable file of a bundle, listing every immutable file with its hash.
public struct Manifest: Sendable, Hashable, Codable {
    /// `major.minor`; an app refuses a major it does not know.
    public var schemaVersion: String
    /// A SHA-256 over every file's path and hash: changes exactly when content changes.
    public var contentVersion: String
    /// ISO 8601 UTC time of the content (`SOURCE_DATE_EPOCH`, else the vault's last git commit); absent when neither is known.
    public var generatedAt: String?
    public var title: String?
    public var defaultLocale: String
    public var locales: [String]
    /// The app's URL scheme for deep links (`<scheme>://content/<kind>/<uuid>`), if configured.
    public var deepLinkScheme: String?
    /// The site's public address (`https://…/`, ending in `/`), if configured: the base of the
    /// web form of ``ContentLink``s.
    public var siteURL: String?
    /// Every file of the bundle, sorted by path.
    public var files: [File]
    /// A number that never goes down across the builds of one content repository (by default the
    /// content's time in seconds): an updater refuses a manifest older than the one it has.
    public var version: Int?
    /// RFC 3339 UTC time after which an updater refuses the manifest (a repository that stopped
    /// publishing, or a mirror that serves an old one, cannot freeze apps on old content).
    public var expires: String?
    /// The IDs of the keys (``TrustedKey/id``) whose signatures the signature file holds; absent
    /// in an unsigned build.
    public var signedBy: [String]?

    public init(
        schemaVersion: String, contentVersion: String, generatedAt: String?, title: String?,
        defaultLocale: String, locales: [String], deepLinkScheme: String?, siteURL: String? = nil, files: [File],
        version: Int? = nil, expires: String? = nil, signedBy: [String]? = nil
    ) {
        self.siteURL = siteURL
        self.version = version
        self.expires = expires
        self.signedBy = signedBy
        self.schemaVersion = schemaVersion
        self.contentVersion = contentVersion
        self.generatedAt = generatedAt
        self.title = title
        self.defaultLocale = defaultLocale
        self.locales = locales
        self.deepLinkScheme = deepLinkScheme
        self.files = files
    }

    /// The content version of a bundle with these files: the SHA-256 of one `path<TAB>sha256<LF>`
    /// line per file, in the order given (the manifest's: by path).
    public static func contentVersion(of files: [File]) -> String {
        var lines: [UInt8] = []
        lines.reserveCapacity(files.count * 100)
        for offset in files.indices { appendVersionLine(of: files, at: offset, to: &lines) }
        return ContentHash.sha256Hex(lines)
    }

    /// The content version of the files whose lines (``contentVersion(of:)``) are `runs`, in order.
    package static func contentVersion(ofLines runs: [[UInt8]]) -> String {
        var hash = SHA256()
        for run in runs { hash.update(data: run) }
        return ContentHash.hex(hash.finalize())
    }

    /// Appends the line of the content version of the file at `offset` of `files`:
    /// `path<TAB>sha256<LF>`. (Its fields are read from the array, the file not copied.)
    private static func appendVersionLine(of files: [File], at offset: Int, to lines: inout [UInt8]) {
        lines.append(contentsOf: files[offset].path.utf8)
        lines.append(0x09)
        lines.append(contentsOf: files[offset].sha256.utf8)
        lines.append(0x0A)
    }

    /// The files at `order` in `files`: their JSON, comma-separated (a run of the manifest's
    /// files for ``data(fileRuns:)``), and their lines of the content version
    /// (``contentVersion(ofLines:)``). A manifest's thousands of files are written in runs on
    /// every core, each where it lies, without a copy (which would retain its strings).
    package static func encodedRun(of files: [File], order: ArraySlice<Int>) -> (json: [UInt8], versionLines: [UInt8]) {
        var writer = CanonicalJSONWriter(capacity: order.count * 320)
        var lines: [UInt8] = []
        lines.reserveCapacity(order.count * 100)
        for offset in order {
            write(files, at: offset, to: &writer)
            appendVersionLine(of: files, at: offset, to: &lines)
        }
        return (writer.bytes, lines)
    }

    /// ``encodedRun(of:order:)``, with the entry of each file that `previous` lists with the same
    /// path and SHA-256 copied from it rather than written again: a rebuild of one note of
    /// 10,000 writes a few entries, and copies the rest in a few runs of bytes. The same bytes
    /// as ``encodedRun(of:order:)``, when `previous` is the manifest a build of this version
    /// wrote (its other fields follow from the file's bytes and path).
    package static func encodedRun(
        of files: [File], order: ArraySlice<Int>, reusing previous: ManifestEntries?
    ) -> (json: [UInt8], versionLines: [UInt8]) {
        guard let previous, previous.count > 0, !order.isEmpty else { return encodedRun(of: files, order: order) }
        var writer = CanonicalJSONWriter(capacity: order.count * 320)
        var lines: [UInt8] = []
        lines.reserveCapacity(order.count * 100)
        previous.bytes.withUnsafeBufferPointer { old in
            let entries = previous.entries
            /// The bytes at `range` of the previous manifest.
            func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: old[range]) }
            /// How the entry at `index` compares with `path`: its path's bytes against `path`'s.
            func compare(_ index: Int, _ path: UnsafeBufferPointer<UInt8>) -> Int {
                ManifestEntries.order(bytes(entries[index].path), path)
            }
            /// The entries copied but not yet written: `start` up to the end of entry `last`.
            var pending: (start: Int, last: Int)?
            func flush() {
                guard let span = pending else { return }
                writer.values(copying: bytes(span.start..<entries[span.last].span.upperBound))
                pending = nil
            }
            // The first entry whose path does not come before the next file's.
            var next: Int?
            for offset in order {
                let found = files[offset].path.utf8.withContiguousStorageIfAvailable { path -> Int? in
                    if next == nil {
                        var (low, high) = (0, entries.count)
                        while low < high {
                            let middle = (low + high) / 2
                            if compare(middle, path) < 0 { low = middle + 1 } else { high = middle }
                        }
                        next = low
                    }
                    guard var index = next else { return nil }
                    while index < entries.count, compare(index, path) < 0 { index += 1 }
                    next = index
                    guard index < entries.count, compare(index, path) == 0 else { return nil }
                    return index
                }
                if let index = found ?? nil,
                    files[offset].sha256.utf8.withContiguousStorageIfAvailable({ sha256 in
                        ManifestEntries.order(bytes(entries[index].sha256), sha256) == 0
                    }) == true
                {
                    let entry = entries[index]
                    if let span = pending, span.last + 1 == index {
                        pending = (span.start, index)
                    } else {
                        flush()
                        pending = (entry.span.lowerBound, index)
                    }
                    lines.append(contentsOf: bytes(entry.path))
                    lines.append(0x09)
                    lines.append(contentsOf: bytes(entry.sha256))
                    lines.append(0x0A)
                    next = index + 1
                    continue
                }
                flush()
                write(files, at: offset, to: &writer)
                appendVersionLine(of: files, at: offset, to: &lines)
            }
            flush()
        }
        return (writer.bytes, lines)
    }

    /// Writes the file at `offset` of `files` as ``File/write(to:)`` does, field by field from the
    /// array: a file taken from it whole (or through a buffer pointer, while the writer changed)
    /// was copied first, its strings retained and released, 10,000 times a manifest.
    private static func write(_ files: [File], at offset: Int, to json: inout CanonicalJSONWriter) {
        json.openObject()
        File.writeMembers(
            id: files[offset].id, kind: files[offset].kind, lists: files[offset].lists,
            locale: files[offset].locale, path: files[offset].path, sha256: files[offset].sha256,
            size: files[offset].size, to: &json)
        json.closeObject()
    }

    /// The manifest's canonical JSON, ending with a newline, with its files given as runs of their
    /// JSON (``encodedRun(of:order:)``) in place of ``files``, which is not written: the same
    /// bytes as ``CanonicalJSONWriter/data(for:capacity:)`` gives for the manifest with those files.
    /// Each run is copied once, into the data returned.
    package func data(fileRuns runs: [[UInt8]]) -> Data {
        var data = Data(capacity: runs.reduce(1024) { $0 + $1.count + 1 })
        for piece in pieces(fileRuns: runs) { data.append(contentsOf: piece) }
        return data
    }

    /// The bytes of ``data(fileRuns:)`` in pieces, the runs among them as they are: for a writer
    /// that writes and hashes them one after the other without joining them.
    package func pieces(fileRuns runs: [[UInt8]]) -> [[UInt8]] {
        let files = ArrayPlace()
        var writer = CanonicalJSONWriter(capacity: 1024)
        write(to: &writer, files: files)
        let bytes = writer.bytes
        let close = min(files.closingBracket, bytes.count)
        var pieces = [Array(bytes[..<close])]
        pieces.reserveCapacity(2 * runs.count + 2)
        for run in runs where !run.isEmpty {
            if pieces.count > 1 { pieces.append([0x2C]) }
            pieces.append(run)
        }
        pieces.append(Array(bytes[close...]) + [0x0A])
        return pieces
    }

    /// An empty array that remembers where it was written: the place of its closing bracket.
    private final class ArrayPlace: CanonicalJSONWritable {
        var closingBracket = 0

        func write(to json: inout CanonicalJSONWriter) {
            json.array([Int]())
            closingBracket = json.bytes.count - 1
        }
    }

    /// One immutable file of the bundle.
    public struct File: Sendable, Hashable, Codable {
        /// Relative to the folder holding `manifest.json`.
        public var path: String
        /// `index`, `asset`, or a ``ContentKind`` such as `guide`.
        public var kind: String
        public var locale: String?
        /// For a document file: the document's ID.
        public var id: String?
        /// For an index: the kind of document it lists.
        public var lists: String?
        public var sha256: String
        public var size: Int
        /// The strong HTTP ETag: `"sha256-<hex>"`, quotes included; made from ``sha256`` when
        /// asked, and written from it (a build makes 10,000 files, and made as many ETags).
        /// Decoding reads the stored fields alone: a decoded file's ETag is its hash's, whatever
        /// its JSON's `etag` says.
        public var etag: String { ContentHash.etag(sha256: sha256) }

        public init(
            path: String, kind: String, locale: String?, id: String?, lists: String?, sha256: String, size: Int
        ) {
            self.path = path
            self.kind = kind
            self.locale = locale
            self.id = id
            self.lists = lists
            self.sha256 = sha256
            self.size = size
        }
    }
}

/// Version of the bundle schema this library writes and reads.
public enum BundleSchema {
    /// Bumped when a reader of the previous major can no longer read bundles.
    public static let major = 1
    /// Bumped when fields or kinds are added that old readers may ignore.
    /// 1.1 added checklists and decks, and counts in index entries; 1.2 the manifest's
    /// `version`, `expires` and `signedBy`, and its signature file; 1.3 the `footnote` and `math`
    /// spans and the `math` block; 1.4 the manifest's `siteURL`.
    public static let minor = 4
    /// `major.minor` as written in the manifest.
    public static var version: String { "\(major).\(minor)" }
    /// The folder the bundles of this major version live in, under the output folder.
    public static var folder: String { "bundles/v\(major)" }
}

extension Manifest: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) { write(to: &json, files: files) }

    /// Writes the manifest with `files` standing for its ``files``: the same array, written
    /// another way (in runs, on several cores: ``data(fileRuns:)``).
    package func write(to json: inout CanonicalJSONWriter, files: some CanonicalJSONWritable) {
        json.object { json in
            json.member("contentVersion", contentVersion)
            json.member("deepLinkScheme", deepLinkScheme)
            json.member("defaultLocale", defaultLocale)
            json.member("expires", expires)
            json.member("files", files)
            json.member("generatedAt", generatedAt)
            json.member("locales", locales)
            json.member("schemaVersion", schemaVersion)
            json.member("signedBy", signedBy)
            json.member("siteURL", siteURL)
            json.member("title", title)
            json.member("version", version)
        }
    }
}

extension Manifest.File: CanonicalJSONObject {
    /// Writes a file's fields and its ``etag``.
    public func encode(to encoder: any Encoder) throws { try encodeMembers(to: encoder) }

    package func writeMembers(to json: inout some CanonicalJSONMembers) {
        Self.writeMembers(
            id: id, kind: kind, lists: lists, locale: locale, path: path, sha256: sha256, size: size,
            to: &json)
    }

    /// A file's members from its fields, in the order of their names: the one list of them, for
    /// a file and for one read in place from an array (``Manifest/encodedRun(of:order:)``).
    static func writeMembers(
        id: String?, kind: String, lists: String?, locale: String?, path: String, sha256: String,
        size: Int, to json: inout some CanonicalJSONMembers
    ) {
        json.member("etag", etagOf: sha256)
        json.member("id", id)
        json.member("kind", kind)
        json.member("lists", lists)
        json.member("locale", locale)
        json.member("path", path)
        json.member("sha256", sha256)
        json.member("size", size)
    }
}
