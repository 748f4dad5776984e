import Foundation
import Hummingbird
import LockerCore
import LockerKit
import Logging
import NIOCore
import ServiceLifecycle

/// `locker serve`: builds the vault into memory, serves the site and the bundles on localhost,
/// rebuilds when a file of the vault changes and tells open pages to reload.
///
/// Nothing is written to disk. Pages get a small script (`/_locker/reload.js`) that listens on
/// `/_locker/events` (server-sent events) and reloads when a build changes what is served; only
/// pages served here get it, never a build's output. Bundles answer `If-None-Match` with 304, as a
/// CDN does with their ETags.
public final class PreviewServer: Sendable {
    /// Where and how to serve.
    public struct Options: Sendable {
        public var vault: URL
        public var host: String
        /// 0 picks a free port.
        public var port: Int
        public var strict: Bool
        public var baseURL: String?
        /// How often the vault is checked for changes.
        public var pollInterval: Duration
        /// How paths are shown in diagnostics (the vault as the user wrote it).
        public var displayPrefix: String
        /// Whether each build's report ends with the wall time of its phases, as `--timings` prints them.
        public var timings: Bool

        public init(
            vault: URL, host: String = "127.0.0.1", port: Int = 8000, strict: Bool = false, baseURL: String? = nil,
            pollInterval: Duration = .milliseconds(250), displayPrefix: String = "", timings: Bool = false
        ) {
            self.timings = timings
            self.vault = vault
            self.host = host
            self.port = port
            self.strict = strict
            self.baseURL = baseURL
            self.pollInterval = pollInterval
            self.displayPrefix = displayPrefix
        }
    }

    private let options: Options
    private let state: PreviewState
    private let log: @Sendable (String) -> Void

    /// - Parameter log: receives what the terminal shows: each build's report and timing.
    public init(options: Options, log: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.log = log
        state = PreviewState()
    }

    /// Builds, then serves until cancelled; `onListening` receives the address once the socket is open.
    public func run(onListening: @escaping @Sendable (String) -> Void) async throws {
        let builder = PreviewBuilder(options: options)
        let initial = BuildFingerprint.files(in: options.vault)
        let (first, report) = builder.build(previous: nil, taking: initial)
        await state.publish(first)
        log(report)

        let router = Router()
        let state = self.state
        router.get("/_locker/reload.js") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: Self.reloadScript)))
        }
        router.get("/_locker/events") { _, _ in
            let (stream, id) = await state.subscribe()
            let generation = await state.site.generation
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    // The generation the page was served at, so it can tell a missed build.
                    try await writer.write(ByteBuffer(string: "retry: 500\nevent: hello\ndata: \(generation)\n\n"))
                    // A shutdown ends the stream, or the server would wait for the page to go away.
                    try await withGracefulShutdownHandler {
                        for await next in stream {
                            try await writer.write(ByteBuffer(string: "event: reload\ndata: \(next)\n\n"))
                        }
                    } onGracefulShutdown: {
                        Task { await state.unsubscribe(id) }
                    }
                    await state.unsubscribe(id)
                    try await writer.finish(nil)
                })
        }
        let serve: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            Self.response(to: request, site: await state.site)
        }
        router.get("/", use: serve)
        router.get("**", use: serve)
        router.head("/", use: serve)
        router.head("**", use: serve)

        var app = Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "locker"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                onListening("http://\(self.options.host):\(port)/")
            },
            logger: {
                var logger = Logger(label: "locker-serve")
                logger.logLevel = .error
                return logger
            }())
        app.addServices(VaultWatcher(options: options, builder: builder, state: state, initial: initial, log: log))
        // SIGINT (Ctrl-C) and SIGTERM stop it; open event streams are closed first.
        try await app.runService()
    }

    /// The response to one request for a file: the bytes with their type, an ETag, and 304
    /// when the client already has them.
    static func response(to request: Request, site: PreviewSite) -> Response {
        let path = request.uri.path.removingPercentEncoding ?? request.uri.path
        switch site.answer(for: path) {
        case .redirect:
            // The request's own path, still percent-encoded, with the slash added.
            return Response(status: .movedPermanently, headers: [.location: request.uri.path + "/"])
        case .file(let resource):
            let etag = "\"sha256-\(ContentHash.sha256Hex(resource.data))\""
            var headers: HTTPFields = [
                .contentType: resource.contentType, .cacheControl: resource.cacheControl, .eTag: etag,
            ]
            headers[.accessControlAllowOrigin] = path.hasPrefix("/" + BundleSchema.folder + "/") ? "*" : nil
            if resource.status == 200, let match = request.headers[.ifNoneMatch],
                match.split(separator: ",").contains(where: { tag in
                    let trimmed = tag.trimmingCharacters(in: .whitespaces)
                    return trimmed == "*" || trimmed == etag || trimmed == "W/" + etag
                })
            {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentLength] = "\(resource.data.count)"
            let body =
                request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: resource.data))
            return Response(status: .init(code: resource.status), headers: headers, body: body)
        }
    }

    /// Listens for builds and reloads the page when one changed what is served.
    static let reloadScript = """
        (() => {
          let seen = document.currentScript ? document.currentScript.dataset.generation : null;
          const events = new EventSource('/_locker/events');
          events.addEventListener('hello', (event) => {
            if (seen !== null && event.data !== seen) location.reload();
            seen = event.data;
          });
          events.addEventListener('reload', () => location.reload());
        })();

        """
}

/// What is served now, and the pages listening for the next build.
actor PreviewState {
    private(set) var site = PreviewSite(files: [], problems: [], summary: "", failed: true, generation: 0)
    private var listeners: [Int: AsyncStream<Int>.Continuation] = [:]
    private var nextID = 0

    func publish(_ newSite: PreviewSite) {
        let changed = newSite.generation != site.generation
        site = newSite
        guard changed else { return }
        for listener in listeners.values { listener.yield(newSite.generation) }
    }

    func subscribe() -> (AsyncStream<Int>, Int) {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let id = nextID
        nextID += 1
        listeners[id] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return (stream, id)
    }

    func unsubscribe(_ id: Int) {
        listeners.removeValue(forKey: id)?.finish()
    }

    /// Ends every event stream, so a shutdown need not wait for the pages to go away.
    func closeAll() {
        for listener in listeners.values { listener.finish() }
        listeners = [:]
    }
}
