import LockerKit

/// The settings of a vault, from the optional `locker.yml` at its root.
///
/// Every key is optional; with no file at all any Obsidian vault builds, each note a guide.
/// docs/content-format.md documents each key.
public struct VaultConfig: Sendable, Hashable {
    /// The name of the content collection, shown by apps and the site.
    public var title: String?
    /// Where the site will be published, e.g. `https://locker.example.org/`.
    public var baseURL: String?
    /// Every locale the vault is written in; the first is the default unless `defaultLocale` says.
    public var locales: [String] = ["en"]
    /// The locale of a note that names none, and the fallback for missing translations.
    public var defaultLocale: String = "en"
    /// Folder (relative to the vault) → kind of every note below it; the deepest folder wins.
    public var kinds: [String: ContentKind] = [:]
    /// Where each folder of ``kinds`` is named in `locker.yml`.
    var kindPositions: [String: SourcePosition] = [:]
    /// Whether `locker.yml` has a `kinds` key, even an empty one: then the author chose every
    /// folder's kind, and folders named for a kind are not pointed out (``KindFolders``).
    var declaresKinds = false
    /// The app's URL scheme, for deep links `<scheme>://content/<kind>/<uuid>`.
    public var deepLinkScheme: String?
    /// How a link to a note that does not exist yet is reported.
    public var unresolvedLinks: Severity = .warning
    /// Folders or files (relative to the vault) that are not content, such as Obsidian templates.
    public var exclude: [String] = []
    /// Notes larger than this many bytes are refused.
    public var maxFileSize: Int = 2 * 1024 * 1024
    /// How deep embeds may nest.
    public var embedDepth: Int = 5
    /// How many days after the content's time the manifest's `expires` is: an app refuses a
    /// manifest past it, so a host that stops publishing cannot keep apps on old content.
    public var manifestExpiryDays: Int = 30
    /// The most ``manifestExpiryDays`` may be: a century, so that the expiry stays a date.
    static let maxManifestExpiryDays = 36_500

    public init() {}

    /// The file name Locker looks for at the vault root.
    public static let fileName = "locker.yml"

    static let knownKeys: Set<String> = [
        "title", "baseURL", "locales", "defaultLocale", "kinds", "deepLinkScheme", "unresolvedLinks", "exclude",
        "maxFileSize", "embedDepth", "manifestExpiryDays",
    ]

    /// Reads `locker.yml`'s text. Problems are diagnostics; the config keeps its defaults for them.
    static func parse(_ text: String) -> (VaultConfig, [Diagnostic]) {
        var config = VaultConfig()
        var diagnostics: [Diagnostic] = []
        let file = fileName
        let reader = YAMLReader(
            file: file, syntaxCode: .configInvalid, complexityCode: .configInvalid, duplicateCode: .configInvalid)
        let root: YAMLValue?
        switch reader.read(text) {
        case .failure(let diagnostic): return (config, [diagnostic])
        case .success(let value): root = value
        }
        guard let root else { return (config, []) }
        guard case .mapping(let entries, _) = root else {
            return (
                config,
                [
                    Diagnostic(
                        .error, .configInvalid, "locker.yml must be a mapping of keys to values", file: file,
                        at: root.position)
                ]
            )
        }
        func invalid(_ value: YAMLValue, _ message: String) {
            diagnostics.append(Diagnostic(.error, .configInvalid, message, file: file, at: value.position))
        }
        func string(_ value: YAMLValue, _ key: String) -> String? {
            guard case .scalar(let text, let type, _) = value, type != .null, !text.isEmpty else {
                invalid(value, "'\(key)' must be a string, not \(value.typeName)")
                return nil
            }
            return text
        }
        func integer(_ value: YAMLValue, _ key: String, minimum: Int, maximum: Int? = nil) -> Int? {
            guard case .scalar(let text, .int, _) = value, let number = Int(text), number >= minimum,
                number <= maximum ?? number
            else {
                invalid(
                    value,
                    maximum.map { "'\(key)' must be a whole number from \(minimum) to \($0)" }
                        ?? "'\(key)' must be a whole number of at least \(minimum)")
                return nil
            }
            return number
        }
        var explicitDefault: (String, YAMLValue)?
        for entry in entries {
            let value = entry.value
            switch entry.key {
            case "title": config.title = string(value, entry.key)
            case "baseURL":
                if let url = string(value, entry.key) {
                    if url.hasPrefix("https://") || url.hasPrefix("http://") {
                        config.baseURL = url.hasSuffix("/") ? url : url + "/"
                    } else {
                        invalid(value, "'baseURL' must start with https:// or http://")
                    }
                }
            case "locales":
                let items: [YAMLValue]
                if case .sequence(let values, _) = value { items = values } else { items = [value] }
                var locales: [String] = []
                for item in items {
                    guard let locale = string(item, "locales") else { continue }
                    if !LocaleTag.isValidTag(locale) {
                        invalid(item, "'\(locale)' is not a locale tag such as 'en' or 'pt-BR'")
                    } else if locales.contains(locale) {
                        invalid(item, "locale '\(locale)' is listed twice")
                    } else {
                        locales.append(locale)
                    }
                }
                if !locales.isEmpty { config.locales = locales }
            case "defaultLocale":
                if let locale = string(value, entry.key) { explicitDefault = (locale, value) }
            case "kinds":
                config.declaresKinds = true
                guard case .mapping(let folders, _) = value else {
                    invalid(value, "'kinds' must map folders to kinds, e.g. 'Guides: guide'")
                    continue
                }
                for folder in folders {
                    guard let name = string(folder.value, "kinds") else { continue }
                    let kind = ContentKind(rawValue: name)
                    guard ContentKind.authored.contains(kind) else {
                        let known = ContentKind.authored.map(\.rawValue).joined(separator: ", ")
                        invalid(folder.value, "unknown kind '\(name)'; known kinds: \(known)")
                        continue
                    }
                    let path = VaultPath.normalize(folder.key).trimmingSlashes
                    config.kinds[path] = kind
                    config.kindPositions[path] = folder.keyPosition
                }
            case "deepLinkScheme":
                if let scheme = string(value, entry.key) {
                    if Self.isValidScheme(scheme) {
                        config.deepLinkScheme = scheme.lowercased()
                    } else {
                        invalid(
                            value, "'\(scheme)' is not a URL scheme: a letter, then letters, digits, '+', '-' or '.'")
                    }
                }
            case "unresolvedLinks":
                switch value.scalarText {
                case "warning": config.unresolvedLinks = .warning
                case "error": config.unresolvedLinks = .error
                default: invalid(value, "'unresolvedLinks' must be 'warning' or 'error'")
                }
            case "exclude":
                let items: [YAMLValue]
                if case .sequence(let values, _) = value { items = values } else { items = [value] }
                config.exclude = items.compactMap { string($0, "exclude") }.map {
                    VaultPath.normalize($0).trimmingSlashes
                }
            case "maxFileSize":
                if let size = integer(value, entry.key, minimum: 1) { config.maxFileSize = size }
            case "embedDepth":
                if let depth = integer(value, entry.key, minimum: 1) { config.embedDepth = depth }
            case "manifestExpiryDays":
                if let days = integer(value, entry.key, minimum: 1, maximum: Self.maxManifestExpiryDays) {
                    config.manifestExpiryDays = days
                }
            default:
                diagnostics.append(
                    Diagnostic(
                        .warning, .configUnknownKey, "unknown key '\(entry.key)'", file: file, at: entry.keyPosition,
                        hint: "known keys: " + knownKeys.sorted().joined(separator: ", ")))
            }
        }
        if let (locale, value) = explicitDefault {
            if config.locales.contains(locale) {
                config.defaultLocale = locale
            } else {
                invalid(
                    value,
                    "defaultLocale '\(locale)' is not one of the locales: \(config.locales.joined(separator: ", "))")
                config.defaultLocale = config.locales[0]
            }
        } else {
            config.defaultLocale = config.locales[0]
        }
        return (config, diagnostics)
    }

    static func isValidScheme(_ scheme: String) -> Bool { LinkResolver.isSchemeName(scheme) }

    /// Where a locale stands in ``locales``; unknown locales last.
    func rank(_ locale: String) -> Int { locales.firstIndex(of: locale) ?? Int.max }

    /// The rule for choosing between translations, with this vault's locales.
    public var localePreference: LocalePreference {
        LocalePreference(locales: locales, defaultLocale: defaultLocale)
    }

    /// The version to show in `locale` (see ``LocalePreference``).
    func preferred<Version>(_ versions: [Version], in locale: String, localeOf: (Version) -> String) -> Version? {
        localePreference.preferred(versions, in: locale, localeOf: localeOf)
    }

    /// The kind of a note at a vault path, from the deepest folder named in ``kinds``.
    func kind(forPath path: String) -> ContentKind? {
        var folder = VaultPath.folder(of: path)
        while true {
            if let kind = kinds[folder] { return kind }
            if folder.isEmpty { return nil }
            folder = VaultPath.folder(of: folder)
        }
    }

    /// Whether a vault path is excluded by ``exclude``.
    func isExcluded(_ path: String) -> Bool {
        exclude.contains { folder in
            // Inside the folder: its bytes and a `/`, as paths are split (``VaultPath``).
            let bytes = path.utf8
            if bytes.count > folder.utf8.count, bytes.starts(with: folder.utf8) {
                return bytes[bytes.index(bytes.startIndex, offsetBy: folder.utf8.count)] == UInt8(ascii: "/")
            }
            return path == folder
        }
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

enum LocaleTag {
    /// A BCP 47 tag of the simple kind content uses: `en`, `ru`, `pt-BR`, `zh-Hant`.
    static func isValidTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count),
            language.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) })
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (2...8).contains(part.count)
                && part.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) }
        }
    }
}
