import Testing

@testable import LockerCore

/// The one rule for a note's locale suffix: what its translations share.
@Suite struct VaultPathTests {
    @Test(arguments: [
        ("guides/anchoring.en.md", "guides/anchoring", "en"),
        ("guides/anchoring.md", "guides/anchoring", nil),
        ("guides/anchoring.fr.md", "guides/anchoring.fr", nil),  // not one of the locales
        ("knots.v2.ru.md", "knots.v2", "ru"),
        ("folder.en/note.md", "folder.en/note", nil),  // a folder's dot is not a suffix
        (".en.md", ".en", nil),  // a name that is only a suffix
        ("decks/flags", "decks/flags", nil),
    ] as [(String, String, String?)])
    func basePathDropsTheExtensionAndAListedLocaleSuffix(_ path: String, base: String, locale: String?) {
        let found = VaultPath.basePath(of: path, locales: ["ru", "en"])
        #expect(found.base == base)
        #expect(found.suffixLocale == locale)
    }
}
