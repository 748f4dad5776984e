import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// The vault in `content/` that `make run` builds: it must stay clean under `--strict`, and what
/// it holds must not silently shrink.
@Suite struct DefaultContentTests {
    static let vault = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("content")

    @Test func isCleanUnderStrict() throws {
        let compilation = try Compiler(vault: Self.vault, strict: true, environment: ["SOURCE_DATE_EPOCH": "0"])
            .compile()
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

extension DefaultContentTests {
    /// The ten practice modules of the Mothership content model, with their categories and types.
    static let guides: [(id: String, category: String, type: String)] = [
        ("safety-briefing", "briefing", "document"), ("life-on-yacht", "briefing", "document"),
        ("first-aid-kit", "safety", "document"), ("going-ashore", "safety", "document"),
        ("mooring-and-departure", "safety", "document"), ("round-turn-two-half-hitches", "knots", "document"),
        ("pre-departure-checklist", "briefing", "checklist"), ("departure-from-pier", "mooring", "document"),
        ("mediterranean-mooring", "mooring", "document"), ("anchoring", "mooring", "document"),
    ]

    @Test func everyDefaultGuideExistsInBothLanguagesWithItsCategoryAndType() throws {
        let compilation = try Compiler(vault: Self.vault, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
        for expected in Self.guides {
            let versions = compilation.guides.filter { $0.id == expected.id }
            #expect(versions.map(\.locale).sorted() == ["en", "ru"], "\(expected.id)")
            for guide in versions {
                #expect(guide.category == expected.category, "\(guide.id) (\(guide.locale))")
                #expect(guide.type == expected.type, "\(guide.id) (\(guide.locale))")
                if guide.type == "checklist" {
                    // A guide shown as a checklist embeds the checklist it presents.
                    #expect(
                        guide.blocks.contains { if case .embed = $0.content { true } else { false } }, "\(guide.id)")
                } else {
                    #expect(!guide.sections.isEmpty, "\(guide.id) (\(guide.locale)) has H2 sections")
                }
            }
            // Both languages have the same outline: the same number of sections at every level.
            func outline(_ sections: [Section]) -> [Int] {
                sections.map(\.level) + sections.flatMap { outline($0.sections) }
            }
            #expect(
                Set(versions.map { outline($0.sections) }).count == 1,
                "\(expected.id): the translations differ in structure")
        }
        #expect(Set(compilation.guides.map(\.id)) == Set(Self.guides.map(\.id)), "no guide beyond the ten")
    }

    @Test func bothLandingPagesExistInBothLanguages() throws {
        let compilation = try Compiler(vault: Self.vault, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
        let pages = Dictionary(grouping: compilation.pages, by: \.id)
        #expect(pages.keys.sorted() == ["mothership", "pierrunner"])
        for (id, versions) in pages {
            #expect(versions.map(\.locale).sorted() == ["en", "ru"], "\(id)")
        }
        for pierRunner in pages["pierrunner"] ?? [] {
            #expect(pierRunner.hero.headlines.count == 2, "the A and B headlines")
            #expect(pierRunner.pricing?.plans.map(\.price) == ["$4.99", "$10.99"])
            #expect(pierRunner.howItWorks?.steps.count == 3)
            let answers = pierRunner.faq?.items.map(\.answer).joined(separator: " ") ?? ""
            #expect(answers.contains(pierRunner.locale == "en" ? "not a guarantee" : "не гарантия"))
        }
        for mothership in pages["mothership"] ?? [] {
            #expect(mothership.features?.items.count == 4, "the four pillars")
            #expect(mothership.audiences?.items.count == 3, "captains, crew and travellers")
        }
    }
}

extension DefaultContentTests {
    /// Bundle files are written directly, not through `Encodable`: for every document of the
    /// default vault, both give the same bytes.
    @Test func bundleFilesAreWhatEncodableWouldWrite() throws {
        let compilation = try Compiler(vault: Self.vault, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
        let documents: [Document] =
            compilation.guides.map { .guide($0) } + compilation.checklists.map { .checklist($0) }
            + compilation.decks.map { .deck($0) }
        #expect(documents.count >= 30)
        for document in documents {
            let encoded: Data
            switch document {
            case .guide(let guide): encoded = try CanonicalJSON.encode(guide, layout: .compact)
            case .checklist(let checklist): encoded = try CanonicalJSON.encode(checklist, layout: .compact)
            case .deck(let deck): encoded = try CanonicalJSON.encode(deck, layout: .compact)
            }
            #expect(document.encoded() == encoded, "\(document.kind)/\(document.locale)/\(document.id)")
        }
        let manifest = try #require(compilation.manifest)
        #expect(CanonicalJSONWriter.data(for: manifest) == (try CanonicalJSON.encode(manifest, layout: .compact)))
    }
}
