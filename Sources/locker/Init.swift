import ArgumentParser
import Foundation
import LockerCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `locker init`: a new vault that builds clean, with its CI workflow.
struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Start a new vault: settings, a guide, a checklist, a deck, a landing page and a CI workflow.",
        discussion: """
            Writes into DIR (made when missing): locker.yml with comments, one guide, one \
            checklist and one deck in each language of --locales (the first is the default), a \
            landing page, a README for authors, a .gitignore for the build, and a GitHub Actions \
            workflow that checks the notes each pull request changes and publishes the main \
            branch (docs/ci.md). The notes are written in English and Russian; another language \
            gets the English notes to translate. The vault builds with no problem, even under --strict.

            Refuses to overwrite any file: when one of them is already there, nothing is written.

            Examples:
              locker init sailing-school --locales en,ru
              locker init . --locales ru,en --title "Яхтенная школа"
            """)

    @Argument(help: "The folder to make the vault in.", completion: .directory)
    var directory: String = "."

    @Option(
        help: ArgumentHelp(
            "The vault's languages, comma-separated, the default first.", valueName: "locales"))
    var locales: String = "en"

    @Option(help: "The vault's title. Default: the folder's name.")
    var title: String?

    @Option(
        help: ArgumentHelp(
            "The git URL the CI workflow builds Locker from (a tag v\(LockerVersion.current) must be there).",
            valueName: "url"))
    var lockerRepository: String?

    func run() throws {
        let folder = URL(fileURLWithPath: directory).standardizedFileURL
        let name = folder.lastPathComponent.isEmpty || folder.path == "/" ? "Locker" : folder.lastPathComponent
        var starter: StarterVault
        do {
            starter = try StarterVault(
                locales: locales.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                title: title ?? name, lockerRepository: lockerRepository ?? StarterVault.placeholderRepository)
        } catch {
            throw LockerError.usage("locker init: \(error)")
        }
        // In a folder of a git repository, the workflow checks that folder; GitHub reads it
        // from the repository's top only, so the report says to move it there.
        let resolved = Keygen.resolved(folder.path)
        let repository = Keygen.ancestors(of: resolved).first { Keygen.exists($0 + "/.git") }
        if let repository, repository != resolved {
            starter.vaultPath = String(resolved.dropFirst(repository.count + (repository == "/" ? 0 : 1)))
        }
        let files = starter.files
        let display = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        // A file there, or a file where one of its folders must go.
        let taken = files.map(\.path).filter { path in
            var prefix = folder.path
            for part in path.split(separator: "/").dropLast() {
                prefix += "/" + part
                if Keygen.exists(prefix), !Self.isFolder(prefix) { return true }
            }
            return Keygen.exists(folder.path + "/" + path)
        }
        guard taken.isEmpty else {
            throw LockerError.usage(
                "\(display) already has \(taken.joined(separator: ", ")): nothing was written (init never overwrites a file)"
            )
        }
        var written: [String] = []
        var made: [String] = []
        do {
            for file in files {
                let path = folder.path + "/" + file.path
                var missing: [String] = []
                var parent = (path as NSString).deletingLastPathComponent
                while !Keygen.exists(parent), parent != "/", !parent.isEmpty {
                    missing.insert(parent, at: 0)
                    parent = (parent as NSString).deletingLastPathComponent
                }
                for folder in missing {
                    guard mkdir(folder, 0o755) == 0 else {
                        throw LockerError.io("cannot make the folder \(folder): \(String(cString: strerror(errno)))")
                    }
                    made.append(folder)
                }
                try Keygen.create(path, mode: 0o644, text: file.contents)
                written.append(path)
            }
        } catch {
            // All or nothing: the files of a half-made vault would make the next init refuse.
            for path in written { unlink(path) }
            for folder in made.reversed() { rmdir(folder) }
            throw error
        }
        report(starter, files: files, in: display, repository: repository == resolved ? nil : repository)
    }

    private static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private func report(_ starter: StarterVault, files: [StarterVault.File], in display: String, repository: String?) {
        var out = "Made a Locker vault in \(display), in \(starter.locales.joined(separator: ", ")):\n"
        for file in files { out += "  \(file.path)\n" }
        if let repository {
            out +=
                "\(display) is the folder \(starter.vaultPath) of the git repository \(repository): move "
                + "\(display)/.github to \(repository)/.github, where GitHub reads workflows; it checks "
                + "\(starter.vaultPath).\n"
        }
        if !starter.untranslatedLocales.isEmpty {
            out +=
                "The notes in \(starter.untranslatedLocales.joined(separator: ", ")) are in English: translate them.\n"
        }
        let vault = display == "." ? "" : " " + (display.contains(" ") ? "'\(display)'" : display)
        out += """
            Next:
              locker serve\(vault)            a preview that rebuilds as you save
              locker check\(vault) --strict   before each commit
            The CI workflow (.github/workflows/locker.yml) needs the secrets and variables in README.md
            """
        if lockerRepository == nil {
            out += ", and LOCKER_REPOSITORY in it set to where your team gets Locker (--locker-repository)"
        }
        FileHandle.standardOutput.write(Data((out + ".\n").utf8))
    }
}
