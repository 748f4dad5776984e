import Foundation
import Testing
@testable import LockerCore
import LockerKit

/// The vault in `content/` that `make run` builds: it must stay clean under `--strict`, and what
/// it holds must not silently shrink.
@Suite struct DefaultContentTests {
    static let vault = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("content")

    @Test func isCleanUnderStrict() throws {
        let compilation = try Compiler(vault: Self.vault, strict: true, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
        #expect(compilation.diagnostics.isEmpty, "\(compilation.diagnostics.rendered)")
    }

    @Test func checkInChecklistIsCompleteInBothLanguages() throws {
        let compilation = try Compiler(vault: Self.vault, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
        let manifest = try #require(compilation.manifest)
        let byPath = Dictionary(uniqueKeysWithValues: compilation.files.map { ($0.path, $0.data) })
        let versions = try manifest.files.filter { $0.kind == "checklist" && $0.id == "check-in" }.map { entry in
            try JSONDecoder().decode(Checklist.self, from: #require(byPath["bundles/v1/" + entry.path]))
        }
        #expect(versions.map(\.locale).sorted() == ["en", "ru"])
        for checklist in versions {
            #expect(checklist.checklistType == .checkIn)
            #expect(checklist.itemCount >= 60, "\(checklist.locale): \(checklist.itemCount) items")
            #expect(checklist.sections.count == 7, "the seven sections of the check-in")
            #expect(checklist.items.filter { !$0.explicitID }.isEmpty, "every item has a written ^id")
            let guided = checklist.items.filter { !$0.guidance.isEmpty }.count
            #expect(guided * 2 >= checklist.itemCount, "\(checklist.locale): guidance on \(guided) items")
        }
        #expect(versions.first?.items.map(\.id) == versions.last?.items.map(\.id), "the same items in the same order")
    }

    @Test(arguments: [("sound-signals", 12), ("navigation-lights", 20), ("colregs-rules", 20), ("day-shapes", 10)])
    func deckIsCompleteInBothLanguages(_ id: String, _ minimum: Int) throws {
        let compilation = try Compiler(vault: Self.vault, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
        let versions = compilation.decks.filter { $0.id == id }
        #expect(versions.map(\.locale).sorted() == ["en", "ru"])
        for deck in versions {
            #expect(deck.cardCount >= minimum, "\(deck.locale): \(deck.cardCount) cards")
            #expect(deck.cards.filter { !$0.explicitID }.isEmpty, "every card has a written ID")
            #expect(deck.cards.filter { !$0.back.isEmpty && $0.frontText.isEmpty }.isEmpty)
        }
        #expect(Set(versions.first?.cards.map(\.id) ?? []) == Set(versions.last?.cards.map(\.id) ?? []))
    }
}
