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

    /// Paths split at their bytes: a combining mark after `/` or `.` does not hide it, as it would
    /// from a search by `Character`, and extensions are lowercased, Cyrillic ones too.
    @Test(arguments: [
        ("guides/Anchoring.MD", "guides", "Anchoring.MD", "md", "guides/Anchoring"),
        ("note.md", "", "note.md", "md", "note"),
        (".hidden", "", ".hidden", "", ".hidden"),
        ("folder.d/file", "folder.d", "file", "", "folder.d/file"),
        ("a/b.c/d.tar.GZ", "a/b.c", "d.tar.GZ", "gz", "a/b.c/d.tar"),
        ("фото/Схема.ПНГ", "фото", "Схема.ПНГ", "пнг", "фото/Схема"),
        ("a/\u{301}b.md", "a", "\u{301}b.md", "md", "a/\u{301}b"),
        ("a/b.\u{301}md", "a", "b.\u{301}md", "\u{301}md", "a/b"),
        ("trailing/", "trailing", "", "", "trailing/"),
    ] as [(String, String, String, String, String)])
    func pathsSplitAtTheirBytes(_ path: String, folder: String, name: String, ext: String, stem: String) {
        #expect(VaultPath.folder(of: path) == folder)
        #expect(VaultPath.fileName(of: path) == name)
        #expect(VaultPath.fileExtension(of: path) == ext)
        #expect(VaultPath.removingExtension(path) == stem)
        #expect(VaultPath.isNote(path) == (ext == "md"))
    }

    @Test(arguments: ["a.mD", "a.Md", "a.mdx", "a.m", "a.d", "a.\u{FF4D}d", "a.md.", "md", ".md", "a/.md", "a.md/b", "a.lmd"])
    func aNoteIsAnyCaseOfMD(_ path: String) {
        #expect(VaultPath.isNote(path) == (VaultPath.fileExtension(of: path) == "md"), "\(path)")
    }
}
