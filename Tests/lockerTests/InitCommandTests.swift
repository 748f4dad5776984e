import Foundation
import LockerKit
import Testing

/// `locker init`, `locker --version` and the shell completions, through the built binary.
@Suite struct InitCommandTests {
    /// Every file `locker init` writes, whatever the languages, less the notes.
    static let settingsFiles = [
        "locker.yml", ".gitignore", "README.md", ".github/workflows/locker.yml",
        ".github/actions/setup-locker/action.yml",
    ]

    static func notes(_ locales: [String]) -> [String] {
        ["guides/welcome-aboard", "checklists/leaving-the-berth", "decks/knots/_deck", "site/home"].flatMap { path in
            locales.enumerated().map { index, locale in path + (index == 0 ? "" : "." + locale) + ".md" }
        }
    }

    /// The relative paths of every file below `folder`.
    static func files(in folder: URL) -> Set<String> {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        var paths: Set<String> = []
        while let url = enumerator?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                paths.insert(String(url.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1)))
            }
        }
        return paths
    }

    @Test func initMakesAVaultThatChecksStrictAndBuildsInEveryLanguage() throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        let made = try LockerRun(["init", "school", "--locales", "en,ru"], in: workspace.root)
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        let school = workspace.root.appendingPathComponent("school")
        #expect(Self.files(in: school) == Set(Self.settingsFiles + Self.notes(["en", "ru"])))
        #expect(made.stdout.contains("  decks/knots/_deck.ru.md\n"))
        let settings = String(decoding: try workspace.read("school/locker.yml"), as: UTF8.self)
        #expect(settings.contains("\ntitle: \"school\"\n"))
        #expect(settings.contains("\nlocales: [en, ru]\n") && settings.contains("\ndefaultLocale: en\n"))
        #expect(settings.contains("\n# "), "locker.yml explains its keys")

        let check = try LockerRun(["check", "school", "--strict"], in: workspace.root)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout == "8 notes checked: 0 errors, 0 warnings.\n")

        // From inside the vault, as its README says: the current folder is the vault.
        let build = try LockerRun(["build", "--strict"], in: school)
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        let bundle = try ContentBundle(contentsOf: school.appendingPathComponent("build/bundles/v1"))
        for locale in ["en", "ru"] {
            #expect(bundle.manifest.files.filter { $0.locale == locale && $0.kind == "guide" }.count == 1)
            #expect(bundle.manifest.files.filter { $0.locale == locale && $0.kind == "checklist" }.count == 1)
            #expect(bundle.manifest.files.filter { $0.locale == locale && $0.kind == "deck" }.count == 1)
        }
        #expect(FileManager.default.fileExists(atPath: school.appendingPathComponent("build/site/index.html").path))
        // The build is what .gitignore leaves out.
        #expect(String(decoding: try workspace.read("school/.gitignore"), as: UTF8.self).contains("\n/build/\n"))
    }

    @Test func theFirstLanguageIsTheDefaultAndHasTheFileNamesWithoutASuffix() throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        let made = try LockerRun(
            ["init", "школа", "--locales", "ru,en", "--title", "Яхтенная школа: \"Норд\""], in: workspace.root)
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        let guide = String(decoding: try workspace.read("школа/guides/welcome-aboard.md"), as: UTF8.self)
        #expect(guide.contains("\nlang: ru\n") && guide.contains("title: Добро пожаловать на борт\n"))
        let english = String(decoding: try workspace.read("школа/guides/welcome-aboard.en.md"), as: UTF8.self)
        #expect(english.contains("\nlang: en\n"))
        let settings = String(decoding: try workspace.read("школа/locker.yml"), as: UTF8.self)
        #expect(settings.contains("\ntitle: \"Яхтенная школа: \\\"Норд\\\"\"\n"))
        #expect(settings.contains("\nlocales: [ru, en]\n") && settings.contains("\ndefaultLocale: ru\n"))
        let check = try LockerRun(["check", "школа", "--strict"], in: workspace.root)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let build = try LockerRun(["build", "школа", "--out", "out"], in: workspace.root)
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        let bundle = try ContentBundle(contentsOf: workspace.root.appendingPathComponent("out/bundles/v1"))
        #expect(bundle.manifest.defaultLocale == "ru")
        #expect(bundle.manifest.title == "Яхтенная школа: \"Норд\"")
    }

    @Test func oneLanguageAndALanguageWithoutWrittenNotes() throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        let one = try LockerRun(["init", "one"], in: workspace.root)
        #expect(one.status == 0, "\(one.stdout)\(one.stderr)")
        #expect(
            Self.files(in: workspace.root.appendingPathComponent("one")) == Set(Self.settingsFiles + Self.notes(["en"]))
        )
        #expect(try LockerRun(["check", "one", "--strict"], in: workspace.root).status == 0)

        let german = try LockerRun(["init", "de", "--locales", "de,en"], in: workspace.root)
        #expect(german.status == 0, "\(german.stdout)\(german.stderr)")
        #expect(german.stdout.contains("The notes in de are in English: translate them.\n"))
        let note = String(decoding: try workspace.read("de/checklists/leaving-the-berth.md"), as: UTF8.self)
        #expect(note.contains("\nlang: de\n") && note.contains("title: Leaving the berth\n"))
        let check = try LockerRun(["check", "de", "--strict"], in: workspace.root)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    @Test func initNeverOverwritesAndWritesNothingWhenAFileIsThere() throws {
        let workspace = try Workspace(["README.md": "The team's own README.\n", "notes.md": "Kept.\n"])
        defer { workspace.remove() }
        let run = try LockerRun(["init", "vault", "--locales", "en,ru"], in: workspace.root)
        #expect(run.status == 2)
        #expect(
            run.stderr == "locker: vault already has README.md: nothing was written (init never overwrites a file)\n")
        #expect(Self.files(in: workspace.root.appendingPathComponent("vault")) == ["README.md", "notes.md"])
        #expect(String(decoding: try workspace.read("vault/README.md"), as: UTF8.self) == "The team's own README.\n")

        // Into a folder with other files, it writes beside them.
        let other = try Workspace(["notes.md": "Kept.\n"])
        defer { other.remove() }
        #expect(try LockerRun(["init", "vault"], in: other.root).status == 0)
        #expect(String(decoding: try other.read("vault/notes.md"), as: UTF8.self) == "Kept.\n")
    }

    @Test(arguments: [
        (["--locales", "english"], "locker: locker init: 'english' is not a locale tag such as 'en' or 'pt-BR'\n"),
        (["--locales", "en,ru,en"], "locker: locker init: locale 'en' is listed twice\n"),
        (["--locales", ","], "locker: locker init: --locales names no language\n"),
        (["--title", " "], "locker: locker init: the title must be one line of text\n"),
    ])
    func badLanguagesOrTitleAreUsageErrors(_ arguments: [String], _ message: String) throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        let run = try LockerRun(["init", "vault"] + arguments, in: workspace.root)
        #expect(run.status == 2)
        #expect(run.stderr == message)
        #expect(!FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("vault").path))
    }

    @Test func aFileWhereAFolderMustGoIsRefusedAndNothingIsLeft() throws {
        let workspace = try Workspace([".github": "Not a folder.\n"])
        defer { workspace.remove() }
        let run = try LockerRun(["init", "vault"], in: workspace.root)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("locker: vault already has .github/workflows/locker.yml, "), "\(run.stderr)")
        #expect(Self.files(in: workspace.root.appendingPathComponent("vault")) == [".github"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: workspace.root.appendingPathComponent("vault").path)
                == [".github"], "no folder made")
    }

    @Test func inAFolderOfAGitRepositoryTheWorkflowChecksThatFolder() throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        try FileManager.default.createDirectory(
            at: workspace.root.appendingPathComponent(".git"), withIntermediateDirectories: true)
        let run = try LockerRun(
            ["init", "content", "--locker-repository", "https://git.example.org/locker.git"], in: workspace.root)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("content is the folder content of the git repository "))
        let workflow = String(decoding: try workspace.read("content/.github/workflows/locker.yml"), as: UTF8.self)
        #expect(workflow.contains("\n  LOCKER_VAULT: \"content\"\n"))
        #expect(workflow.contains("\n  LOCKER_REPOSITORY: \"https://git.example.org/locker.git\"\n"))
        #expect(!run.stdout.contains("--locker-repository"), "no reminder once it is given")
    }

    @Test(arguments: ["https://x/y.git\n  EVIL: \"1\"", "--upload-pack=touch x", "a b"])
    func aRepositoryThatIsNoGitURLIsRefused(_ url: String) throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        let run = try LockerRun(["init", "vault", "--locker-repository=\(url)"], in: workspace.root)
        #expect(run.status == 2)
        #expect(run.stderr.contains("is not a git URL"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("vault").path))
    }

    @Test func versionNamesTheReleaseAndTheBundleSchema() throws {
        let run = try LockerRun(["--version"], in: FileManager.default.temporaryDirectory)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("locker "))
        #expect(run.stdout.hasSuffix(" (bundle schema \(BundleSchema.version))\n"))
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsNameEveryCommand(_ shell: String) throws {
        let run = try LockerRun(["--generate-completion-script", shell], in: FileManager.default.temporaryDirectory)
        #expect(run.status == 0, "\(run.stderr)")
        for command in ["init", "build", "check", "serve", "review", "progress", "sync"] {
            #expect(run.stdout.contains(command), "\(shell) completions name \(command)")
        }
        #expect(run.stdout.contains("locales"), "the options of init")
    }
}
