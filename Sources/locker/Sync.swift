import ArgumentParser
import Foundation
import LockerCore
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `locker sync`: LockerKit's ``ContentUpdater`` from a terminal, for CI smoke tests, kiosks and
/// this repository's tests.
struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Bring the bundle published at URL into a folder, verified, as an app's updater does.",
        discussion: """
            URL is the folder holding manifest.json (https://cdn.example/bundles/v1/). The manifest \
            must be signed by a --key (a locker-signing.pub file or its text; repeat for several), \
            its version not lower than the synced one, and not expired; every file is checked \
            against its size and SHA-256 before the new set becomes active, in one step. 'locker \
            review --bundle DIR', 'stats' and 'checklist' read the folder as it is.

            Exit codes: 0 updated or up to date, 2 bad usage or a folder that cannot be written, \
            3 what the server sent failed verification (signature, version, expiry, a file's hash), \
            4 no answer or an HTTP error, or another sync of DIR is running: try again later.
            """)

    @Argument(help: "The folder holding manifest.json on the server (or manifest.json's own URL).")
    var url: String

    @Option(help: "The folder to keep the bundle in.", completion: .directory)
    var into: String

    @Option(help: "A trusted public key: a .pub file or its text. Repeat for several.")
    var key: [String] = []

    @Flag(help: "Accept a manifest that is not signed (a development server).")
    var allowUnsigned = false

    @Option(help: "Keep only this locale's files (and the fallbacks it reads). Repeat for several.")
    var locale: [String] = []

    @Option(
        help: "A bundle folder to start from when DIR has nothing newer, as an app ships one.", completion: .directory)
    var seed: String?

    @Option(help: "Seconds without data after which a request fails.")
    var timeout: Double = 30

    @Option(help: "How many files to download at a time.")
    var jobs: Int = 6

    func validate() throws {
        guard key.isEmpty == false || allowUnsigned else {
            throw ValidationError("Pass --key with a trusted public key, or --allow-unsigned for unsigned builds.")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive.") }
        guard jobs > 0 else { throw ValidationError("--jobs must be at least 1.") }
    }

    func run() throws {
        let keys = try key.map(Self.trustedKey)
        guard var base = URL(string: url), let scheme = base.scheme?.lowercased(), ["http", "https"].contains(scheme)
        else { throw LockerError.usage("\(url): not an http or https URL.") }
        if base.lastPathComponent != "manifest.json" { base.appendPathComponent("manifest.json") }
        let folder = URL(fileURLWithPath: into, isDirectory: true).standardizedFileURL
        let updater = ContentUpdater(
            store: folder, manifestURL: base, trustedKeys: keys, locales: locale.isEmpty ? nil : locale,
            seed: seed.map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL },
            allowUnsigned: allowUnsigned, transport: URLSessionTransport(timeout: timeout), concurrency: jobs)
        let line = ProgressLine()
        let outcome = Self.wait { () async -> Result<UpdateResult, UpdateError> in
            do throws(UpdateError) {
                return .success(
                    try await updater.update { progress in
                        line.show(
                            "downloading \(ProgressLine.grouped(progress.files))/\(ProgressLine.grouped(progress.totalFiles)) files, "
                                + "\(ProgressLine.grouped(progress.bytes))/\(ProgressLine.grouped(progress.totalBytes)) bytes"
                        )
                    })
            } catch {
                return .failure(error)
            }
        }
        line.finish()
        let active = ContentUpdater.activeManifest(in: folder)
        let signing = active.map { manifest in
            manifest.signedBy.map { " (signed by \($0.joined(separator: ", ")))" } ?? " (unsigned)"
        }
        switch outcome {
        case .success(.upToDate):
            let version = active?.version
            print("Up to date: \(into) holds version \(version.map(String.init) ?? "(none)")\(signing ?? "").")
        case .success(.updated(let from, let to, let files, let bytes)):
            let was = from.map { "from version \($0) " } ?? ""
            print(
                "Updated \(into) \(was)to version \(to.map(String.init) ?? "(none)")\(signing ?? ""): "
                    + "\(ProgressLine.grouped(files)) files, \(ProgressLine.grouped(bytes)) bytes downloaded.")
        case .failure(let error):
            printError("locker: sync: \(error)")
            throw ExitCode(error.isVerificationFailure ? 3 : error.isTemporary ? 4 : 2)
        }
    }

    /// A key from `--key`: the text of the file at that path, else the text itself.
    static func trustedKey(_ argument: String) throws -> TrustedKey {
        var text = argument
        if FileManager.default.fileExists(atPath: argument) {
            guard let data = FileManager.default.contents(atPath: argument) else {
                throw LockerError.io("\(argument): cannot read the key file")
            }
            text = String(decoding: data, as: UTF8.self)
        }
        do {
            return try TrustedKey(text: text)
        } catch {
            throw LockerError.usage("--key \(argument): \(error)")
        }
    }

    /// Runs `work` and waits for it: the command runs on a thread of its own (``Allocator``),
    /// which may block.
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await work()
            done.signal()
        }
        done.wait()
        guard let value = box.value else { preconditionFailure("the task ended without a value") }
        return value
    }

    private final class Box<T>: @unchecked Sendable {
        var value: T?
    }
}
