import ArgumentParser
import Dispatch
import Foundation
import LockerServer

/// `locker serve`: the site and the bundles on localhost, rebuilt and reloaded on every save.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the vault's site and bundles on localhost, rebuilding on every save.",
        discussion: """
            Builds the vault into memory (nothing is written to disk) and serves the site at / and \
            the bundles under /bundles/v1/, with ETags: a request with If-None-Match gets 304, as \
            from a CDN. The vault is watched; when a note, an image, a template or locker.yml \
            changes, only the changed notes are parsed again, and open pages reload. Problems are \
            printed here and shown over the page; a build with errors keeps the last good pages.

            Examples:
              locker serve
              locker serve path/to/vault --port 8080
            """)

    @OptionGroup var options: VaultOptions

    @Option(help: "The address to listen on; 127.0.0.1 keeps it to this machine.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one.")
    var port = 8000

    @Option(
        name: .customLong("base-url"),
        help: "Where the site will be published (https://…/); overrides baseURL in locker.yml.")
    var baseURL: String?

    @Flag(help: "After each build, print the wall time of its phases (scanning … rendering).")
    var timings = false

    func run() throws {
        guard FileManager.default.fileExists(atPath: options.url.path) else {
            throw ValidationError("no vault folder at \(options.vault)")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        try Build.validate(baseURL: baseURL)
        let server = PreviewServer(
            options: .init(
                vault: options.url, host: host, port: port, strict: options.strict, baseURL: baseURL,
                displayPrefix: options.displayPrefix, timings: timings),
            log: { text in FileHandle.standardError.write(Data(text.utf8)) })
        let finished = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        Task {
            do {
                try await server.run { address in
                    FileHandle.standardOutput.write(
                        Data("Serving \(options.vault) at \(address) (Ctrl-C stops)\n".utf8))
                }
            } catch {
                failure.error = error
            }
            finished.signal()
        }
        finished.wait()
        if let error = failure.error { throw error }
    }
}

/// The server's error, handed from its task to the waiting command.
private final class FailureBox: @unchecked Sendable {
    var error: (any Error)?
}
