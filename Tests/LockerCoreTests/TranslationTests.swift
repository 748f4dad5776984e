import Foundation
import Testing
@testable import LockerCore
import LockerKit

/// Versions of one document in the vault's languages: `translation.mismatch` and `translation.missing`.
@Suite struct TranslationTests {
    static let config = "locales: [ru, en]\n"

    private func compile(_ files: [String: String], strict: Bool = false) throws -> Compilation {
        let vault = try TestVault(files, config: Self.config)
        defer { vault.remove() }
        return try vault.compile(strict: strict)
    }

    @Test func itemMissingInTranslationGivesOneMismatchAtTheItem() throws {
        let ru = MarkedText("---\ntype: checklist\n---\n\n## Палуба\n\n- [ ] Жилеты ^vests\n1️⃣- [ ] Якорь ^anchor\n")
        let compilation = try compile([
            "list.md": ru.text, "list.en.md": "---\ntype: checklist\n---\n\n## Deck\n\n- [ ] Vests ^vests\n",
        ])
        let mismatches = compilation.diagnostics.with(.translationMismatch)
        #expect(mismatches.count == 1, "\(compilation.diagnostics.rendered)")
        let found = try #require(mismatches.first)
        #expect(found.severity == .warning)
        #expect(found.file == "list.md")
        #expect(found.position == ru["1"])
        #expect(found.message.contains("list.md") && found.message.contains("list.en.md"), "\(found.message)")
        #expect(found.message.contains("anchor"))
        #expect(compilation.checklists.map(\.locale).sorted() == ["en", "ru"])
    }

    @Test func matchingItemIDsGiveNoMismatchWhateverTheTitles() throws {
        let compilation = try compile([
            "list.md": "---\ntype: checklist\n---\n\n## Палуба\n\n- [ ] Жилеты ^vests\n",
            "list.en.md": "---\ntype: checklist\n---\n\n## Deck\n\n- [ ] Life jackets ^vests\n",
        ])
        #expect(compilation.diagnostics.with(.translationMismatch).isEmpty, "\(compilation.diagnostics.rendered)")
        let uuids = Set(compilation.checklists.flatMap(\.items).map(\.uuid))
        #expect(uuids.count == 1)
    }

    @Test func derivedItemIDsDifferAcrossLanguagesAndMismatchBothWays() throws {
        let compilation = try compile([
            "list.md": "---\ntype: checklist\n---\n\n## Палуба\n\n- [ ] Жилеты\n",
            "list.en.md": "---\ntype: checklist\n---\n\n## Deck\n\n- [ ] Vests\n",
        ])
        let mismatches = compilation.diagnostics.with(.translationMismatch)
        #expect(mismatches.map(\.file) == ["list.en.md", "list.md"], "\(compilation.diagnostics.rendered)")
    }

    @Test func cardMissingInTranslationGivesMismatchAtTheCard() throws {
        let en = MarkedText("---\ntype: deck\n---\n\nAlpha::Diver down ^alpha\n1️⃣Bravo::Dangerous cargo ^bravo\n")
        let compilation = try compile([
            "Flags.md": "---\ntype: deck\nlang: ru\n---\n\nАльфа::Водолаз ^alpha\n", "Flags.en.md": en.text,
        ])
        let mismatches = compilation.diagnostics.with(.translationMismatch)
        #expect(mismatches.count == 1, "\(compilation.diagnostics.rendered)")
        #expect(mismatches.first?.file == "Flags.en.md")
        #expect(mismatches.first?.position == en["1"])
        #expect(mismatches.first?.message.contains("Flags.md") == true)
    }

    @Test func strictReportsMissingTranslationAsError() throws {
        let files = ["guide.md": "Только по-русски.\n"]
        #expect(try compile(files).diagnostics.with(.translationMissing).isEmpty, "only under strict")
        let strict = try compile(files, strict: true)
        let missing = strict.diagnostics.with(.translationMissing)
        #expect(missing.count == 1, "\(strict.diagnostics.rendered)")
        let found = try #require(missing.first)
        #expect(found.severity == .error)
        #expect(found.file == "guide.md")
        #expect(found.message.contains("en"))
        #expect(strict.failed)
    }

    @Test func strictIsSatisfiedByATranslationInEveryLocale() throws {
        let strict = try compile(["guide.md": "Текст.\n", "guide.en.md": "Text.\n"], strict: true)
        #expect(strict.diagnostics.isEmpty, "\(strict.diagnostics.rendered)")
    }

    @Test func missingTranslationHintNamesTheTranslationFile() throws {
        let strict = try compile(["guide.md": "Только по-русски.\n"], strict: true)
        let found = try #require(strict.diagnostics.with(.translationMissing).first)
        #expect(found.hint?.contains("'guide.en.md'") == true, "\(found.hint ?? "no hint")")
    }

    @Test func singleLocaleVaultNeverReportsTranslations() throws {
        let vault = try TestVault(["guide.md": "Text.\n"], config: "locales: [en]\n")
        defer { vault.remove() }
        let strict = try vault.compile(strict: true)
        #expect(strict.diagnostics.isEmpty, "\(strict.diagnostics.rendered)")
    }
}
