import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// A vault in three locales, Russian by default: links, headings, embeds, the bundle's indexes,
/// the site and the apps' reader choose between translations by one rule (``LocalePreference``).
@Suite struct ThreeLocaleTests {
    static let files = [
        "x.md": "# Икс\n\n## Якорь\n\nТекст якоря. ^block\n",
        "x.en.md": "# X\n\n## Anchor\n\nAnchor text. ^block\n",
        // German notes link to a document that has no German version: they mean the default
        // locale's, as the site and the apps show it, not the first version by path (`x.en.md`).
        "n.de.md": "# N\n\nSiehe [[x#Якорь]] und [[x#^block]].\n\n![[x#Якорь]]\n",
        "n.en.md": "# N\n\nSee [[x#Anchor]].\n",
        "n.md": "# Н\n\nСм. [[x#Якорь]].\n",
        "y.en.md": "# Y\n\nOnly in English.\n",
        "z.de.md": "# Z\n\nNur auf Deutsch und Englisch.\n",
        "z.en.md": "# Z\n\nIn German and English.\n",
    ]

    static func compile() throws -> Compilation {
        let vault = try TestVault(files, config: "locales: [ru, en, de]\ndefaultLocale: ru\n")
        defer { vault.remove() }
        return try vault.compile()
    }

    @Test func linksHeadingsAndEmbedsMeanTheVersionTheReaderSees() throws {
        let compilation = try Self.compile()
        #expect(compilation.diagnostics.filter { $0.severity != .note }.isEmpty, "\(compilation.diagnostics)")
        let german = try #require(compilation.guides.first { $0.id == "n" && $0.locale == "de" })
        let json = String(decoding: CanonicalJSONWriter.data(for: german), as: UTF8.self)
        #expect(json.contains("Текст якоря"), "the embed is the Russian section")
        #expect(!json.contains("Anchor text"))
    }

    @Test func indexesAndTheAppsReaderAgreeOnEveryFallback() throws {
        let compilation = try Self.compile()
        let output = try TestVault([:])
        defer { output.remove() }
        let bundle = try output.openBundle(of: compilation)
        let expected: [String: [String: String]] = [
            "ru": ["n": "ru", "x": "ru", "y": "en", "z": "en"],
            "en": ["n": "en", "x": "en", "y": "en", "z": "en"],
            "de": ["n": "de", "x": "ru", "y": "en", "z": "de"],
        ]
        for (locale, byID) in expected {
            let index = try #require(try bundle.index(of: .guide, locale: locale))
            #expect(index.locale == locale)
            let listed = Dictionary(uniqueKeysWithValues: index.entries.map { ($0.id, $0.locale) })
            #expect(listed == byID, "the \(locale) index")
            for (id, version) in byID {
                #expect(bundle.resolvedLocale(of: .guide, id: id, for: locale) == version, "\(id) for \(locale)")
            }
        }
    }

    @Test func theSiteLinksToTheVersionItsIndexLists() throws {
        let compilation = try Self.compile()
        func page(_ path: String) throws -> String {
            let file = try #require(compilation.files.first { $0.path == path }, "\(path)")
            return String(decoding: file.data, as: UTF8.self)
        }
        // Russian is the default locale, at the root; German pages link to its `x`.
        let german = try page("site/de/guides/n/index.html")
        #expect(german.contains("href=\"../../../guides/x/#"), "\(german)")
        #expect(!german.contains("en/guides/x/"))
        let index = try page("site/de/guides/index.html")
        #expect(index.contains("href=\"../../guides/x/\""))
        #expect(index.contains("href=\"../../en/guides/y/\""))
        #expect(index.contains("href=\"z/\""))
    }
}
