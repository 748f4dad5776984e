import Foundation

/// The files an update downloads: those of the wanted locales the store lacks, several at a time,
/// each checked before it is kept.
extension ContentUpdater {
    /// The files of the wanted locales, each path once.
    func neededFiles(of manifest: Manifest) throws(UpdateError) -> [Manifest.File] {
        var seen = Set<String>()
        return manifest.files(forLocales: locales).filter { seen.insert($0.path).inserted }
    }

    /// Downloads the files of `needed` the store does not have; returns how many and their bytes.
    /// A file already in its place counts when the active manifest lists it (it was verified
    /// before that manifest became active), or when its bytes verify (left by an update cut short).
    func download(
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
    static func fetchFile(
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
