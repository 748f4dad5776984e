import ArgumentParser
import Dispatch
import Foundation
import LockerCore
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `locker build`: check the vault, then write its bundles.
struct Build: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Check a vault and write its bundles into the output folder.",
        discussion: """
            Writes <out>/bundles/v1/manifest.json, one content-addressed JSON file per document, \
            an index per kind and locale, the embedded images, and <out>/_headers for the host; \
            and the static site in <out>/site: the landing pages, a page per guide, checklist and \
            deck, an index per kind, in every locale, with sitemap.xml, robots.txt, 404.html and \
            its own _headers. Templates come from the vault's templates/ folder where it has them. \
            A first build is written into a staging folder renamed into place; a rebuild is \
            written in place, touching only the files that changed, each replaced in one rename \
            after a journal is saved, so a commit cut short is finished by the next build. When \
            the vault has errors, or on Ctrl-C, nothing is written and the previous build stays \
            as it was.

            generatedAt in the manifest comes from SOURCE_DATE_EPOCH, else the vault's last git \
            commit, so two builds of the same content are byte-identical. A file the previous build \
            wrote with the same bytes, or a page made from the same inputs, is kept rather than \
            written again, and a guide whose note and the notes it shows are unchanged is not \
            even read: <out>/.locker-notes keeps what the next build needs of it. When no file of the \
            vault changed (names, sizes, modification times) and the options are the same, the \
            build stops at once and prints the previous report. On a terminal, a progress line \
            shows on standard error while the build runs.

            Problems are printed on standard output, as `locker check` prints them, followed by what \
            was built; with --format json or sarif, standard output holds the JSON document alone \
            and the rest goes to standard error.

            The manifest's version is the content's time in seconds (--bundle-version overrides \
            it), and it expires manifestExpiryDays (locker.yml, default 30) after that time. With \
            --sign-key, or a key's text in LOCKER_SIGNING_KEY, the manifest is signed (Ed25519) \
            and the signatures go to <out>/bundles/v1/signatures/<hash16>.json; make a key with \
            'locker keygen'. A signed build needs the content's time (SOURCE_DATE_EPOCH, or a git \
            commit), as apps refuse a signed manifest without an expiry.

            Examples:
              locker build
              locker build path/to/vault --out public
              locker build --base-url https://sail.example.org/
              locker build --sign-key ~/keys/locker-signing.key
            """)

    @OptionGroup var options: VaultOptions

    @Option(help: "The output folder; each build replaces the previous build's files in it.", completion: .directory)
    var out: String = "build"

    @Option(help: "How to print problems: text, json, github (workflow annotations), or sarif.")
    var format: DiagnosticPrinter.Format = .text

    @Option(
        name: .customLong("base-url"),
        help: "Where the site is published (https://…/); overrides baseURL in locker.yml.")
    var baseURL: String?

    @Flag(help: "Print how long each phase took, to standard error.")
    var timings = false

    @Option(
        name: .customLong("sign-key"),
        help: ArgumentHelp(
            "A private key file (from 'locker keygen') to sign the manifest with; repeat it to sign with several keys while one replaces another. Without it, LOCKER_SIGNING_KEY may hold one key's text.",
            valueName: "file"),
        completion: .file())
    var signKeys: [String] = []

    @Option(
        name: .customLong("bundle-version"),
        help: ArgumentHelp(
            "The manifest's version, in place of the content's time in seconds; apps refuse a manifest older than the one they have.",
            valueName: "n"))
    var bundleVersion: Int?

    /// The environment variable that holds a signing key's text, for CI, where a secret is an
    /// environment variable; read when no --sign-key is given.
    static let signingKeyVariable = "LOCKER_SIGNING_KEY"

    /// The keys that sign the build: each --sign-key file, else the key in
    /// ``signingKeyVariable``; none when neither is given. An empty variable counts as unset,
    /// as GitHub Actions sets a secret a pull request from a fork cannot see.
    static func signingKeys(files: [String], environment: [String: String]) throws -> [SigningKey] {
        guard !files.isEmpty else {
            guard let text = environment[signingKeyVariable], !text.allSatisfy(\.isWhitespace) else { return [] }
            return [try SigningKey(text: text, from: signingKeyVariable)]
        }
        return try files.map { path in
            if path.hasSuffix(".pub") {
                throw LockerError.usage(
                    "--sign-key \(path) looks like a public key: sign with the private key (locker-signing.key)")
            }
            let data: Data
            do {
                // A key's text is 45 bytes: a larger file (or a device) is not read whole.
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                data = try handle.read(upToCount: 4096) ?? Data()
            } catch {
                throw LockerError.io("cannot read the signing key \(path): \(error.localizedDescription)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw LockerError.usage("--sign-key \(path) is not a signing key: it is not text")
            }
            return try SigningKey(text: text, from: "--sign-key \(path)")
        }
    }

    /// Whether anything is at `path` (a symbolic link is not followed).
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// A `--base-url` must be an absolute http(s) URL; `build` and `serve` check it the same way.
    static func validate(baseURL: String?) throws {
        if let baseURL, !(baseURL.hasPrefix("https://") || baseURL.hasPrefix("http://")) || URL(string: baseURL) == nil
        {
            throw ValidationError("--base-url must be an http:// or https:// URL")
        }
    }

    func run() throws {
        try Self.validate(baseURL: baseURL)
        if let bundleVersion, bundleVersion < 0 {
            throw ValidationError("--bundle-version must be a whole number of at least 0")
        }
        let output = URL(fileURLWithPath: out, isDirectory: true).standardizedFileURL
        if output.path == options.url.path {
            throw LockerError.usage("the output folder cannot be the vault itself")
        }
        let environment = ProcessInfo.processInfo.environment
        let signingKeys = try Self.signingKeys(files: signKeys, environment: environment)
        let progress = ProgressLine(timings: timings)
        var compiler = Compiler(
            vault: options.url, strict: options.strict, skipping: [output],
            environment: environment, baseURL: baseURL, progress: progress)
        compiler.signingKeys = signingKeys
        compiler.bundleVersion = bundleVersion
        // Stopped before anything is read: the compiler would refuse it when writing (the expiry
        // an app requires of a signed manifest counts from the content's time).
        if !signingKeys.isEmpty, compiler.contentTime() == nil {
            throw LockerError.usage(Compiler.untimedSigning)
        }
        // An unchanged vault, built the same way, has the output it had: say so and stop.
        let fingerprint = BuildFingerprint(
            compiler: compiler,
            settings: [
                "strict \(options.strict)", "base-url \(baseURL ?? "-")", "format \(format.rawValue)",
                "display \(options.displayPrefix)", "out \(out)",
            ])
        // Problems go to standard output, as `check` prints them; under --format json or sarif that
        // stream holds the JSON document alone, and what the build did goes to standard error.
        let said = format == .json || format == .sarif ? FileHandle.standardError : FileHandle.standardOutput
        if let record = OutputWriter.upToDate(output, fingerprint: fingerprint) {
            progress.finish()
            FileHandle.standardOutput.write(Data(record.report.utf8))
            said.write(Data(("Up to date. " + record.summary).utf8))
            return
        }
        // Ctrl-C or a kill while building removes what was written; the output stays as it was.
        // The handlers are live before anything is written, and the transaction starts with
        // interrupts held, so none can leave its files behind.
        let interrupts = Interrupts()
        defer { interrupts.stop() }
        // The search index, which a commit that changes the site removes (made from the old pages).
        let derived = OutputWriter.derivedFolders.filter { Self.exists(output.path + "/" + $0) }
        let transaction = try interrupts.holding {
            let transaction = try OutputWriter.begin(replacing: output)
            interrupts.onInterrupt { transaction.discard() }
            return transaction
        }
        let compilation: Compilation
        do {
            compilation = try compiler.compile(into: transaction, taking: fingerprint)
        } catch {
            progress.finish()
            // Held: an interrupt that stopped the writers is the one that reports and exits.
            interrupts.holding { transaction.discard() }
            throw error
        }
        if let time = compilation.templateTime, time.renders > 0 {
            let each = Int((time.seconds / Double(time.renders) * 1e6).rounded())
            progress.detail(
                "templates", seconds: time.seconds,
                "of CPU, \(ProgressLine.grouped(time.renders)) pages at \(each) µs "
                    + "(\(ProgressLine.grouped(time.skeletonPages)) from \(ProgressLine.grouped(time.skeletons)) "
                    + "skeletons), header and footer rendered "
                    + "\(ProgressLine.grouped(time.partRenders)) times (in rendering, summed over threads)")
        }
        if compilation.failed { progress.finish() } else { progress.clear() }
        let printer = DiagnosticPrinter(format: format, pathPrefix: options.displayPrefix)
        let report = printer.render(compilation.diagnostics, notesChecked: compilation.noteCount)
        FileHandle.standardOutput.write(Data(report.utf8))
        guard !compilation.failed, let manifest = compilation.writtenManifest else {
            interrupts.holding { transaction.discard() }
            FileHandle.standardError.write(Data("locker: nothing written; \(out) is unchanged.\n".utf8))
            throw ExitCode(1)
        }
        let locales = manifest.header.locales.joined(separator: ", ")
        func count(_ kind: ContentKind, _ noun: String) -> String {
            let unique = compilation.idCount(of: kind)
            return "\(unique) \(noun)\(unique == 1 ? "" : "s")"
        }
        let documents = [count(.guide, "guide"), count(.checklist, "checklist"), count(.deck, "deck")]
        let signing = manifest.header.signedBy.map { "signed by " + $0.joined(separator: ", ") } ?? "unsigned"
        let summary =
            "Built \(documents[0]), \(documents[1]) and \(documents[2]) in \(locales) into \(out)/\(BundleSchema.folder): "
            + "\(manifest.fileCount) files, content version \(manifest.header.contentVersion.prefix(12)), \(signing); "
            + "the site into \(out)/site: \(compilation.sitePageCount) pages.\n"
        progress.update(.finishing, done: 0, total: 0)
        // The swap is short and must not be cut in half: interrupts wait for it.
        do {
            try interrupts.holding {
                // A commit cut short (a crash, a power cut) leaves its journal, and the next build
                // finishes it; one that fails goes on, and its marker says what to write again.
                interrupts.onInterrupt(saying: "the output may be partly written, and the next build finishes it") {}
                // The record is the fingerprint's hash alone: the walk it holds (every file's
                // name and stamp) is not freed with the record during the commit.
                try transaction.commit(
                    record: BuildRecord(
                        fingerprint: BuildFingerprint(hex: fingerprint.hex), report: report, summary: summary))
                // The output is whole now: an interrupt held until here only sets the exit status.
                interrupts.onInterrupt(saying: "the new build is in place") {}
            }
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        said.write(Data(summary.utf8))
        for folder in derived where !Self.exists(output.path + "/" + folder) {
            let site = folder.split(separator: "/").dropLast().joined(separator: "/")
            said.write(
                Data(
                    ("Removed \(out)/\(folder)/, the search index of the previous pages; make it again with "
                        + "`python3 -m pagefind --site \(out)/\(site)`.\n").utf8))
        }
        // The output is whole: an interrupt from here on has nothing to undo.
        interrupts.stop()
        exitKeeping(compilation, fingerprint, transaction, status: 0)
    }
}

/// Handles SIGINT and SIGTERM during a build: runs a clean-up and exits with 130, except while
/// ``holding(_:)`` runs, after which a pending interrupt is honoured.
///
/// The handlers are dispatch signal sources. On Linux, libdispatch installs its own handler for a
/// signal when the source is registered, on its manager thread, after `resume()` returns; until
/// then the signal keeps its default action, which stops the process before it has written
/// anything. So ``init()`` waits for the registration: once it returns, every interrupt is
/// handled. (On Darwin the signals must be ignored for the sources to see them.)
///
/// The clean-up runs on a dispatch thread while the build goes on: the output's write gate stops
/// the writers first (``OutputTransaction/discard()``), and once an interrupt is being handled,
/// ``holding(_:)`` never runs its body, so the build cannot commit, or report a failure of its
/// own, while the clean-up runs.
final class Interrupts: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []
    private let lock = NSLock()
    private var cleanUp: @Sendable () -> Void = {}
    private var outcome = "the output folder is unchanged"
    private var held = false
    private var pending = false
    private var exiting = false

    init() {
        let registered = DispatchGroup()
        for number in [SIGINT, SIGTERM] {
            // A signal the parent ignores (`nohup`, a background job) stays ignored.
            var current = sigaction()
            if sigaction(number, nil, &current) == 0, Self.isIgnored(current) { continue }
            #if canImport(Darwin)
                signal(number, SIG_IGN)
            #endif
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.interrupted() }
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.resume()
            sources.append(source)
        }
        // Registration takes microseconds. Should it not come, an interrupt still stops the
        // build by its default action, without the clean-up.
        if registered.wait(timeout: .now() + 10) == .timedOut {
            FileHandle.standardError.write(Data("locker: warning: Ctrl-C will not clean up after this build\n".utf8))
        }
    }

    /// What an interrupt does from now on, and what it tells the user happened to the output.
    func onInterrupt(
        saying outcome: String = "the output folder is unchanged", _ cleanUp: @escaping @Sendable () -> Void
    ) {
        lock.lock()
        self.cleanUp = cleanUp
        self.outcome = outcome
        lock.unlock()
    }

    private func interrupted() {
        lock.lock()
        let again = exiting
        pending = true
        let now = !held && !exiting
        if now { exiting = true }
        lock.unlock()
        // A second interrupt while the clean-up waits (on a writer stuck in the kernel, say) ends it.
        if again { _exit(130) }
        if now { exitCleanly() }
    }

    private func exitCleanly() -> Never {
        lock.lock()
        let cleanUp = self.cleanUp
        let outcome = self.outcome
        lock.unlock()
        cleanUp()
        FileHandle.standardError.write(Data("\nlocker: interrupted; \(outcome).\n".utf8))
        Foundation.exit(130)
    }

    /// Runs `body` with interrupts deferred until it returns, then honours one that came. Once
    /// an interrupt is being handled, waits for it to end the process instead.
    func holding<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        let parked = exiting
        if !parked { held = true }
        lock.unlock()
        if parked {
            while true { sleep(60) }
        }
        defer {
            lock.lock()
            held = false
            let now = pending && !exiting
            if now { exiting = true }
            lock.unlock()
            if now { exitCleanly() }
        }
        return try body()
    }

    /// Restores the default handling of the signals this handled.
    func stop() {
        for source in sources {
            source.cancel()
            signal(Int32(source.handle), SIG_DFL)
        }
    }

    private static func isIgnored(_ action: sigaction) -> Bool {
        #if canImport(Darwin)
            return unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self) == 1
        #else
            return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1
        #endif
    }
}
