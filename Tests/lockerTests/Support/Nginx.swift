import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real nginx serving a folder for one test, as a static host or CDN serves a build: on a
/// free port of 127.0.0.1, with the cache headers the build's `_headers` asks for, ETags on (so
/// `If-None-Match` gets 304), and an access log the test reads.
///
/// It runs in the foreground, one process (`daemon off; master_process off;`), with its
/// configuration, pid file, logs and temporary folders in its own folder; ``stop()`` ends it
/// and waits, and ``start()`` starts it again on the same port. Stop it at the end of the test
/// (it is also stopped when released).
final class Nginx: @unchecked Sendable {
    /// One request of the access log.
    struct Request: Decodable, Hashable, Sendable, CustomStringConvertible {
        /// The request's URI as sent: `/bundles/v1/manifest.json`.
        var uri: String
        var status: Int
        /// The body bytes sent.
        var bytes: Int
        /// The request's `If-None-Match`; empty when it had none.
        var ifNoneMatch: String
        /// `OK` when the whole answer was sent; empty when the client went away first.
        var completion: String

        /// The path below `/bundles/v1/`, the way a manifest names files.
        var bundlePath: String { Nginx.bundlePath(uri) }

        var description: String { "\(status) \(uri) (\(bytes) bytes\(completion == "OK" ? "" : ", cut short"))" }
    }

    enum Failure: Error, CustomStringConvertible {
        case notStarted(String)
        case sentinelMissing

        var description: String {
            switch self {
            case .notStarted(let log): "nginx did not start: \(log)"
            case .sentinelMissing: "nginx's access log lacks the request just made"
            }
        }
    }

    /// Where the bundle folder is served from, as in a build's output folder.
    static let bundlePrefix = "/bundles/v1/"
    /// `path` below ``bundlePrefix``, the way a manifest names files; any other path as it is.
    static func bundlePath(_ path: String) -> String {
        path.hasPrefix(bundlePrefix) ? String(path.dropFirst(bundlePrefix.count)) : path
    }

    /// The entries of a log of one JSON object a line (nginx's access log, the fault proxy's);
    /// none while the file is not there.
    static func readLog<Entry: Decodable>(_ file: URL) throws -> [Entry] {
        guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
        let decoder = JSONDecoder()
        return try data.split(separator: UInt8(ascii: "\n")).map { try decoder.decode(Entry.self, from: Data($0)) }
    }

    /// Requests the harness makes to find the end of the log; left out of ``requests()``.
    private static let sentinelPrefix = "/.sentinel-"

    /// nginx's own folder: configuration, logs, pid file, temporary files.
    let folder: URL
    /// The folder served: a build's output folder (with `_headers` and `bundles/v1/`).
    let root: URL
    private let lock = NSLock()
    private var process: Process?
    private var chosenPort: Int

    /// The port it listens on, the same after ``stop()`` and ``start()``.
    var port: Int { lock.withLock { chosenPort } }
    /// `http://127.0.0.1:PORT/`.
    var address: URL {
        // A loopback address and a number: always a URL.
        URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/")
    }
    /// The URL of the served `bundles/v1/manifest.json`.
    var manifestURL: URL { address.appendingPathComponent("bundles/v1/manifest.json") }
    var accessLog: URL { folder.appendingPathComponent("access.log") }
    var errorLog: URL { folder.appendingPathComponent("error.log") }

    /// Starts nginx serving `root`, with the cache rules of `root/_headers` when it has one.
    init(serving root: URL, in folder: URL) throws {
        self.root = root
        self.folder = folder
        chosenPort = 0
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("temp"), withIntermediateDirectories: true)
        // Another process can take the free port before nginx binds it: try another.
        var failure: (any Error)?
        for _ in 0..<5 {
            chosenPort = try LocalPort.free()
            do {
                try start()
                return
            } catch {
                failure = error
            }
        }
        throw failure ?? Failure.notStarted("no port")
    }

    deinit { stop() }

    /// Starts nginx on ``port`` (again, after ``stop()``); returns when it accepts connections.
    func start() throws {
        try lock.withLock {
            guard process == nil else { return }
            try writeConfiguration()
            try? FileManager.default.removeItem(at: errorLog)
            let started = Process()
            started.executableURL = Self.executable
            started.arguments = [
                "-p", folder.path + "/", "-c", folder.appendingPathComponent("nginx.conf").path, "-e", errorLog.path,
            ]
            started.standardInput = FileHandle.nullDevice
            started.standardOutput = FileHandle.nullDevice
            started.standardError = FileHandle.nullDevice
            try started.runWithSignalsUnblocked()
            let deadline = Date().addingTimeInterval(10)
            while started.isRunning, !LocalPort.accepts(chosenPort), Date() < deadline { usleep(2_000) }
            guard started.isRunning, LocalPort.accepts(chosenPort) else {
                if started.isRunning { started.terminate() }
                started.waitUntilExit()
                throw Failure.notStarted((try? String(contentsOf: errorLog, encoding: .utf8)) ?? "no error log")
            }
            process = started
        }
    }

    /// Stops nginx (SIGTERM, its fast shutdown) and waits for it to exit. The port is free
    /// afterwards: a client gets "connection refused", as from a stopped server.
    func stop() {
        lock.withLock {
            guard let process else { return }
            process.stopAndWait()
            self.process = nil
        }
    }

    var isRunning: Bool { lock.withLock { process?.isRunning ?? false } }

    /// Every request logged so far, oldest first. While nginx runs, every answer a client has
    /// received is in it: a request of the harness's own is made and waited for first (nginx logs
    /// each request before it reads the next from its one event loop).
    func requests() throws -> [Request] {
        if isRunning {
            let sentinel = Self.sentinelPrefix + UUID().uuidString
            _ = try LocalPort.exchange("GET \(sentinel) HTTP/1.0\r\nHost: localhost\r\n\r\n", port: port)
            // Logged before the connection closes; waited for all the same, in case it is not.
            let deadline = Date().addingTimeInterval(5)
            while try !readLog().contains(where: { $0.uri == sentinel }) {
                guard Date() < deadline else { throw Failure.sentinelMissing }
                usleep(1_000)
            }
        }
        return try readLog().filter { !$0.uri.hasPrefix(Self.sentinelPrefix) }
    }

    private func readLog() throws -> [Request] { try Self.readLog(accessLog) }

    private func writeConfiguration() throws {
        var locations = ""
        let headers = root.appendingPathComponent("_headers")
        if let text = try? String(contentsOf: headers, encoding: .utf8) {
            locations = try HeadersFile(text: text).locationBlocks()
        }
        let here = { (name: String) in HeadersFile.quoted(self.folder.appendingPathComponent(name).path) }
        let configuration = """
            # Written by the delivery tests for one test: everything nginx writes stays in this folder.
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(here("nginx.pid"));
            error_log \(here("error.log")) notice;
            events { worker_connections 256; }
            http {
                types {
                    application/json json;
                    image/png png;
                    image/jpeg jpg jpeg;
                    image/gif gif;
                    image/webp webp;
                    image/svg+xml svg;
                    text/html html;
                    text/plain txt;
                }
                default_type application/octet-stream;
                client_body_temp_path \(here("temp/body"));
                proxy_temp_path \(here("temp/proxy"));
                fastcgi_temp_path \(here("temp/fastcgi"));
                uwsgi_temp_path \(here("temp/uwsgi"));
                scgi_temp_path \(here("temp/scgi"));
                # One JSON object a line: what the tests count and compare.
                log_format delivery escape=json '{"uri":"$request_uri","status":$status,"bytes":$body_bytes_sent,'
                    '"ifNoneMatch":"$http_if_none_match","completion":"$request_completion"}';
                access_log \(here("access.log")) delivery;
                sendfile on;
                etag on;
                server_tokens off;
                server {
                    listen 127.0.0.1:\(chosenPort);
                    server_name localhost;
                    root \(HeadersFile.quoted(root.path));
            \(locations)    }
            }

            """
        try Data(configuration.utf8).write(to: folder.appendingPathComponent("nginx.conf"))
    }

    /// `NGINX` when set, else Debian's nginx.
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["NGINX"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: "/usr/sbin/nginx")
    }

    /// Whether nginx is installed (`make test` installs nginx-light).
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }
}
