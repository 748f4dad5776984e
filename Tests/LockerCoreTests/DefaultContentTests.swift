import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// The vault in `content/` that `make run` builds: it must stay clean under `--strict`, and what
/// it holds must not silently shrink.
@Suite struct DefaultContentTests {
    static let vault = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("content")

    /// The default vault compiled as `make run` compiles it.
    static func compile() throws -> Compilation {
        try Compiler(vault: vault, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
    }

    @Test func isCleanUnderStrict() throws {
        let compilation = try Compiler(vault: Self.vault, strict: true, environment: ["SOURCE_DATE_EPOCH": "0"])
            .compile()
        #expect(compilation.diagnostics.isEmpty, "\(compilation.diagnostics.rendered)")
    }

    @Test func checkInChecklistIsCompleteInBothLanguages() throws {
        let compilation = try Self.compile()
        let manifest = try #require(compilation.manifest)
        let byPath = Dictionary(uniqueKeysWithValues: compilation.files.map { ($0.path, $0.data) })
        let versions = try manifest.files.filter { $0.kind == "checklist" && $0.id == "check-in" }.map { entry in
            try JSONDecoder().decode(Checklist.self, from: #require(byPath["bundles/v1/" + entry.path]))
        }
        #expect(versions.map(\.locale).sorted() == ["en", "ru"])
        for checklist in versions {
            #expect(checklist.checklistType == .checkIn)
            #expect(checklist.itemCount >= 90, "\(checklist.locale): \(checklist.itemCount) items")
            #expect(checklist.sections.count == 8, "the eight sections of the check-in")
            let lastSection = checklist.sections.last?.subsections.flatMap(\.items).map(\.id) ?? []
            #expect(lastSection.first == "shutdown-engine", "\(checklist.locale): the post-check shutdown comes last")
            #expect(checklist.items.filter { !$0.explicitID }.isEmpty, "every item has a written ^id")
            let guided = checklist.items.filter { !$0.guidance.isEmpty }.count
            #expect(guided * 2 >= checklist.itemCount, "\(checklist.locale): guidance on \(guided) items")
        }
        #expect(versions.first?.items.map(\.id) == versions.last?.items.map(\.id), "the same items in the same order")
    }

    @Test(arguments: [("sound-signals", 23), ("navigation-lights", 24), ("colregs-rules", 25), ("day-shapes", 16)])
    func deckIsCompleteInBothLanguages(_ id: String, _ minimum: Int) throws {
        let compilation = try Self.compile()
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
    /// Cards read against the rule text: what each answer must cite or say, and must not, in
    /// each language.
    static let citations: [(deck: String, card: String, locale: String, says: [String], never: [String])] = [
        ("day-shapes", "two-cones", "en", ["26(b)(i)", "26(c)(i)"], ["(ii)"]),
        ("day-shapes", "two-cones", "ru", ["26(b)(i)", "26(c)(i)"], ["(ii)"]),
        ("day-shapes", "dredging", "en", ["27(d)(i)", "27(d)(ii)", "27(b)(ii)"], []),
        ("day-shapes", "dredging", "ru", ["27(d)(i)", "27(d)(ii)", "27(b)(ii)"], []),
        ("day-shapes", "cone-up", "ru", ["орудия лова"], ["снаст"]),
        ("sound-signals", "fog-towed", "en", ["last vessel of the tow", "if manned", "not more than 2 minutes"], []),
        ("sound-signals", "fog-towed", "ru", ["последнее", "с промежутками не более 2 минут"], []),
        ("sound-signals", "bend", "en", ["approaching vessel", "around the bend"], []),
        ("sound-signals", "fog-sailing", "en", ["35(c)", "35(d)"], []),
        ("sound-signals", "fog-stopped", "ru", ["с промежутками не более 2 минут"], ["не реже"]),
        ("navigation-lights", "power-under-12", "en", ["23(d)(i)", "23(d)(ii)", "7 knots"], []),
        ("colregs-rules", "sailing-gives-way", "en", ["Rules 9, 10 and 13", "18(b)", "18(d)(i)"], []),
        ("colregs-rules", "sailing-gives-way", "ru", ["9, 10 и 13", "18(b)", "18(d)(i)"], []),
        ("colregs-rules", "steady-bearing", "en", ["very large vessel or a tow", "7(d)(ii)"], []),
        ("colregs-rules", "steady-bearing", "ru", ["должна считаться существующей"], []),
        (
            "colregs-rules", "action", "ru",
            ["Решительным", "визуально или с помощью радиолокатора", "морской практике"], ["Уверенным", "крупным"]
        ),
        ("colregs-rules", "action", "en", ["visually or by radar", "good seamanship", "8(a)", "8(b)"], []),
        (
            "colregs-rules", "stand-on", "en", ["not taking appropriate action", "17(b)", "17(c)", "17(d)", "port"],
            ["not acting"]
        ),
        (
            "colregs-rules", "stand-on", "ru",
            ["не предпринимает соответствующего действия", "17(c)", "17(d)", "влево"], []
        ),
        ("colregs-rules", "fog-signal-ahead", "en", ["risk of collision does not exist", "close-quarters"], []),
        ("colregs-rules", "fog-signal-ahead", "ru", ["опасности столкновения нет", "чрезмерного сближения"], []),
        ("day-shapes", "show-aground", "en", ["30(d)(ii)", "less than 12 metres", "30(f)"], []),
        ("day-shapes", "show-aground", "ru", ["30(d)(ii)", "менее 12 метров", "30(f)"], []),
        ("sound-signals", "one-short", "en", ["Rule 34(a))"], ["34(a)(i"]),
        ("sound-signals", "two-short", "en", ["Rule 34(a))"], ["34(a)(i"]),
        ("sound-signals", "three-short", "en", ["Rule 34(a))"], ["34(a)(i"]),
        ("sound-signals", "one-short", "ru", ["правило 34(a))"], ["34(a)(i"]),
        ("sound-signals", "two-short", "ru", ["правило 34(a))"], ["34(a)(i"]),
        ("sound-signals", "three-short", "ru", ["правило 34(a))"], ["34(a)(i"]),
        ("sound-signals", "fog-towed", "ru", [], ["если буксируется"]),
        ("colregs-rules", "motor-sailing", "ru", [], ["если двигатель, если"]),
    ]

    @Test func cardsCiteTheRuleText() throws {
        let compilation = try Self.compile()
        for expected in Self.citations {
            let deck = try #require(compilation.decks.first { $0.id == expected.deck && $0.locale == expected.locale })
            let card = try #require(deck.cards.first { $0.id == expected.card }, "\(expected.deck)#\(expected.card)")
            let answer = card.frontText + "\n" + card.back.plainText
            for text in expected.says {
                #expect(answer.contains(text), "\(expected.deck)#\(expected.card) (\(expected.locale)) says '\(text)'")
            }
            for text in expected.never {
                #expect(
                    !answer.contains(text),
                    "\(expected.deck)#\(expected.card) (\(expected.locale)) never says '\(text)'")
            }
        }
    }

    /// The Russian vault uses the terms of the Russian text of the COLREGs (МППСС-72) and one word
    /// for each piece of gear: «знаки», not «фигуры», for shapes; «пассарель» for the passerelle;
    /// «джеклайн» for jackstays, since «леера» are the guardrails; «светящийся буй» for the MOB
    /// light; «заброс кормы» for prop walk.
    @Test func russianNotesUseOneTermEach() throws {
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.vault.path).filter {
            $0.hasSuffix(".ru.md")
        }
        #expect(files.count >= 20)
        for file in files {
            let text = try String(contentsOf: Self.vault.appendingPathComponent(file), encoding: .utf8).lowercased()
            for word in [
                "фигур", "сходн", "леер безопасности", "леера безопасности", "снасти выпущены", "тоерейл",
                "огонь «человек за бортом»", "заброс винта",
            ] {
                #expect(!text.contains(word), "\(file) says '\(word)'")
            }
        }
    }
}

extension DefaultContentTests {
    /// English link labels are in sentence case, as English titles are: `[[x|Mooring and
    /// departure]]`, not `[[x|Mooring and Departure]]`.
    @Test func englishLinkLabelsAreInSentenceCase() throws {
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.vault.path).filter {
            $0.hasSuffix(".md") && !$0.hasSuffix(".ru.md")
        }
        #expect(files.count >= 20)
        // After the first word, a capital starts only an acronym (VHF) or one of these names.
        let properNouns: Set<Substring> = ["Mediterranean"]
        for file in files {
            let text = try String(contentsOf: Self.vault.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: #/\[\[[^\]|]+\|([^\]]+)\]\]/#) {
                let capitalised = match.output.1.split(separator: " ").dropFirst().filter { word in
                    word.first?.isUppercase == true && word.contains(where: \.isLowercase)
                        && !properNouns.contains(word)
                }
                #expect(capitalised.isEmpty, "\(file): [[…|\(match.output.1)]]")
            }
        }
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
        let compilation = try Self.compile()
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
        let compilation = try Self.compile()
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
        let compilation = try Self.compile()
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
            case .written:
                Issue.record("a compilation into memory lets no guide go")
                continue
            }
            #expect(try document.encoded() == encoded, "\(document.kind)/\(document.locale)/\(document.id)")
        }
        let manifest = try #require(compilation.manifest)
        #expect(CanonicalJSONWriter.data(for: manifest) == (try CanonicalJSON.encode(manifest, layout: .compact)))
    }
}
