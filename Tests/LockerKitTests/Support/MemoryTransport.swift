import Foundation
import LockerKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A web server in memory for ``ContentUpdater`` tests: files by path under ``base``, every request
/// recorded with its headers, 304 for a matching `If-None-Match`, and chosen paths made to fail,
/// throw or wait.
final class MemoryTransport: UpdateTransport, @unchecked Sendable {
    /// What a request was answered with.
    struct Exchange: Sendable {
        var request: TransportRequest
        /// The path under ``MemoryTransport/base``; the full URL for another host.
        var path: String
        /// The status answered; nil when the request threw.
        var status: Int?
    }

    /// The folder of `manifest.json` on the test host.
    static let base = URL(string: "https://cdn.test/bundles/v1/")!
    static let manifestURL = base.appendingPathComponent("manifest.json")

    private let lock = NSLock()
    private var bodies: [String: (body: Data, etag: String?)] = [:]
    private var statuses: [String: Int] = [:]
    private var errors: [String: URLError.Code] = [:]
    private var gates: [String: Gate] = [:]
    private var exchanges: [Exchange] = []
    /// Whether a matching `If-None-Match` gets a 304 (a server without conditional requests
    /// answers 200 every time).
    var answersNotModified: Bool {
        get { locked { notModified } }
        set { locked { notModified = newValue } }
    }
    private var notModified = true

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: - Serving

    /// Serves `body` at `path` (relative to ``base``), with an ETag.
    func serve(_ body: Data, at path: String, etag: String? = nil) {
        locked { bodies[path] = (body, etag) }
    }

    /// Stops serving `path`: a 404 from now on.
    func remove(_ path: String) { _ = locked { bodies.removeValue(forKey: path) } }

    /// Answers `status` with an empty body at `path`, whatever is served there; nil undoes it.
    func answer(_ status: Int?, at path: String) { locked { statuses[path] = status } }

    /// Throws a `URLError` for `path` (no answer came); nil undoes it.
    func fail(_ code: URLError.Code?, at path: String) { locked { errors[path] = code } }

    /// Holds requests of `path` (the first `count` of them) until the gate returned is opened.
    func hold(_ path: String, count: Int = .max) -> Gate {
        let gate = Gate(holding: count)
        locked { gates[path] = gate }
        return gate
    }

    /// Serves a publication: its manifest (with an ETag made from its bytes), its signature file
    /// and its files. Files already served stay, as on a CDN that keeps old immutable files.
    func publish(_ publication: Publication) {
        for (path, data) in publication.files { serve(data, at: path) }
        if let signature = publication.signature { serve(signature, at: publication.signaturePath) }
        serve(publication.manifestBytes, at: "manifest.json", etag: publication.etag)
    }

    // MARK: - What was asked

    /// Every exchange so far, in the order the requests came.
    var log: [Exchange] { locked { exchanges } }

    /// The paths requested so far, in order.
    var requested: [String] { log.map(\.path) }

    /// Forgets the exchanges so far.
    func clearLog() { locked { exchanges.removeAll() } }

    // MARK: - UpdateTransport

    func get(_ request: TransportRequest) async throws -> TransportResponse {
        let path = Self.path(of: request.url)
        let index = locked {
            exchanges.append(Exchange(request: request, path: path, status: nil))
            return exchanges.count - 1
        }
        if let gate = locked({ gates[path] }) { await gate.pass() }
        // As URLSession does: a cancelled task's request ends without an answer.
        if Task.isCancelled {
            locked { exchanges[index].status = nil }
            throw URLError(.cancelled)
        }
        let (response, error) = locked { () -> (TransportResponse?, URLError.Code?) in
            if let code = errors[path] { return (nil, code) }
            if let status = statuses[path] { return (TransportResponse(status: status, etag: nil, body: Data()), nil) }
            guard let served = bodies[path] else {
                return (TransportResponse(status: 404, etag: nil, body: Data()), nil)
            }
            if notModified, let etag = served.etag, request.headers["If-None-Match"] == etag {
                return (TransportResponse(status: 304, etag: etag, body: Data()), nil)
            }
            return (TransportResponse(status: 200, etag: served.etag, body: served.body), nil)
        }
        if let error { throw URLError(error) }
        guard let response else { throw URLError(.unknown) }
        locked { exchanges[index].status = response.status }
        // As URLSessionTransport does: a body past the request's limit is not returned.
        if let limit = request.limit, (200..<300).contains(response.status), response.body.count > limit {
            throw TransportError.bodyTooLarge(limit: limit)
        }
        return response
    }

    /// `url`'s path under ``base``, or the whole URL for one elsewhere.
    static func path(of url: URL) -> String {
        let text = url.absoluteString
        let prefix = base.absoluteString
        return text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
    }
}

/// A point a request waits at until the test opens it; the test can wait for a request to get
/// there.
final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    /// How many requests the gate holds; later ones pass.
    private let holding: Int
    private var isOpen = false
    private var arrivals = 0
    private var passers: [CheckedContinuation<Void, Never>] = []
    private var watchers: [CheckedContinuation<Void, Never>] = []

    init(holding: Int) { self.holding = holding }

    /// Waits until the gate is open, after saying a request arrived.
    func pass() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            arrivals += 1
            let arrived = watchers
            watchers.removeAll()
            if isOpen || arrivals > holding {
                lock.unlock()
                continuation.resume()
            } else {
                passers.append(continuation)
                lock.unlock()
            }
            for watcher in arrived { watcher.resume() }
        }
    }

    /// Returns once a request has arrived at the gate.
    func arrival() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if arrivals > 0 {
                lock.unlock()
                continuation.resume()
            } else {
                watchers.append(continuation)
                lock.unlock()
            }
        }
    }

    /// Lets every request waiting, and every later one, through.
    func open() {
        lock.lock()
        isOpen = true
        let waiting = passers
        passers.removeAll()
        lock.unlock()
        for passer in waiting { passer.resume() }
    }
}
