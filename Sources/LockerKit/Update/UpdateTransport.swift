import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP GET an updater makes.
public struct TransportRequest: Sendable, Hashable {
    public var url: URL
    /// Request headers, such as `If-None-Match`.
    public var headers: [String: String]

    public init(url: URL, headers: [String: String] = [:]) {
        self.url = url
        self.headers = headers
    }
}

/// What a server answered.
public struct TransportResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// The `ETag` header, if any.
    public var etag: String?
    /// The body, as received (decompressed if the transport decompresses).
    public var body: Data

    public init(status: Int, etag: String?, body: Data) {
        self.status = status
        self.etag = etag
        self.body = body
    }
}

/// How an updater talks HTTP: ``URLSessionTransport``, or an app's own (a background session, a
/// mirror, a test double).
public protocol UpdateTransport: Sendable {
    /// Performs a GET. Returns whatever status the server answered with; throws when no answer
    /// came (no connection, a timeout, a connection lost mid-body).
    func get(_ request: TransportRequest) async throws -> TransportResponse
}

/// ``UpdateTransport`` over `URLSession` (FoundationNetworking on Linux), with no HTTP cache of
/// its own: the updater decides what to fetch, and content-addressed files never change.
public struct URLSessionTransport: UpdateTransport {
    /// The session requests go through.
    public let session: URLSession

    /// A transport over `session`.
    public init(session: URLSession) {
        self.session = session
    }

    /// A transport over an ephemeral session without a cache, giving up on a request after
    /// `timeout` seconds without data (on Linux, a whole number of seconds: ``wholeSeconds(_:)``).
    public init(timeout: TimeInterval = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = Self.wholeSeconds(timeout)
        session = URLSession(configuration: configuration)
    }

    /// `timeout` as FoundationNetworking (Linux) can keep it: its timer counts the timeout's
    /// whole seconds (`Int(timeout) * 1000` ms), so under a second every request timed out at
    /// once, or never finished. Rounded up to a whole second there; Apple's URLSession keeps it.
    static func wholeSeconds(_ timeout: TimeInterval) -> TimeInterval {
        #if canImport(FoundationNetworking)
            return max(1, timeout.rounded(.up))
        #else
            return timeout
        #endif
    }

    public func get(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData,
            timeoutInterval: session.configuration.timeoutIntervalForRequest)
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let (body, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return TransportResponse(status: http.statusCode, etag: http.value(forHTTPHeaderField: "ETag"), body: body)
    }
}
