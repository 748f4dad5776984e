import ArgumentParser
import Foundation
import LockerCore
import LockerKit

/// Options of the commands that keep progress: the database and the day.
struct ProgressOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The progress database (SQLite).",
            discussion: "Default: $LOCKER_PROGRESS, else $XDG_DATA_HOME/locker/progress.sqlite (~/.local/share/…)."),
        completion: .file())
    var progress: String?

    @Option(help: "Act as if today were this day (YYYY-MM-DD): for scripts and tests.")
    var today: LocalDay?

    @Option(help: "The hour (0–23) a new day starts at, local time.")
    var dayStartsAt: Int = DayBoundary.defaultStartHour

    func validate() throws {
        guard (0...23).contains(dayStartsAt) else {
            throw ValidationError("--day-starts-at must be an hour from 0 to 23, not \(dayStartsAt).")
        }
    }

    var boundary: DayBoundary { DayBoundary(timeZone: .current, startHour: dayStartsAt) }

    /// The time events are stamped with: now, or noon of `--today` (a minute after the day starts
    /// when it starts after noon), so the same script gives the same records.
    var now: Date {
        guard let today else { return Date() }
        return boundary.start(of: today).addingTimeInterval(Double(max(60, (12 - dayStartsAt) * 3600)))
    }

    /// The day it is: `--today`, else today's date with the day's start hour.
    var day: LocalDay { today ?? boundary.day(of: Date()) }

    /// Opens (creating if needed) the progress database.
    func openStore() throws -> ProgressStore {
        let path = progressPath
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw LockerError.io(
                "\(folder.path): cannot create the folder for the progress database: \(error.localizedDescription)")
        }
        return try ProgressStore(path: path)
    }

    var progressPath: String {
        if let progress { return progress }
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["LOCKER_PROGRESS"], !path.isEmpty { return path }
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return (data as NSString).appendingPathComponent("locker/progress.sqlite")
    }
}

/// Options of the commands that keep progress and read a built bundle.
struct RuntimeOptions: ParsableArguments {
    @OptionGroup var content: BundleOptions
    @OptionGroup var progress: ProgressOptions

    var now: Date { progress.now }
    var day: LocalDay { progress.day }
    func openStore() throws -> ProgressStore { try progress.openStore() }
    var hasBundle: Bool { content.hasBundle }
    func openBundle() throws -> ContentBundle { try content.openBundle() }
    func locale(in bundle: ContentBundle) throws -> String { try content.locale(in: bundle) }
    func decks(named name: String?) throws -> [Deck] { try content.decks(named: name) }
}

/// Options of the commands that read a built bundle.
struct BundleOptions: ParsableArguments {
    @Option(help: "The bundle folder: the one holding manifest.json.", completion: .directory)
    var bundle: String = "build/" + BundleSchema.folder

    @Option(help: "The language to show content in (default: the bundle's default locale).")
    var locale: String?

    /// Whether the bundle folder has a manifest.
    var hasBundle: Bool { Self.hasManifest(in: bundle) }

    private static func hasManifest(in bundle: String) -> Bool {
        FileManager.default.fileExists(
            atPath: URL(fileURLWithPath: bundle, isDirectory: true).appendingPathComponent("manifest.json").path)
    }

    /// Opens and verifies the bundle.
    func openBundle() throws -> ContentBundle { try Self.openBundle(at: bundle) }

    /// Opens and verifies the bundle in the folder `bundle`.
    static func openBundle(at bundle: String) throws -> ContentBundle {
        guard hasManifest(in: bundle) else {
            throw LockerError.usage(
                "\(bundle): no manifest.json here. Build the content first ('make run' or 'locker build content'), or pass --bundle."
            )
        }
        // A folder `locker sync` keeps holds only the locales it was asked for.
        let folder = URL(fileURLWithPath: bundle, isDirectory: true)
        return try ContentUpdater.activeBundle(in: folder) ?? ContentBundle(contentsOf: folder)
    }

    /// The locale to show content in: `--locale`, else the bundle's default.
    func locale(in bundle: ContentBundle) throws -> String {
        guard let locale else { return Self.defaultLocale(in: bundle) }
        guard bundle.locales.contains(locale) else {
            throw LockerError.usage("--locale \(locale): the bundle has \(bundle.locales.joined(separator: ", ")).")
        }
        return locale
    }

    /// The locale content is shown in without `--locale`: the bundle's default, or, in a folder
    /// `locker sync` keeps, the first locale it holds when that is not the default.
    static func defaultLocale(in bundle: ContentBundle) -> String {
        guard let opened = bundle.openedLocales, !opened.contains(bundle.defaultLocale) else {
            return bundle.defaultLocale
        }
        return opened.first ?? bundle.defaultLocale
    }

    /// The deck named (by ID or title), or every deck, from the verified bundle.
    func decks(named name: String?) throws -> [Deck] {
        let bundle = try openBundle()
        let locale = try locale(in: bundle)
        guard let name else { return try bundle.decks(locale: locale) }
        return [try DocumentLookup.deck(name, in: bundle, locale: locale)]
    }
}

extension LocalDay: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
    public static var defaultCompletionKind: CompletionKind { .default }
}

/// Finds a document of a bundle by what a person types: its ID, an alias, or its title.
enum DocumentLookup {
    static func deck(_ name: String, in bundle: ContentBundle, locale: String) throws -> Deck {
        // By ID without decoding the others; by title only when that fails.
        if bundle.ids(of: .deck).contains(name) { return try bundle.deck(id: name, locale: locale) }
        let decks = try bundle.decks(locale: locale)
        let folded = name.lowercased()
        if let deck = decks.first(where: { $0.title.lowercased() == folded || $0.uuid == folded }) { return deck }
        throw LockerError.usage(
            "no deck '\(name)'. Decks: \(decks.map(\.id).joined(separator: ", ")).")
    }

    static func checklist(_ name: String, in bundle: ContentBundle, locale: String) throws -> Checklist {
        if bundle.ids(of: .checklist).contains(name) { return try bundle.checklist(id: name, locale: locale) }
        let checklists = try bundle.checklists(locale: locale)
        let folded = name.lowercased()
        if let checklist = checklists.first(where: {
            $0.title.lowercased() == folded || $0.uuid == folded || $0.aliases.contains { $0.lowercased() == folded }
        }) {
            return checklist
        }
        throw LockerError.usage(
            "no checklist '\(name)'. Checklists: \(checklists.map(\.id).joined(separator: ", ")).")
    }

    /// A charter by ID, unique ID prefix (4+ characters) or name (case-insensitive; the active or
    /// latest one when several share it).
    static func charter(_ name: String, in store: ProgressStore, on day: LocalDay) throws -> Charter {
        let charters = try store.charters(includingArchived: true)
        if let charter = charters.first(where: { $0.id.uuidString.lowercased() == name.lowercased() }) {
            return charter
        }
        let named = charters.filter { $0.name.lowercased() == name.lowercased() }
        if named.count == 1, let charter = named.first { return charter }
        if named.count > 1 {
            if let active = Charter.active(among: named, on: day) { return active }
            let live = named.filter { !$0.isArchived }
            if live.count == 1, let charter = live.first { return charter }
            throw LockerError.usage(
                "\(named.count) charters are named '\(name)': use the ID (\(named.map { String($0.id.uuidString.prefix(8)).lowercased() }.joined(separator: ", ")))."
            )
        }
        if name.count >= 4 {
            let prefixed = charters.filter { $0.id.uuidString.lowercased().hasPrefix(name.lowercased()) }
            if prefixed.count == 1, let charter = prefixed.first { return charter }
        }
        throw LockerError.usage("no charter '\(name)'. See 'locker charter list --all'.")
    }
}

/// Writes one JSON object per line, flushed at once: what a script reads as acknowledgement.
enum JSONLines {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func write(_ value: some Encodable) throws {
        var data = try encoder.encode(value)
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
    }
}

/// Writes a message to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
