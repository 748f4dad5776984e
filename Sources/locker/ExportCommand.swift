import ArgumentParser
import Foundation
import LockerCore
import LockerExport
import LockerKit

/// `locker export`: a built bundle's content in another program's format.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a bundle's content in another program's format.",
        subcommands: [ExportAnki.self])
}

/// `locker export anki`: decks as an Anki package.
struct ExportAnki: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "anki",
        abstract: "Write decks as an Anki package (.apkg) that Anki imports.",
        discussion: """
            One note a card; a card and its reverse (front:::back) one note of two cards. A note's \
            GUID comes from its card's uuid and the locale, so importing a later export into Anki \
            updates the notes an earlier one brought in (when the later build is newer) instead of \
            adding them again. Decks are named '<title>::<deck>' (the title of locker.yml; with the \
            locale after it when the bundle has several), a deck inside another deck's folder under \
            that deck. Images are copied into the package's media; links to other notes lead to \
            their pages when the bundle has a site URL, else are plain text. The same bundle gives \
            the same bytes. See docs/runtime.md, "Exporting to Anki".

            Exit codes: 0 written, 2 bad usage (an unknown deck or locale) or a file that cannot be \
            read or written, 3 the bundle failed verification.

            Examples:
              locker export anki --out locker.apkg
              locker export anki sound-signals day-shapes --out signals.apkg --locale en
              locker export anki --out everything.apkg --locale all
            """)

    @Argument(help: "Decks: their IDs or titles, as 'locker review' takes them. Every deck when left out.")
    var decks: [String] = []

    @Option(help: "The package to write.", completion: .file(extensions: ["apkg"]))
    var out: String

    @Option(
        help: ArgumentHelp(
            "The language of the cards; repeat it for several, or 'all'.",
            discussion: "Default: the bundle's default locale. Each language has its own notes and decks."))
    var locale: [String] = []

    @Option(help: "The bundle folder: the one holding manifest.json.", completion: .directory)
    var bundle: String = "build/" + BundleSchema.folder

    func run() throws {
        let content = try BundleOptions.openBundle(at: bundle)
        let locales = try chosenLocales(in: content)
        let deckIDs = try decks.isEmpty ? nil : deckIDs(in: content, locales: locales)
        if deckIDs == nil, content.ids(of: .deck).isEmpty {
            throw LockerError.usage("\(bundle): the bundle has no decks.")
        }
        let package = try AnkiPackage(bundle: content, deckIDs: deckIDs, locales: locales)
        try package.write(to: URL(fileURLWithPath: out))
        if !package.hasContentTime {
            printError(
                "locker: warning: the manifest has no version or time, so the package is dated 1970 and a "
                    + "later one will not update its notes in Anki: build with SOURCE_DATE_EPOCH set, or from a git commit."
            )
        }
        let images = package.mediaCount == 1 ? "1 image" : "\(package.mediaCount) images"
        print(
            "Wrote \(out): \(package.noteCount) notes, \(package.cardCount) cards, \(package.deckCount) decks, "
                + "\(images) (\(locales.joined(separator: ", ")))."
        )
    }

    /// `--locale` as given, each once; `all`, every locale the folder holds; none, the default.
    private func chosenLocales(in content: ContentBundle) throws -> [String] {
        let available = content.openedLocales ?? content.locales
        guard !locale.isEmpty else { return [BundleOptions.defaultLocale(in: content)] }
        if locale.contains("all") { return available }
        var chosen: [String] = []
        for code in locale where !chosen.contains(code) {
            guard available.contains(code) else {
                throw LockerError.usage("--locale \(code): the bundle has \(available.joined(separator: ", ")).")
            }
            chosen.append(code)
        }
        return chosen
    }

    /// The IDs of the decks named, each once, in the order named; a name is looked up in each
    /// locale in turn, so a title may be given in any of them.
    private func deckIDs(in content: ContentBundle, locales: [String]) throws -> [String] {
        var ids: [String] = []
        for name in decks {
            var found: Deck?
            var failure: (any Error)?
            for locale in locales where found == nil {
                do {
                    found = try DocumentLookup.deck(name, in: content, locale: locale)
                } catch let error as LockerError {
                    failure = failure ?? error
                }
            }
            guard let deck = found else { throw failure ?? LockerError.usage("no deck '\(name)'.") }
            if !ids.contains(deck.id) { ids.append(deck.id) }
        }
        return ids
    }
}
