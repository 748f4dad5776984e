import ArgumentParser
import Foundation
import LockerCore
import LockerKit

/// Ends a one-shot command without freeing what it built. A large vault's build is millions of
/// small objects, and freeing them one by one takes a single core a noticeable moment at the
/// end of every run; the system takes the memory back at once on exit (as `clang -disable-free`
/// does). Output written through `FileHandle` is already out.
func exitKeeping(_ values: Any..., status: Int32) -> Never {
    withExtendedLifetime(values) { Foundation.exit(status) }
}

/// The `locker` command: builds and checks content vaults.
@main
struct Locker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locker",
        abstract: "Turn an Obsidian vault of checklists, decks and guides into verified JSON bundles.",
        discussion: """
            A vault is a folder of markdown notes with YAML frontmatter, as Obsidian keeps them. \
            'locker check' reports every problem as path:line:col; 'locker build' writes \
            content-addressed bundles with a manifest of SHA-256 ETags, ready for any static host.

            'locker review', 'stats', 'charter' and 'checklist' use a built bundle and keep a \
            sailor's progress in a SQLite file: flashcard reviews (SM-2 or FSRS) and charter checklists, \
            which 'locker progress' carries between devices. \
            'locker sync' brings a signed bundle from a server into a folder, as an app's updater does; \
            'locker export anki' writes decks as an Anki package.

            Exit codes: 0 clean (or warnings only), 1 the content has errors (or warnings under \
            --strict; for the runtime commands, input that is not valid), 2 bad usage or a file \
            that cannot be read or written, 3 a bundle that fails verification, 4 (sync) no answer \
            or an HTTP error from the server: try again later.

            Docs: docs/content-format.md (writing notes), docs/bundle-format.md (reading bundles), \
            docs/runtime.md (LockerKit and the runtime commands).
            """,
        version: LockerVersion.description,
        subcommands: [
            Init.self, Build.self, Check.self, Serve.self, IDs.self, Keygen.self, Review.self, Stats.self,
            CharterCommand.self,
            ChecklistCommand.self, ProgressCommand.self, Sync.self, SearchCommand.self, OpenCommand.self,
            ExportCommand.self,
        ])

    /// Runs the command, on the thread ``Allocator`` starts, mapping every way of failing to the
    /// documented exit codes.
    static func main() {
        Allocator.run(runCommand)
    }

    @Sendable private static func runCommand() {
        // A build or check has its note parser and templates set up on the other core while its
        // arguments are parsed.
        switch CommandLine.arguments.dropFirst().first {
        case "build", "serve": Warmup.start(pages: true)
        case "check": Warmup.start(pages: false)
        default: break
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as LockerError {
            FileHandle.standardError.write(Data("locker: \(error)\n".utf8))
            Foundation.exit(2)
        } catch let error as BundleError {
            FileHandle.standardError.write(Data("locker: bundle: \(error)\n".utf8))
            Foundation.exit(3)
        } catch let error as ContentSearchError {
            FileHandle.standardError.write(Data("locker: \(error)\n".utf8))
            Foundation.exit(2)
        } catch let error as ProgressStoreError {
            FileHandle.standardError.write(Data("locker: \(error)\n".utf8))
            Foundation.exit(2)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let exitCode = exitCode(for: error)
            if exitCode == .success {
                // --help, --version: not failures.
                exit(withError: error)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
    }
}

/// Options shared by the commands that read a vault.
struct VaultOptions: ParsableArguments {
    @Argument(
        help: "The vault folder. Default: the current folder when it holds locker.yml, else content.",
        completion: .directory)
    var folder: String?

    /// The vault folder as given, else the current folder when it is a vault, else `content`.
    var vault: String {
        if let folder { return folder }
        return FileManager.default.fileExists(atPath: "locker.yml") ? "." : "content"
    }

    @Flag(help: "Treat warnings as errors: a link to a note not written yet, a skipped heading level, ….")
    var strict = false

    /// The vault path as the user wrote it, for prefixing diagnostic paths.
    var displayPrefix: String {
        var path = vault
        while path.hasSuffix("/"), path.count > 1 { path.removeLast() }
        if path == "." { return "" }
        if path.hasPrefix("./") { path.removeFirst(2) }
        return path
    }

    var url: URL { URL(fileURLWithPath: vault, isDirectory: true).standardizedFileURL }
}
