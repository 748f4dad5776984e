import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The fault-injecting proxy (`Tests/delivery/fault_proxy.py`) in front of a server, for one
/// test: the faults nginx alone cannot make, on the paths a rule matches.
///
/// It listens on a free port of 127.0.0.1 and exits by itself when the test process is gone;
/// ``stop()`` ends it sooner (it is also stopped when released).
final class FaultProxy: @unchecked Sendable {
    /// One fault, for the requests whose path `match`es (a shell pattern: `*/guide/*`).
    struct Rule: Encodable, Sendable {
        var match: String
        var action: String
        var seconds: Double?
        var status: Int?
        var keep: Int?
        var after: Int?
        var chunk: Int?
        var length: Int?
        var gzip: Bool?
        var cap: Int?
        var hold: Double?

        /// Waits `seconds` before forwarding: a slow server.
        static func delay(_ seconds: Double, _ match: String = "*") -> Rule {
            Rule(match: match, action: "delay", seconds: seconds)
        }

        /// Answers `status` without forwarding.
        static func status(_ status: Int, _ match: String) -> Rule {
            Rule(match: match, action: "status", status: status)
        }

        /// Sends the full `Content-Length`, then `keep` bytes of the body (half when nil), then
        /// closes the connection.
        static func truncate(_ match: String, keep: Int? = nil) -> Rule {
            Rule(match: match, action: "truncate", keep: keep)
        }

        /// Sends the body with one byte changed.
        static func corrupt(_ match: String) -> Rule { Rule(match: match, action: "corrupt") }

        /// Closes the connection without an answer once `after` requests came since the rules
        /// were set: a server that stopped in the middle of a download.
        static func drop(after: Int, _ match: String = "*") -> Rule { Rule(match: match, action: "drop", after: after) }

        /// Answers 200 with a body that does not end: `chunk` bytes at a time, `every` seconds
        /// apart, announcing `length` bytes (chunked, with no length, when nil), gzip-encoded
        /// zeros with `gzip`. A hostile or broken server. It stops sending after `cap` bytes
        /// (uncompressed) but holds the answer open for `hold` seconds, so that a client that
        /// never stops reading is not fed forever.
        static func endless(
            _ match: String, chunk: Int = 65_536, every seconds: Double? = nil, length: Int? = nil,
            gzip: Bool = false, cap: Int = 1 << 30, hold: Double = 30
        ) -> Rule {
            Rule(
                match: match, action: "endless", seconds: seconds, chunk: chunk, length: length,
                gzip: gzip ? true : nil, cap: cap, hold: hold)
        }
    }

    /// One request as the proxy handled it.
    struct Request: Decodable, Hashable, Sendable, CustomStringConvertible {
        var path: String
        /// `forward`, `status`, `truncate`, `corrupt`, `drop`, `endless` or `upstream-down`.
        var action: String
        /// The status sent; 0 when none was.
        var status: Int
        /// The body bytes sent (uncompressed, for `endless`).
        var bytes: Int
        /// How an `endless` answer ended: `client` when the client closed the connection, `hold`
        /// when the proxy did, `stalled` when the client neither read nor closed; nil for others.
        var ended: String?

        var bundlePath: String { Nginx.bundlePath(path) }

        var description: String { "\(action) \(status) \(path) (\(bytes) bytes)" }
    }

    enum Failure: Error, CustomStringConvertible {
        case noPort(String)

        var description: String {
            switch self {
            case .noPort(let output): "fault_proxy.py did not say its port: '\(output)'"
            }
        }
    }

    /// The script, found beside the tests.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("delivery/fault_proxy.py")

    let port: Int
    private let process = Process()
    /// Kept open while the proxy should run: it exits when this closes.
    private let input = Pipe()
    private let rulesFile: URL
    private let logFile: URL

    /// `http://127.0.0.1:PORT/bundles/v1/manifest.json`.
    var manifestURL: URL {
        // A loopback address and a number: always a URL.
        (URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/")).appendingPathComponent(
            "bundles/v1/manifest.json")
    }

    /// Starts the proxy forwarding to `upstreamPort`, with its rules and log in `folder`.
    init(upstreamPort: Int, in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        rulesFile = folder.appendingPathComponent("rules.json")
        logFile = folder.appendingPathComponent("proxy.log")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Self.script.path, "--upstream", "127.0.0.1:\(upstreamPort)", "--rules", rulesFile.path,
            "--log", logFile.path, "--parent-pid", String(ProcessInfo.processInfo.processIdentifier),
        ]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runWithSignalsUnblocked()
        // Its first line is the port it listens on.
        var said = Data()
        let deadline = Date().addingTimeInterval(20)
        while !said.contains(UInt8(ascii: "\n")), process.isRunning, Date() < deadline {
            said += output.fileHandleForReading.availableData
        }
        let text = String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else {
            if process.isRunning { process.terminate() }
            throw Failure.noPort(text)
        }
        self.port = port
    }

    deinit { stop() }

    /// Replaces the rules, in one rename: the next request sees all of them or none.
    func set(_ rules: [Rule]) throws {
        struct File: Encodable { var rules: [Rule] }
        let staged = rulesFile.appendingPathExtension("new")
        try JSONEncoder().encode(File(rules: rules)).write(to: staged)
        guard rename(staged.path, rulesFile.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: rulesFile.path])
        }
    }

    /// Every request handled so far, oldest first; each is logged before its answer ends.
    func requests() throws -> [Request] { try Nginx.readLog(logFile) }

    /// Stops the proxy and waits for it.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.stopAndWait()
    }
}
