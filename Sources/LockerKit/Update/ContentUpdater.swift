import Foundation

/// Brings a bundle from a web server or CDN into an app's store folder, verified, and switches
/// to it in one step.
///
/// ```swift
/// let updater = ContentUpdater(
///     store: appSupport.appendingPathComponent("content"),
///     manifestURL: URL(string: "https://cdn.example/bundles/v1/manifest.json")!,
///     trustedKeys: [try TrustedKey(text: "Vs1m…=")],
///     seed: Bundle.main.url(forResource: "bundle", withExtension: nil))
/// let result = try await updater.update()
/// let bundle = try updater.activeBundle()
/// ```
///
/// An update fetches the manifest (`If-None-Match`: a 304 ends it), verifies its signature,
/// version, expiry and schema, downloads the files of the wanted locales that the store does
/// not have, several at a time, each checked against its size and SHA-256, and only when every
/// file is in place makes the new manifest the active one, in one rename. Until then, and after
/// any failure, the active set is the last good one; a later update downloads only what is still
/// missing. Files that neither the active nor the previous set lists are removed (the previous
/// set stays whole until the next update, for readers that opened it). See "Signatures and
/// updates" in docs/bundle-format.md for the threat model.
public actor ContentUpdater {
    /// The store folder: a bundle folder ``activeBundle()`` opens.
    public nonisolated let store: URL
    /// The URL of `manifest.json`; other files are fetched relative to it.
    public nonisolated let manifestURL: URL
    /// The keys whose signatures are trusted.
    public nonisolated let trustedKeys: [TrustedKey]
    /// The locales to keep (``Manifest/files(forLocales:)``); nil, every locale.
    public nonisolated let locales: [String]?
    /// A bundle folder shipped with the app, made active when the store has nothing newer.
    public nonisolated let seed: URL?
    /// Whether a manifest without a signature is accepted (development servers, `--allow-unsigned`).
    public nonisolated let allowUnsigned: Bool
    /// How many files are downloaded at a time.
    public nonisolated let concurrency: Int

    private let transport: any UpdateTransport
    private let now: @Sendable () -> Date
    private let files: ContentStore
    /// The update running, which a second call joins, and its callers.
    private var running: (task: Task<UpdateResult, any Error>, callers: Callers)?

    /// The largest manifest and signature file accepted.
    static let manifestLimit = 256 << 20
    static let signatureLimit = 1 << 20
    /// The largest file a manifest may list, and the most signatures a signature file may hold.
    static let fileLimit = 1 << 30
    static let signatureCount = 64

    public init(
        store: URL, manifestURL: URL, trustedKeys: [TrustedKey], locales: [String]? = nil, seed: URL? = nil,
        allowUnsigned: Bool = false, transport: any UpdateTransport = URLSessionTransport(), concurrency: Int = 6,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.manifestURL = manifestURL
        self.trustedKeys = trustedKeys
        self.locales = locales
        self.seed = seed
        self.allowUnsigned = allowUnsigned
        self.transport = transport
        self.concurrency = max(1, concurrency)
        self.now = now
        files = ContentStore(folder: store)
    }

    /// Opens and verifies the active set of the store folder `store` (``ContentBundle``): the
    /// files of the locales the updater keeps. Nil when no set is active yet.
    public static func activeBundle(in store: URL) throws(BundleError) -> ContentBundle? {
        let files = ContentStore(folder: store)
        guard FileManager.default.fileExists(atPath: files.manifestURL.path) else { return nil }
        return try ContentBundle(contentsOf: store, locales: files.state()?.locales)
    }

    /// The manifest of the active set of the store folder `store`, read without checking its
    /// files (for a settings screen: its `version`, `expires`, `generatedAt`); nil when no set is
    /// active yet.
    public static func activeManifest(in store: URL) -> Manifest? {
        let files = ContentStore(folder: store)
        return files.read(files.manifestURL).flatMap { try? ContentBundle.decodeManifest($0) }
    }

    /// Opens and verifies the active set; nil when no set is active yet.
    public nonisolated func activeBundle() throws(BundleError) -> ContentBundle? {
        try Self.activeBundle(in: store)
    }

    /// Checks the server for new content and makes it active when it verifies.
    ///
    /// A call while an update runs waits for that update and returns its result (its `progress`
    /// is not called).
    ///
    /// - Parameter progress: told of each file downloaded, from the tasks downloading them.
    /// - Returns: ``UpdateResult/upToDate``, or what was updated.
    /// - Throws: ``UpdateError``; the active set is then as it was.
    public func update(progress: (@Sendable (UpdateProgress) -> Void)? = nil) async throws(UpdateError) -> UpdateResult
    {
        let task: Task<UpdateResult, any Error>
        let callers: Callers
        if let running {
            (task, callers) = running
        } else {
            task = Task { try await self.run(progress: progress) }
            callers = Callers()
            running = (task, callers)
        }
        callers.join()
        defer { if running?.task == task { running = nil } }
        do {
            // The update runs in a task of its own, which a second caller joins; cancelling every
            // caller cancels it.
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                if callers.leave() { task.cancel() }
            }
        } catch let error as UpdateError {
            throw error
        } catch {
            throw .network(url: manifestURL.absoluteString, reason: "cancelled")
        }
    }

    /// Makes the seed bundle active when the store has no set, or an older one than the seed.
    /// ``update(progress:)`` does this first; an app may call it at launch to have content before
    /// any network.
    ///
    /// - Returns: whether the seed was made active.
    @discardableResult
    public func installSeed() throws(UpdateError) -> Bool {
        guard let lock = try files.lock() else { throw .busy }
        defer { lock.release() }
        return try installSeedLocked() != nil
    }

    // MARK: - The update

    private func run(progress: (@Sendable (UpdateProgress) -> Void)?) async throws(UpdateError) -> UpdateResult {
        guard let lock = try files.lock() else { throw .busy }
        defer { lock.release() }
        files.clearTemporary()
        let seeded = try installSeedLocked()
        // What the update says when the server has nothing newer than the seed it installed.
        let upToDate = seeded.map { UpdateResult.updated(from: $0.from, to: $0.to, files: 0, bytes: 0) } ?? .upToDate

        let active = activeSet()
        let state = files.state()
        // A set signed by a key no longer trusted (a stolen key, rotated out by an app release)
        // is neither up to date nor a floor for versions: any trusted manifest replaces it.
        let distrusted = active.map { !$0.isUnsigned && !isTrusted($0) } ?? false
        // A change of the locales kept makes the active manifest's files worth checking again.
        let sameLocales = active == nil || state?.locales == locales
        let current = sameLocales && !distrusted
        var headers: [String: String] = [:]
        if current, let active, let state, state.manifestSHA256 == active.sha256, let etag = state.etag {
            headers["If-None-Match"] = etag
        }
        var response = try await fetch(manifestURL, headers: headers, limit: Self.manifestLimit)
        if response.status == 304, let active {
            guard isExpired(active.header.expires) else { return upToDate }
            // A host's ETag may be weak (nginx's is the time and size): an expired manifest is
            // asked for again whole before the update says so.
            response = try await fetch(manifestURL, limit: Self.manifestLimit)
        }
        guard response.status == 200 else {
            throw .httpStatus(url: manifestURL.absoluteString, status: response.status)
        }
        let bytes = response.body
        let sha256 = ContentHash.sha256Hex(bytes)
        if current, let active, active.sha256 == sha256 {
            try checkExpiry(active.header.expires)
            saveState(etag: response.etag, manifestSHA256: sha256)
            return upToDate
        }

        // The signature first, checked with the few fields it needs: the manifest's thousands
        // of files are decoded only once it is known to be trusted.
        let header = try Self.header(of: bytes)
        let signature = try await verifySignature(of: header, bytes: bytes, replacing: active)
        let manifest = try decode(bytes)
        try checkExpiry(manifest.expires)
        if let active, !distrusted {
            try checkVersion(of: manifest, against: active.header)
        }

        let needed = try neededFiles(of: manifest)
        let (count, byteCount) = try await download(needed, trusting: active?.manifest, progress: progress)
        if let signature {
            try files.place(signature.data, at: files.url(of: ManifestSignature.path(forManifest: bytes)))
        }
        try recordLocales(during: state)
        try activate(bytes, replacing: active?.bytes, files: needed, besides: active?.manifest)
        saveState(etag: response.etag, manifestSHA256: sha256)
        collect(manifest, bytes: bytes, previous: active, previousLocales: state?.locales)
        return .updated(from: active?.header.version, to: manifest.version, files: count, bytes: byteCount)
    }

    /// The active manifest; nil when there is none (or it was damaged).
    private func activeSet() -> ManifestCopy? {
        files.read(files.manifestURL).flatMap(ManifestCopy.init(bytes:))
    }

    private func fetch(_ url: URL, headers: [String: String] = [:], limit: Int) async throws(UpdateError)
        -> TransportResponse
    {
        let response: TransportResponse
        do {
            response = try await transport.get(TransportRequest(url: url, headers: headers, limit: limit))
        } catch let error as UpdateError {
            throw error
        } catch TransportError.bodyTooLarge(let limit) {
            throw .damagedFile(path: url.lastPathComponent, reason: "longer than the \(limit) bytes accepted")
        } catch {
            throw .network(url: url.absoluteString, reason: Self.describe(error))
        }
        guard response.body.count <= limit else {
            throw .damagedFile(path: url.lastPathComponent, reason: "\(response.body.count) bytes, more than \(limit)")
        }
        return response
    }

    private func decode(_ bytes: Data) throws(UpdateError) -> Manifest {
        let manifest: Manifest
        do {
            manifest = try ContentBundle.decodeManifest(bytes)
        } catch {
            if case .unsupportedSchema(_, let version) = error { throw .unsupportedSchema(version: version) }
            throw .invalidManifest(error.description)
        }
        var seen: [String: String] = [:]
        for file in manifest.files {
            guard ContentStore.isWritable(file.path) else {
                throw .invalidManifest("\(file.path): not a path a bundle may list")
            }
            guard (0...Self.fileLimit).contains(file.size) else {
                throw .invalidManifest("\(file.path): a size of \(file.size) bytes")
            }
            if let other = seen.updateValue(file.sha256, forKey: file.path), other != file.sha256 {
                throw .invalidManifest("\(file.path) is listed twice with different hashes")
            }
        }
        return manifest
    }

    /// The fields of a manifest checked before its files are decoded: its schema major first,
    /// so that a future major is reported as such.
    private static func header(of bytes: Data) throws(UpdateError) -> ManifestCopy.Header {
        struct Version: Decodable { var schemaVersion: String }
        guard let version = try? JSONDecoder().decode(Version.self, from: bytes).schemaVersion else {
            throw .invalidManifest("manifest.json: not a manifest (no schemaVersion)")
        }
        guard version.split(separator: ".", maxSplits: 1).first.flatMap({ Int($0) }) == BundleSchema.major else {
            throw .unsupportedSchema(version: version)
        }
        do {
            return try JSONDecoder().decode(ManifestCopy.Header.self, from: bytes)
        } catch {
            throw .invalidManifest("manifest.json: \(error)")
        }
    }

    /// Fetches and checks the manifest's signature file; nil for an unsigned manifest accepted
    /// under ``allowUnsigned``, which never replaces a signed set.
    private func verifySignature(
        of header: ManifestCopy.Header, bytes: Data, replacing active: ManifestCopy?
    ) async throws(UpdateError) -> ManifestSignature? {
        let signed = !(header.signedBy ?? []).isEmpty
        if !signed {
            guard allowUnsigned else {
                throw .signature(
                    "the manifest is not signed (signedBy is absent); this app accepts signed manifests only")
            }
            if let active, !active.isUnsigned {
                throw .signature("an unsigned manifest does not replace the signed one the store holds")
            }
            return nil
        }
        let path = ManifestSignature.path(forManifest: bytes)
        let url = manifestURL.deletingLastPathComponent().appendingPathComponent(path)
        let response = try await fetch(url, limit: Self.signatureLimit)
        guard response.status == 200 else {
            if response.status == 404 { throw .signature("\(path): no signature file for this manifest") }
            throw .httpStatus(url: url.absoluteString, status: response.status)
        }
        let signature: ManifestSignature
        do {
            signature = try ManifestSignature(data: response.body)
        } catch {
            throw .signature("\(path): \(error)")
        }
        guard signature.signatures.count <= Self.signatureCount else {
            throw .signature("\(path): \(signature.signatures.count) signatures, more than \(Self.signatureCount)")
        }
        if trustedKeys.isEmpty, allowUnsigned { return signature }
        do {
            _ = try signature.verify(manifest: bytes, naming: header.signedBy, trusting: trustedKeys)
        } catch {
            throw .signature(error.description)
        }
        guard header.version != nil, header.expires != nil else {
            throw .invalidManifest("a signed manifest without a version and an expiry time")
        }
        return signature
    }

    /// Whether the store's signature file of `active` holds a valid signature by a trusted key
    /// that the manifest names.
    private func isTrusted(_ active: ManifestCopy) -> Bool {
        guard let data = files.read(files.url(of: ManifestSignature.path(forManifest: active.bytes))),
            let signature = try? ManifestSignature(data: data), signature.signatures.count <= Self.signatureCount
        else { return false }
        return (try? signature.verify(manifest: active.bytes, naming: active.header.signedBy, trusting: trustedKeys))
            != nil
    }

    /// Whether `expires` has passed; a time that does not read is not expired here, but
    /// ``checkExpiry(_:)`` refuses it.
    private func isExpired(_ expires: String?) -> Bool {
        guard let date = expires.flatMap(Self.date) else { return false }
        return now() >= date
    }

    private func checkExpiry(_ expires: String?) throws(UpdateError) {
        guard let expires else { return }
        guard let date = Self.date(expires) else {
            throw .invalidManifest("expires: '\(expires)' is not an RFC 3339 time")
        }
        if now() >= date { throw .expired(expires: expires) }
    }

    /// A version higher than the active one's passes, and so does an equal one with the same
    /// files (signed again, by another key, or wanted for other locales): nothing older comes back.
    private func checkVersion(of manifest: Manifest, against active: ManifestCopy.Header) throws(UpdateError) {
        guard let activeVersion = active.version else { return }
        guard let version = manifest.version else { throw .rollback(active: activeVersion, offered: nil) }
        if version > activeVersion { return }
        if version == activeVersion, manifest.contentVersion == active.contentVersion { return }
        throw .rollback(active: activeVersion, offered: version)
    }

    /// The files of the wanted locales, each path once.
    private func neededFiles(of manifest: Manifest) throws(UpdateError) -> [Manifest.File] {
        var seen = Set<String>()
        return manifest.files(forLocales: locales).filter { seen.insert($0.path).inserted }
    }

    /// Downloads the files of `needed` the store does not have; returns how many and their bytes.
    /// A file already in its place counts when the active manifest lists it (it was verified
    /// before that manifest became active), or when its bytes verify (left by an update cut short).
    private func download(
        _ needed: [Manifest.File], trusting active: Manifest?, progress: (@Sendable (UpdateProgress) -> Void)?
    ) async throws(UpdateError) -> (files: Int, bytes: Int) {
        var activeFiles: [String: String] = [:]
        for file in active?.files ?? [] { activeFiles[file.path] = file.sha256 }
        // A path of the active set is never written over: the set must stay whole until the
        // new one is active. A bundle's paths are named by their bytes, so none should change.
        if let changed = needed.first(where: { file in activeFiles[file.path].map { $0 != file.sha256 } ?? false }) {
            throw .invalidManifest("\(changed.path): other bytes than the active set's under the same path")
        }
        var missing: [Manifest.File] = []
        for file in needed {
            let url = files.url(of: file.path)
            guard files.size(of: url) == file.size else {
                missing.append(file)
                continue
            }
            if activeFiles[file.path] == file.sha256 { continue }
            if let data = files.read(url), ContentHash.sha256Hex(data) == file.sha256.lowercased() { continue }
            files.remove(url)
            missing.append(file)
        }
        let total = UpdateProgress(
            files: 0, totalFiles: missing.count, bytes: 0, totalBytes: missing.reduce(0) { $0 + $1.size })
        progress?(total)
        guard !missing.isEmpty else { return (0, 0) }

        let base = manifestURL.deletingLastPathComponent()
        let counter = ProgressCounter(total)
        let store = files
        let transport = transport
        let queue = missing
        let width = concurrency
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = 0
                func start() {
                    guard next < queue.count else { return }
                    let file = queue[next]
                    next += 1
                    group.addTask {
                        try await Self.fetchFile(file, from: base, into: store, over: transport)
                        let now = counter.add(bytes: file.size)
                        progress?(now)
                    }
                }
                for _ in 0..<width { start() }
                while try await group.next() != nil { start() }
            }
        } catch let error as UpdateError {
            throw error
        } catch {
            throw .network(url: base.absoluteString, reason: Self.describe(error))
        }
        return (missing.count, total.totalBytes)
    }

    /// Downloads one file, checks its size and hash, and puts it in its place.
    private static func fetchFile(
        _ file: Manifest.File, from base: URL, into store: ContentStore, over transport: any UpdateTransport
    ) async throws(UpdateError) {
        let url = base.appendingPathComponent(file.path)
        let response: TransportResponse
        do {
            // Never more than the manifest says: a server sending more is cut off.
            response = try await transport.get(TransportRequest(url: url, limit: file.size))
        } catch TransportError.bodyTooLarge {
            throw .damagedFile(path: file.path, reason: "longer than the \(file.size) bytes the manifest says")
        } catch {
            throw .network(url: url.absoluteString, reason: describe(error))
        }
        guard response.status == 200 else { throw .httpStatus(url: url.absoluteString, status: response.status) }
        guard response.body.count == file.size else {
            throw .damagedFile(path: file.path, reason: "\(response.body.count) bytes, the manifest says \(file.size)")
        }
        let actual = ContentHash.sha256Hex(response.body)
        guard actual == file.sha256.lowercased() else {
            throw .damagedFile(
                path: file.path, reason: "SHA-256 \(actual.prefix(12))…, the manifest says \(file.sha256.prefix(12))…")
        }
        try store.place(response.body, at: store.url(of: file.path))
    }

    /// Makes `bytes` the active manifest in one rename, the one it replaces kept as the previous,
    /// once the files it lists that the previous did not (`fresh` of `needed`) are durable.
    private func activate(
        _ bytes: Data, replacing previous: Data?, files needed: [Manifest.File], besides active: Manifest?
    ) throws(UpdateError) {
        let kept = Set((active?.files ?? []).map { "\($0.path)\t\($0.sha256)" })
        var fresh = needed.filter { !kept.contains("\($0.path)\t\($0.sha256)") }.map { files.url(of: $0.path) }
        fresh.append(files.url(of: ManifestSignature.path(forManifest: bytes)))
        files.syncFiles(fresh)
        if let previous { try files.place(previous, at: files.previousManifestURL, synced: true) }
        try files.place(bytes, at: files.manifestURL, synced: true)
        files.syncFolder(store)
    }

    /// Records, before a new set becomes active, locales that both the active set and the new
    /// one hold every file of: the locales the store keeps in common before and after a change
    /// (``ContentUpdater/activeBundle(in:)`` opens the store with the recorded locales, whichever
    /// manifest a crash leaves active). ``saveState(etag:manifestSHA256:)`` records the new ones
    /// after.
    private func recordLocales(during state: ContentStore.State?) throws(UpdateError) {
        let before = state?.locales
        guard before != locales else { return }
        let common: [String]? =
            switch (before, locales) {
            case (nil, let after): after
            case (let before, nil): before
            case (let before?, let after?): before.filter(after.contains)
            }
        let record = ContentStore.State(etag: nil, manifestSHA256: "", locales: common)
        do {
            try files.place(try JSONEncoder().encode(record), at: files.stateURL, synced: true)
        } catch let error as UpdateError {
            throw error
        } catch {
            throw .store("\(files.stateURL.path): \(error)")
        }
    }

    private func saveState(etag: String?, manifestSHA256: String) {
        let state = ContentStore.State(etag: etag, manifestSHA256: manifestSHA256, locales: locales)
        guard let data = try? JSONEncoder().encode(state) else { return }
        // After the new set is active: were it lost, the next update fetches the manifest whole,
        // and the store is opened with the locales ``recordLocales(during:)`` recorded.
        try? files.place(data, at: files.stateURL, synced: true)
    }

    /// Removes the files that neither the new set (`manifest`, of the locales kept) nor the
    /// previous one (of the locales it kept) lists: a locale no longer kept goes with the next
    /// update but one.
    private func collect(_ manifest: Manifest, bytes: Data, previous: ManifestCopy?, previousLocales: [String]?) {
        var keep = Set(manifest.files(forLocales: locales).map(\.path))
        keep.insert(ManifestSignature.path(forManifest: bytes))
        if let previous, let old = previous.manifest {
            for file in old.files(forLocales: previousLocales) { keep.insert(file.path) }
            keep.insert(ManifestSignature.path(forManifest: previous.bytes))
        }
        files.removeFiles(notIn: keep)
    }

    // MARK: - The seed

    /// Installs the seed when the store has no set or an older one; the versions it went from
    /// and to, or nil when it did not.
    private func installSeedLocked() throws(UpdateError) -> (from: Int?, to: Int?)? {
        guard let seed else { return nil }
        let seedFiles = ContentStore(folder: seed)
        guard let bytes = seedFiles.read(seedFiles.manifestURL) else { return nil }
        let active = activeSet()
        if let active {
            // Only the versions, before the seed's files are decoded, at every update.
            guard let seedVersion = ManifestCopy(bytes: bytes)?.header.version,
                let activeVersion = active.header.version, seedVersion > activeVersion
            else { return nil }
        }
        let manifest = try decode(bytes)
        let needed = try neededFiles(of: manifest)
        for file in needed {
            let target = files.url(of: file.path)
            if files.size(of: target) == file.size, let data = files.read(target),
                ContentHash.sha256Hex(data) == file.sha256.lowercased()
            {
                continue
            }
            guard let data = seedFiles.read(seedFiles.url(of: file.path)) else {
                throw .damagedFile(path: file.path, reason: "missing from the seed bundle")
            }
            guard data.count == file.size, ContentHash.sha256Hex(data) == file.sha256.lowercased() else {
                throw .damagedFile(path: file.path, reason: "the seed bundle's copy does not match its manifest")
            }
            try files.place(data, at: target)
        }
        let signaturePath = ManifestSignature.path(forManifest: bytes)
        if let signature = seedFiles.read(seedFiles.url(of: signaturePath)) {
            try files.place(signature, at: files.url(of: signaturePath))
        }
        let state = files.state()
        try recordLocales(during: state)
        try activate(bytes, replacing: active?.bytes, files: needed, besides: active?.manifest)
        saveState(etag: nil, manifestSHA256: ContentHash.sha256Hex(bytes))
        collect(manifest, bytes: bytes, previous: active, previousLocales: state?.locales)
        return (active?.header.version, manifest.version)
    }

    // MARK: - Helpers

    private static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? URLError {
            switch error.code {
            case .timedOut: return "timed out"
            case .cannotConnectToHost: return "cannot connect"
            case .networkConnectionLost: return "connection lost"
            case .notConnectedToInternet: return "not connected"
            default: return error.localizedDescription
            }
        }
        return String(describing: error)
    }
}

/// A manifest's bytes and hash, with the fields an update checks first; the whole manifest, its
/// thousands of files, decoded only when an update goes on to download.
private final class ManifestCopy {
    /// The fields checked before anything is downloaded.
    struct Header: Decodable {
        var contentVersion: String
        var version: Int?
        var expires: String?
        var signedBy: [String]?
    }

    let bytes: Data
    let sha256: String
    let header: Header
    private var decoded: Manifest??

    init?(bytes: Data) {
        guard let header = try? JSONDecoder().decode(Header.self, from: bytes) else { return nil }
        self.bytes = bytes
        self.header = header
        sha256 = ContentHash.sha256Hex(bytes)
    }

    /// Whether the manifest names no signing key.
    var isUnsigned: Bool { (header.signedBy ?? []).isEmpty }

    /// The whole manifest, checked (``ContentBundle/decodeManifest(_:)``); nil when it fails.
    var manifest: Manifest? {
        if let decoded { return decoded }
        let manifest = try? ContentBundle.decodeManifest(bytes)
        decoded = manifest
        return manifest
    }

}

/// How many callers wait for one update and were not cancelled, from their cancellation handlers.
private final class Callers: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func join() { lock.withLock { count += 1 } }

    /// Counts a caller out; whether it was the last.
    func leave() -> Bool {
        lock.withLock {
            count -= 1
            return count == 0
        }
    }
}

/// Counts the files and bytes downloaded, from every download task.
private final class ProgressCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var progress: UpdateProgress

    init(_ start: UpdateProgress) { progress = start }

    func add(bytes: Int) -> UpdateProgress {
        lock.lock()
        defer { lock.unlock() }
        progress.files += 1
        progress.bytes += bytes
        return progress
    }
}
