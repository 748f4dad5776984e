import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP GET an updater makes.
public struct TransportRequest: Sendable, Hashable {
    public var url: URL
    /// Request headers, such as `If-None-Match`.
    public var headers: [String: String]
    /// The most body bytes the caller accepts (after decompression); nil, any number.
    ///
    /// A transport stops reading a successful (2xx) answer whose body passes it, or whose
    /// `Content-Length` announces more, and throws ``TransportError/bodyTooLarge(limit:)``: a
    /// server sending an endless body, or a gzip bomb, costs at most this much memory. An answer
    /// of another status (an error page) is cut at the limit instead, and returned with its status.
    public var limit: Int?

    public init(url: URL, headers: [String: String] = [:], limit: Int? = nil) {
        self.url = url
        self.headers = headers
        self.limit = limit
    }
}

/// Why a transport gave up on an answer that was coming.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A successful answer's body is longer than the request's ``TransportRequest/limit`` (as its
    /// `Content-Length` said, or as its bytes came): the transport stopped reading it, and kept
    /// none of it. An updater reads it as a file that is not what its manifest says.
    case bodyTooLarge(limit: Int)

    public var description: String {
        switch self {
        case .bodyTooLarge(let limit): "the body is longer than the \(limit) bytes accepted"
        }
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
///
/// Its session has a delegate of the transport's own, which gathers each body as it comes: a
/// body past its request's ``TransportRequest/limit`` is cut off there (the request cancelled,
/// its bytes let go), and every request ends within the configuration's
/// `timeoutIntervalForResource`, which the transport enforces itself (FoundationNetworking keeps
/// the setting but never applies it).
public struct URLSessionTransport: UpdateTransport {
    /// The session requests go through: the transport's own, invalidated once the transport and
    /// its copies are gone.
    public var session: URLSession { owner.session }

    private let owner: Owner

    /// A transport over a session of its own with `configuration` (which the session copies).
    public init(configuration: URLSessionConfiguration) {
        owner = Owner(configuration: configuration)
    }

    /// A transport with `session`'s configuration, over a session of its own: the transport
    /// counts each body's bytes in its session's delegate, so `session`'s delegate is not called.
    public init(session: URLSession) {
        self.init(configuration: session.configuration)
    }

    /// A transport over an ephemeral session without a cache, giving up on a request after
    /// `timeout` seconds without data (on Linux, a whole number of seconds: ``wholeSeconds(_:)``),
    /// or `resourceTimeout` seconds after it began however its bytes come: a server sending a
    /// byte a little more often than `timeout` cannot hold a request longer. Keep
    /// `resourceTimeout` above the time the largest file takes over the slowest link served.
    public init(timeout: TimeInterval = 30, resourceTimeout: TimeInterval = 300) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = Self.wholeSeconds(timeout)
        configuration.timeoutIntervalForResource = resourceTimeout
        self.init(configuration: configuration)
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

    /// Performs a GET; a body past `request.limit` throws ``TransportError/bodyTooLarge(limit:)``
    /// as soon as it passes it (see ``TransportRequest/limit``), a request past the resource
    /// timeout throws `URLError(.timedOut)`, and cancelling the calling task cancels the request
    /// (`URLError(.cancelled)`).
    public func get(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: owner.requestTimeout)
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let task = owner.session.dataTask(with: urlRequest)
        let id = task.taskIdentifier
        let loads = owner.loads
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                loads.start(task, limit: request.limit, continuation: continuation)
            }
        } onCancel: {
            loads.end(id, with: .failure(URLError(.cancelled)))
        }
    }

    /// The session and its delegate, which the transport's copies share; the session is
    /// invalidated (and lets its delegate go) when the last copy is gone.
    private final class Owner: Sendable {
        let session: URLSession
        let loads: Loads
        let requestTimeout: TimeInterval

        init(configuration: URLSessionConfiguration) {
            requestTimeout = configuration.timeoutIntervalForRequest
            loads = Loads(resourceTimeout: configuration.timeoutIntervalForResource)
            session = URLSession(configuration: configuration, delegate: loads, delegateQueue: nil)
        }

        deinit { session.finishTasksAndInvalidate() }
    }
}

/// The delegate of a ``URLSessionTransport``'s session: each request's answer gathered as it
/// comes, and its caller resumed once, by whichever comes first of the answer's end, its body
/// passing the limit, the resource deadline and the caller's cancellation. A request ended
/// before its answer did is cancelled, and what its task reports after is ignored.
private final class Loads: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// One request under way.
    private final class Load {
        let task: URLSessionDataTask
        let limit: Int?
        let continuation: CheckedContinuation<TransportResponse, any Error>
        var deadline: (any DispatchSourceTimer)?
        var response: HTTPURLResponse?
        var body = Data()

        init(
            task: URLSessionDataTask, limit: Int?, continuation: CheckedContinuation<TransportResponse, any Error>
        ) {
            self.task = task
            self.limit = limit
            self.continuation = continuation
        }

        func answer(_ response: HTTPURLResponse) -> TransportResponse {
            TransportResponse(status: response.statusCode, etag: response.value(forHTTPHeaderField: "ETag"), body: body)
        }
    }

    /// The most time a request may take, from its start; none when not positive and finite.
    private let resourceTimeout: TimeInterval
    private let lock = NSLock()
    /// The requests under way, by task identifier (unique in a session); guarded by `lock`.
    private var loads: [Int: Load] = [:]

    init(resourceTimeout: TimeInterval) {
        self.resourceTimeout = resourceTimeout
    }

    /// Starts `task`, whose answer resumes `continuation`. Called in the caller's task: one
    /// already cancelled is not started.
    func start(
        _ task: URLSessionDataTask, limit: Int?, continuation: CheckedContinuation<TransportResponse, any Error>
    ) {
        let id = task.taskIdentifier
        let load = Load(task: task, limit: limit, continuation: continuation)
        let started = lock.withLock { () -> Bool in
            // Under the lock ``end(_:with:finished:)`` takes: a cancellation either came before
            // this (and is seen here), or comes after and finds the load.
            guard !Task.isCancelled else { return false }
            loads[id] = load
            return true
        }
        guard started else {
            continuation.resume(throwing: URLError(.cancelled))
            return
        }
        if resourceTimeout > 0, resourceTimeout.isFinite {
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.setEventHandler { [weak self] in self?.end(id, with: .failure(URLError(.timedOut))) }
            timer.schedule(deadline: .now() + resourceTimeout)
            timer.resume()
            let kept = lock.withLock { () -> Bool in
                guard loads[id] === load else { return false }
                load.deadline = timer
                return true
            }
            // Ended meanwhile (cancelled): no deadline to keep.
            if !kept { timer.cancel() }
        }
        task.resume()
    }

    /// Ends request `id` with `outcome` if it is still under way: its caller resumed, its
    /// deadline dropped, and its task cancelled unless it `finished`.
    ///
    /// The task is cancelled last, on another thread: FoundationNetworking's `cancel()` waits for
    /// the queue all its sessions share, which a body pouring in keeps busy for up to seconds;
    /// waited for here, it held the caller, and the delegate queue, whose callbacks (each holding
    /// its bytes) piled up meanwhile. Whatever comes until the cancellation takes effect is let go
    /// as it comes.
    func end(_ id: Int, with outcome: Result<TransportResponse, any Error>, finished: Bool = false) {
        let ended = lock.withLock { loads.removeValue(forKey: id).map { ($0, $0.deadline) } }
        guard let (load, deadline) = ended else { return }
        deadline?.cancel()
        load.continuation.resume(with: outcome)
        guard !finished else { return }
        let task = load.task
        DispatchQueue.global().async { task.cancel() }
    }

    /// Applies `change` to `task`'s request if it is still under way; ends the request when
    /// `change` gives an outcome. Returns whether the request goes on.
    @discardableResult
    private func update(
        _ task: URLSessionTask, finished: Bool = false,
        _ change: (Load) -> Result<TransportResponse, any Error>?
    ) -> Bool {
        let id = task.taskIdentifier
        let (found, outcome) = lock.withLock { () -> (Bool, Result<TransportResponse, any Error>?) in
            guard let load = loads[id] else { return (false, nil) }
            return (true, change(load))
        }
        guard found else { return false }
        guard let outcome else { return true }
        end(id, with: outcome, finished: finished)
        return false
    }

    /// Whether `status` is a success, whose body is the resource asked for.
    private static func isSuccess(_ status: Int) -> Bool { (200..<300).contains(status) }

    /// Whether the body comes encoded (gzip, br…): its `Content-Length` then counts the encoded
    /// bytes, not those the transport receives.
    private static func isEncoded(_ response: HTTPURLResponse) -> Bool {
        guard let encoding = response.value(forHTTPHeaderField: "Content-Encoding") else { return false }
        let trimmed = encoding.trimmingCharacters(in: .whitespaces).lowercased()
        return !trimmed.isEmpty && trimmed != "identity"
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let goesOn = update(dataTask) { load in
            guard let response = response as? HTTPURLResponse else { return .failure(URLError(.badServerResponse)) }
            load.response = response
            // A response after another (multipart/x-mixed-replace) replaces its body.
            load.body = Data()
            if let limit = load.limit, Self.isSuccess(response.statusCode), !Self.isEncoded(response),
                response.expectedContentLength > Int64(limit)
            {
                return .failure(TransportError.bodyTooLarge(limit: limit))
            }
            return nil
        }
        completionHandler(goesOn ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        update(dataTask) { load in
            guard let limit = load.limit, data.count > limit - load.body.count else {
                load.body.append(data)
                return nil
            }
            guard let response = load.response, !Self.isSuccess(response.statusCode) else {
                return .failure(TransportError.bodyTooLarge(limit: limit))
            }
            // An error page: its status is the answer, its body kept up to the limit.
            load.body.append(data.prefix(max(0, limit - load.body.count)))
            return .success(load.answer(response))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        update(task, finished: true) { load in
            if let error { return .failure(error) }
            guard let response = load.response ?? task.response as? HTTPURLResponse else {
                return .failure(URLError(.badServerResponse))
            }
            return .success(load.answer(response))
        }
    }
}
