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

    let transport: any UpdateTransport
    let now: @Sendable () -> Date
    let files: ContentStore
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
    func activeSet() -> ManifestCopy? {
        files.read(files.manifestURL).flatMap(ManifestCopy.init(bytes:))
    }

    func fetch(_ url: URL, headers: [String: String] = [:], limit: Int) async throws(UpdateError)
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

    // MARK: - Helpers

    static func date(_ text: String) -> Date? {
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
