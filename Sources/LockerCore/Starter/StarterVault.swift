import Foundation
import LockerTemplates

/// The vault `locker init` writes: settings with comments, a guide, a checklist, a deck and a
/// landing page in each language asked for, a `.gitignore` for the build, and a CI workflow
/// that checks pull requests and publishes the main branch. It builds with no problem, even
/// under `--strict`.
///
/// The notes are `templates/starter/`, compiled into the program. They are written in English
/// and Russian; another language gets the English notes, marked as its own, to translate.
public struct StarterVault: Sendable {
    /// One file to write, by its path in the vault.
    public struct File: Sendable, Equatable {
        public var path: String
        public var contents: String
    }

    /// The vault's languages, the default first.
    public var locales: [String]
    /// The vault's title, in `locker.yml` and on its landing page.
    public var title: String
    /// The git URL the CI workflow gets Locker's source from.
    public var lockerRepository: String
    /// The vault's folder in its git repository, which the workflow checks and builds.
    public var vaultPath = "."

    /// The languages the starter notes are written in.
    public static let writtenLocales = ["en", "ru"]

    /// What the workflow names until `--locker-repository` gives the real place: a host that
    /// cannot exist (`.invalid`), which the workflow refuses to build from with a message.
    public static let placeholderRepository = "https://locker-repository.invalid/locker.git"

    /// The Debian packages of the libraries `locker` links (the Makefile's `BUILD_PACKAGES`,
    /// less the build tools), which the workflow installs on its runner.
    public static let libraryPackages =
        "libcmark-gfm-dev libcmark-gfm-extensions-dev libsqlite3-dev libmimalloc-dev libcurl4-openssl-dev zlib1g-dev"

    /// A starter for `locales` (the first is the default), or an error saying what is wrong.
    public init(locales: [String], title: String, lockerRepository: String = placeholderRepository) throws(StarterError)
    {
        guard !locales.isEmpty else { throw .noLocale }
        for (index, locale) in locales.enumerated() {
            guard LocaleTag.isValidTag(locale) else { throw .invalidLocale(locale) }
            guard !locales[..<index].contains(locale) else { throw .repeatedLocale(locale) }
        }
        guard !title.allSatisfy(\.isWhitespace), !title.contains(where: \.isNewline) else { throw .invalidTitle }
        // A git URL or path, one word: it is written into the workflow's YAML and given to git.
        guard !lockerRepository.isEmpty, !lockerRepository.hasPrefix("-"),
            !lockerRepository.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F })
        else { throw .invalidRepository(lockerRepository) }
        self.locales = locales
        self.title = title
        self.lockerRepository = lockerRepository
    }

    /// The languages that get the English notes to translate.
    public var untranslatedLocales: [String] { locales.filter { !Self.writtenLocales.contains($0) } }

    /// Every file, in the order they are written.
    public var files: [File] {
        var files = [
            File(path: "locker.yml", contents: settings),
            File(path: ".gitignore", contents: Self.template("gitignore")),
            File(path: "README.md", contents: substituted(Self.template("README.md"), yaml: false)),
        ]
        let notes = [
            ("guides/welcome-aboard", "guide"), ("checklists/leaving-the-berth", "checklist"),
            ("decks/knots/_deck", "deck"),
            ("site/home", "page"),
        ]
        for (path, template) in notes {
            for (index, locale) in locales.enumerated() {
                // The default language's note has no suffix: the name Obsidian shows and links use.
                let file = path + (index == 0 ? "" : "." + locale) + ".md"
                let written = Self.writtenLocales.contains(locale)
                var text = Self.template("\(template).\(written ? locale : "en").md")
                if !written { text = text.replacingOccurrences(of: "\nlang: en\n", with: "\nlang: \(locale)\n") }
                files.append(File(path: file, contents: substituted(text, yaml: true)))
            }
        }
        files.append(
            File(
                path: ".github/workflows/locker.yml", contents: substituted(Self.template("workflow.yml"), yaml: true))
        )
        files.append(File(path: ".github/actions/setup-locker/action.yml", contents: Self.template("action.yml")))
        return files
    }

    private var settings: String {
        substituted(Self.template("locker.yml"), yaml: true)
            .replacingOccurrences(of: "__LOCALES__", with: locales.joined(separator: ", "))
            .replacingOccurrences(of: "__DEFAULT_LOCALE__", with: locales[0])
    }

    /// The template's placeholders filled in; in YAML the title is a quoted string, whatever it holds.
    private func substituted(_ text: String, yaml: Bool) -> String {
        text.replacingOccurrences(of: "__TITLE__", with: yaml ? title.yamlDoubleQuoted : title)
            .replacingOccurrences(of: "__LOCKER_VERSION__", with: LockerVersion.current)
            .replacingOccurrences(
                of: "__LOCKER_REPOSITORY__", with: yaml ? lockerRepository.yamlDoubleQuoted : lockerRepository
            )
            .replacingOccurrences(of: "__LOCKER_LIBRARIES__", with: Self.libraryPackages)
            .replacingOccurrences(of: "__LOCKER_VAULT__", with: vaultPath == "." ? "." : vaultPath.yamlDoubleQuoted)
    }

    private static func template(_ name: String) -> String { StarterTemplates.all[name] ?? "" }
}

/// Why `locker init` cannot make a starter vault.
public enum StarterError: Error, Sendable, Equatable, CustomStringConvertible {
    case noLocale
    case invalidLocale(String)
    case repeatedLocale(String)
    case invalidTitle
    case invalidRepository(String)

    public var description: String {
        switch self {
        case .noLocale: "--locales names no language"
        case .invalidLocale(let locale): "'\(locale)' is not a locale tag such as 'en' or 'pt-BR'"
        case .repeatedLocale(let locale): "locale '\(locale)' is listed twice"
        case .invalidTitle: "the title must be one line of text"
        case .invalidRepository(let url):
            "--locker-repository '\(url)' is not a git URL: one word, not starting with '-'"
        }
    }
}
