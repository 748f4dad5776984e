import Foundation
import Testing
@testable import LockerCore
import LockerKit

@Suite struct ChecklistTests {
    /// Compiles a vault; the vault folder is gone when this returns.
    private func compile(_ files: [String: String], config: String? = nil) throws -> Compilation {
        let vault = try TestVault(files, config: config)
        defer { vault.remove() }
        return try vault.compile()
    }

    /// The checklist of a vault holding one checklist note, `list.md`, with `body` under its frontmatter.
    private func checklist(_ body: String, frontmatter: String = "") throws -> (Checklist, [Diagnostic]) {
        let compilation = try compile(["list.md": "---\ntype: checklist\n\(frontmatter)---\n\n\(body)"])
        let checklist = try #require(compilation.checklists.first, "\(compilation.diagnostics.rendered)")
        #expect(compilation.checklists.count == 1)
        return (checklist, compilation.diagnostics)
    }

    // MARK: Structure

    @Test func itemsDirectlyUnderH2FormUntitledSubsectionAheadOfH3s() throws {
        let (list, _) = try checklist(
            "## Deck\n\n### Bow\n\n- [ ] Anchor ^anchor\n\n## Engine\n\n- [ ] Oil ^oil\n")
        let (mixed, diagnostics) = try checklist(
            "## Deck\n\n- [ ] Vests ^vests\n\n### Bow\n\n- [ ] Anchor ^anchor\n\n### Stern\n\n- [ ] Ladder ^ladder\n")
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
        let deck = try #require(mixed.sections.first)
        #expect(deck.subsections.map(\.title) == [nil, "Bow", "Stern"])
        #expect(deck.subsections[0].id == deck.id)
        #expect(deck.subsections[0].titleSpans == nil)
        #expect(deck.subsections[0].items.map(\.id) == ["vests"])
        #expect(deck.subsections[1].items.map(\.id) == ["anchor"])
        // Without direct items there is no untitled subsection.
        #expect(list.sections[0].subsections.map(\.title) == ["Bow"])
        #expect(list.sections[1].subsections.map(\.title) == [nil])
    }

    @Test func countsItemsPerSectionPerSubsectionAndInTotal() throws {
        let (list, _) = try checklist(
            "## Deck\n\n- [ ] Vests ^vests\n\n### Bow\n\n- [ ] Anchor ^anchor\n- [ ] Chain ^chain\n\n"
                + "## Engine\n\n- [ ] Oil ^oil\n")
        #expect(list.sections.map(\.itemCount) == [3, 1])
        #expect(list.sections[0].subsections.map(\.itemCount) == [1, 2])
        #expect(list.itemCount == 4)
        #expect(list.items.map(\.id) == ["vests", "anchor", "chain", "oil"])
    }

    @Test func guidanceIsTheLinesAfterTheFirstAndNestedBullets() throws {
        let (list, _) = try checklist(
            "## Safety\n\n- [ ] Flares ^flares\n  Check the expiry dates.\n  - hand flares\n  - parachute rockets\n"
                + "- [ ] Horn ^horn\n")
        let flares = try #require(list.items.first)
        #expect(flares.title == "Flares")
        #expect(flares.guidance.count == 2)
        #expect(flares.guidance.first?.content == .paragraph([.text("Check the expiry dates.")]))
        guard case .list(let nested)? = flares.guidance.last?.content else {
            Issue.record("the nested bullets are not guidance: \(flares.guidance)")
            return
        }
        #expect(nested.items.count == 2)
        #expect(list.items.map(\.title) == ["Flares", "Horn"], "nested bullets are not items")
        #expect(list.items[1].guidance.isEmpty)
    }

    @Test func keepsInlineFormattingOfTheTitleInTitleSpans() throws {
        let (list, _) = try checklist("## Engine\n\n- [ ] Check the **bilge** pump ^bilge\n")
        let item = try #require(list.items.first)
        #expect(item.title == "Check the bilge pump")
        #expect(item.titleSpans == [.text("Check the "), .bold([.text("bilge")]), .text(" pump")])
    }

    @Test func plainTaskAndNumberedListItemsAreAllItems() throws {
        let (list, diagnostics) = try checklist(
            "## Deck\n\n- plain ^plain\n\n+ [ ] task ^task\n+ [x] done ^done\n\n1. numbered ^numbered\n")
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
        #expect(list.items.map(\.title) == ["plain", "task", "done", "numbered"])
        #expect(list.itemCount == 4)
    }

    @Test func textThatIsNotAListIsTheSectionNote() throws {
        let (list, _) = try checklist(
            "Before leaving the marina.\n\n## Deck\n\nWalk from bow to stern.\n\n- [ ] Vests ^vests\n")
        #expect(list.blocks == [Block(.paragraph([.text("Before leaving the marina.")]))])
        #expect(list.sections[0].note == [Block(.paragraph([.text("Walk from bow to stern.")]))])
        #expect(list.itemCount == 1)
    }

    // MARK: IDs

    @Test func idAtEndOfFirstLineOfMultiLineItemIsTheItemID() throws {
        let (list, diagnostics) = try checklist(
            "## Deck\n\n- [ ] Life jackets ^vests\n  One per person, each with a whistle.\n")
        let item = try #require(list.items.first)
        #expect(item.id == "vests")
        #expect(item.explicitID)
        #expect(item.title == "Life jackets")
        #expect(item.guidance == [Block(.paragraph([.text("One per person, each with a whistle.")]))])
        #expect(diagnostics.with(.idDerived).isEmpty, "\(diagnostics.rendered)")
    }

    @Test func idAtEndOfSingleLineTitleAboveNestedBulletsIsTheItemID() throws {
        let (list, diagnostics) = try checklist("## Deck\n\n- [ ] Life jackets ^vests\n  - whistle\n  - light\n")
        let item = try #require(list.items.first)
        #expect(item.title == "Life jackets")
        #expect(item.id == "vests")
        #expect(item.explicitID)
        #expect(diagnostics.with(.idDerived).isEmpty, "\(diagnostics.rendered)")
    }

    @Test func explicitIDKeepsItsUUIDWhenTheItemIsRetitledAndMoved() throws {
        let (before, _) = try checklist("## Deck\n\n- [ ] Life jackets ^vests\n\n## Cabin\n\n- [ ] Lamp ^lamp\n")
        let (after, _) = try checklist(
            "## Deck\n\n- [ ] Lamp ^lamp\n\n## Cabin\n\n### Lockers\n\n- [ ] Lifejackets, one per person ^vests\n")
        let old = try #require(before.items.first { $0.id == "vests" })
        let new = try #require(after.items.first { $0.id == "vests" })
        #expect(old.title != new.title)
        #expect(before.sections[0].subsections.flatMap(\.items).contains(old))
        #expect(after.sections[1].subsections.flatMap(\.items).contains(new))
        #expect(old.uuid == new.uuid)
    }

    @Test func derivedIDIsTransliteratedSlugOfTheTitle() throws {
        let marked = MarkedText("---\ntype: checklist\n---\n\n## Палуба\n\n1️⃣- [ ] Спасательные жилеты\n")
        let compilation = try compile(["list.md": marked.text])
        let item = try #require(compilation.checklists.first?.items.first)
        #expect(item.id == "spasatelnye-zhilety")
        #expect(!item.explicitID)
        let warnings = compilation.diagnostics.with(.idDerived)
        #expect(warnings.count == 1)
        #expect(warnings.first?.position == marked["1"])
        #expect(warnings.first?.message.contains("spasatelnye-zhilety") == true)
    }

    @Test func sameTitleInTwoSubsectionsGetsDistinctDerivedIDs() throws {
        let (list, _) = try checklist("## Палуба\n\n### Нос\n\n- [ ] Якорь\n\n### Корма\n\n- [ ] Якорь\n")
        #expect(list.items.map(\.id) == ["yakor", "korma-yakor"])
        #expect(Set(list.items.map(\.uuid)).count == 2)
    }

    /// Two items of one checklist with the same `^id` would share a UUID, and so users' progress:
    /// the second is an error, at its text, whether the two are in one list or in two sections.
    @Test(arguments: [
        "## Deck\n\n- [ ] Life jackets ^same\n- [ ] 1️⃣Flares ^same\n",
        "## Deck\n\n- [ ] Life jackets ^same\n\n## Engine\n\n### Oil\n\n"
            + "- [ ] Check the level ^oil\n- [ ] 1️⃣Top up ^same\n",
    ])
    func twoItemsWithTheSameIDAreAnErrorAtTheSecond(_ body: String) throws {
        let marked = MarkedText("---\ntype: checklist\n---\n\n" + body)
        let compilation = try compile(["list.md": marked.text])
        let duplicates = compilation.diagnostics.with(.blockDuplicateID)
        #expect(duplicates.count == 1, "\(compilation.diagnostics.rendered)")
        let duplicate = try #require(duplicates.first)
        #expect(duplicate.severity == .error)
        #expect(duplicate.file == "list.md")
        #expect(duplicate.position == marked["1"], "\(compilation.diagnostics.rendered)")
        #expect(duplicate.message == "block ID '^same' is already used at line 7")
    }

    @Test func sectionIDsComeFromTitlesAndDiffer() throws {
        let (list, _) = try checklist(
            "## Палуба ^deck\n\n- [ ] a ^a\n\n## Машина\n\n- [ ] b ^b\n\n## Машина\n\n- [ ] c ^c\n")
        #expect(list.sections.map(\.id) == ["deck", "mashina", "mashina-2"])
        #expect(Set(list.sections.map(\.uuid)).count == 3)
    }

    @Test func uuidsAreDeterministicScopedToTheChecklistAndDifferPerItem() throws {
        let files = [
            "list.md": "---\ntype: checklist\n---\n\n## Deck\n\n- [ ] Vests ^vests\n- [ ] Anchor\n- [ ] Flares\n"
        ]
        let first = try #require(try compile(files).checklists.first)
        let second = try #require(try compile(files).checklists.first)
        #expect(first.uuid == second.uuid)
        #expect(first.items.map(\.uuid) == second.items.map(\.uuid))
        #expect(Set(first.items.map(\.uuid)).count == 3)
        #expect(!first.items.map(\.uuid).contains(first.uuid))

        let other = try #require(
            try compile(["other.md": files["list.md"]!]).checklists.first, "the same items in another checklist")
        #expect(other.items.map(\.id) == first.items.map(\.id))
        #expect(Set(other.items.map(\.uuid)).isDisjoint(with: first.items.map(\.uuid)))
    }

    // MARK: Type

    @Test(arguments: [
        ("checklistType: checkIn\n", "checkIn"),
        ("checklistType: checkin\n", "checkIn"),
        ("checklistType: PostCharter\n", "postCharter"),
        ("", "reference"),
    ])
    func readsChecklistType(_ frontmatter: String, _ expected: String) throws {
        let (list, diagnostics) = try checklist("## Deck\n\n- [ ] Vests ^vests\n", frontmatter: frontmatter)
        #expect(list.checklistType.rawValue == expected)
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
    }

    @Test func unknownChecklistTypeIsAnErrorAndFallsBackToReference() throws {
        let (list, diagnostics) = try checklist(
            "## Deck\n\n- [ ] Vests ^vests\n", frontmatter: "checklistType: boarding\n")
        #expect(diagnostics.with(.checklistUnknownType).map(\.severity) == [.error])
        #expect(list.checklistType == .reference)
    }

    // MARK: Kinds

    @Test func folderMappedToChecklistInConfigMakesChecklists() throws {
        let compilation = try compile(
            [
                "Checklists/Check-in.md": "## Deck\n\n- [ ] Vests ^vests\n",
                "guide.md": "## Deck\n\n- [ ] Not an item\n",
            ],
            config: "kinds:\n  Checklists: checklist\n")
        #expect(compilation.checklists.map(\.id) == ["checklists/check-in"])
        #expect(compilation.checklists.first?.itemCount == 1)
        #expect(compilation.guides.map(\.id) == ["guide"])
    }
}
