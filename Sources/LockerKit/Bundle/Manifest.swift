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
    /// Every file of the bundle, sorted by path.
    public var files: [File]

    public init(
        schemaVersion: String, contentVersion: String, generatedAt: String?, title: String?,
        defaultLocale: String, locales: [String], deepLinkScheme: String?, files: [File]
    ) {
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(files.count * 120)
        // Read in place: a copy of each file would retain its strings.
        files.withUnsafeBufferPointer { files in
            for offset in files.indices {
                bytes.append(contentsOf: files[offset].path.utf8)
                bytes.append(0x09)
                bytes.append(contentsOf: files[offset].sha256.utf8)
                bytes.append(0x0A)
            }
        }
        return ContentHash.sha256Hex(bytes)
    }

    /// The JSON of `files[range]`, comma-separated: a run of an
    /// ``CanonicalJSONWriter/EncodedArray``. Each file is written where it lies, without a copy
    /// (which would retain its strings) or a generic call, as the manifest has thousands.
    public static func encodedRun(of files: [File], _ range: Range<Int>) -> [UInt8] {
        var writer = CanonicalJSONWriter(capacity: range.count * 320)
        files.withUnsafeBufferPointer { files in
            for offset in range { files[offset].write(to: &writer) }
        }
        return writer.bytes
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
        /// The strong HTTP ETag: `"sha256-<hex>"`, quotes included.
        public var etag: String

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
            self.etag = ContentHash.etag(sha256: sha256)
        }
    }
}

/// Version of the bundle schema this library writes and reads.
public enum BundleSchema {
    /// Bumped when a reader of the previous major can no longer read bundles.
    public static let major = 1
    /// Bumped when fields or kinds are added that old readers may ignore.
    /// 1.1 added checklists and decks, and counts in index entries.
    public static let minor = 1
    /// `major.minor` as written in the manifest.
    public static var version: String { "\(major).\(minor)" }
    /// The folder the bundles of this major version live in, under the output folder.
    public static var folder: String { "bundles/v\(major)" }
}

extension Manifest: CanonicalJSONWritable {
    public func write(to json: inout CanonicalJSONWriter) { write(to: &json, files: files) }

    /// Writes the manifest with `files` standing for its ``files``: the same array, written
    /// another way (in runs, on several cores: ``CanonicalJSONWriter/EncodedArray``).
    public func write(to json: inout CanonicalJSONWriter, files: some CanonicalJSONWritable) {
        json.object { json in
            json.member("contentVersion", contentVersion)
            json.member("deepLinkScheme", deepLinkScheme)
            json.member("defaultLocale", defaultLocale)
            json.member("files", files)
            json.member("generatedAt", generatedAt)
            json.member("locales", locales)
            json.member("schemaVersion", schemaVersion)
            json.member("title", title)
        }
    }
}

extension Manifest.File: CanonicalJSONWritable {
    public func write(to json: inout CanonicalJSONWriter) {
        json.openObject()
        json.member("etag", etag)
        json.member("id", id)
        json.member("kind", kind)
        json.member("lists", lists)
        json.member("locale", locale)
        json.member("path", path)
        json.member("sha256", sha256)
        json.member("size", size)
        json.closeObject()
    }
}
