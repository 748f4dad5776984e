import Foundation
import Testing
@testable import LockerCore
import LockerKit

/// `locker ids --write`: derived IDs written into the notes, and nothing else changed.
@Suite struct IDWriterTests {
    static let config = "locales: [en]\nkinds:\n  Signals: deck\n"

    /// Compiles, plans and applies; returns the plan.
    @discardableResult
    static func stamp(_ vault: TestVault) throws -> (edits: [IDWriter.Edit], refused: [IDWriter.Refusal]) {
        let plan = IDWriter.plan(try vault.compile(), vault: vault.root)
        try IDWriter.apply(plan.edits, vault: vault.root)
        return plan
    }

    static func read(_ vault: TestVault, _ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: vault.root.appendingPathComponent(path)))
    }

    @Test func insertsOnlyTheIDsByteForByte() throws {
        // CRLF line endings, trailing spaces, a continuation line, a nested list and a `%%` comment.
        let checklist =
            "---\r\ntype: checklist\r\n---\r\n## Deck\r\n\r\n- [ ] Winches  \r\n  Grease them.\r\n  - and clean\r\n"
            + "- [x] Ropes ^ropes\r\n- Clutches %% ask %%\r\n"
        let expected =
            "---\r\ntype: checklist\r\n---\r\n## Deck\r\n\r\n- [ ] Winches ^winches  \r\n  Grease them.\r\n  - and clean\r\n"
            + "- [x] Ropes ^ropes\r\n- Clutches %% ask %% ^clutches\r\n"
        let vault = try TestVault(
            [
                "check.md": checklist,
                "Signals/One short.md": "Altering course to starboard.\n",
                "Signals/Two short.md": "---\ntitle: Two short blasts\n---\nAltering course to port.\n",
                "Signals/inline.md": "Five short::I doubt your intentions\n\nSound\n?\nReply\n",
            ], config: Self.config)
        defer { vault.remove() }
        let (edits, refused) = try Self.stamp(vault)
        #expect(refused.isEmpty)
        #expect(edits.map(\.file) == ["Signals/One short.md", "Signals/Two short.md", "Signals/inline.md", "check.md"])
        #expect(try Self.read(vault, "check.md") == Array(expected.utf8))
        #expect(try Self.read(vault, "Signals/One short.md") == Array("---\nid: one-short\n---\nAltering course to starboard.\n".utf8))
        #expect(
            try Self.read(vault, "Signals/Two short.md")
                == Array("---\nid: two-short\ntitle: Two short blasts\n---\nAltering course to port.\n".utf8))
        #expect(
            try Self.read(vault, "Signals/inline.md")
                == Array("Five short::I doubt your intentions ^five-short\n\nSound\n?\nReply ^sound\n".utf8))
    }

    @Test func writingIDsChangesNoIdentityAndIsIdempotent() throws {
        let vault = try TestVault(
            [
                "check.md": "---\ntype: checklist\n---\n## A\n- One\n- Two\n### B\n- One\n",
                "Signals/Light.md": "White light.\n",
            ], config: Self.config)
        defer { vault.remove() }
        let before = try vault.compile()
        try Self.stamp(vault)
        let after = try vault.compile()
        #expect(before.checklists.first?.items.map(\.uuid) == after.checklists.first?.items.map(\.uuid))
        #expect(before.decks.first?.cards.map(\.uuid) == after.decks.first?.cards.map(\.uuid))
        #expect(after.checklists.first?.items.allSatisfy(\.explicitID) == true)
        #expect(after.decks.first?.cards.allSatisfy(\.explicitID) == true)
        #expect(after.stamps.isEmpty)
        #expect(after.diagnostics.with(.idDerived).isEmpty)

        let bytes = try Self.read(vault, "check.md")
        let second = try Self.stamp(vault)
        #expect(second.edits.isEmpty)
        #expect(try Self.read(vault, "check.md") == bytes)
    }

    @Test func explicitIDsSurviveRetitlingAndReordering() throws {
        let vault = try TestVault(
            ["check.md": "---\ntype: checklist\n---\n## A\n- Life jackets ^life-jackets\n- Flares ^flares\n"])
        defer { vault.remove() }
        let before = try #require(try vault.compile().checklists.first)
        try vault.write(
            "check.md", Data("---\ntype: checklist\n---\n## Other\n- Pyrotechnics ^flares\n- PFDs, one each ^life-jackets\n".utf8))
        let after = try #require(try vault.compile().checklists.first)
        let uuids = Dictionary(uniqueKeysWithValues: before.items.map { ($0.id, $0.uuid) })
        #expect(after.items.map(\.id) == ["flares", "life-jackets"])
        for item in after.items { #expect(uuids[item.id] == item.uuid) }
    }

    @Test func leavesNotesWithErrorsAlone() throws {
        let broken = "---\ntype: checklist\n---\n## A\n- [ ]\n- Real item\n"
        let vault = try TestVault(
            ["broken.md": broken, "good.md": "---\ntype: checklist\n---\n## A\n- Item\n"])
        defer { vault.remove() }
        let (edits, refused) = try Self.stamp(vault)
        #expect(edits.map(\.file) == ["good.md"])
        #expect(refused.map(\.file) == ["broken.md"])
        #expect(try Self.read(vault, "broken.md") == Array(broken.utf8))
        #expect(try Self.read(vault, "good.md") == Array("---\ntype: checklist\n---\n## A\n- Item ^item\n".utf8))
    }

    @Test func keepsAByteOrderMarkAheadOfNewFrontmatter() throws {
        let vault = try TestVault([:], config: Self.config)
        defer { vault.remove() }
        try vault.write("Signals/Flag.md", Data([0xEF, 0xBB, 0xBF] + Array("Code flag A.\n".utf8)))
        try Self.stamp(vault)
        #expect(try Self.read(vault, "Signals/Flag.md") == [0xEF, 0xBB, 0xBF] + Array("---\nid: flag\n---\nCode flag A.\n".utf8))
    }

    @Test func translationsOfTheSameShapeGetTheirCounterpartsIDs() throws {
        let russian = "---\nid: c\ntype: checklist\n---\n## Документы\n- Регистрация ^registration\n- Страховка\n### Безопасность\n- Жилеты\n"
        let english = "---\nid: c\ntype: checklist\n---\n## Documents\n- Registration\n- Insurance\n### Safety\n- Life jackets ^vests\n"
        let vault = try TestVault(["c.md": russian, "c.en.md": english], config: "locales: [ru, en]\n")
        defer { vault.remove() }
        try Self.stamp(vault)
        // A written ID on either side wins; else the default locale's (ru) derived ID.
        #expect(
            try Self.read(vault, "c.md")
                == Array(russian.replacingOccurrences(of: "Страховка\n", with: "Страховка ^strakhovka\n")
                    .replacingOccurrences(of: "Жилеты\n", with: "Жилеты ^vests\n").utf8))
        #expect(
            try Self.read(vault, "c.en.md")
                == Array(english.replacingOccurrences(of: "Registration\n", with: "Registration ^registration\n")
                    .replacingOccurrences(of: "Insurance\n", with: "Insurance ^strakhovka\n").utf8))
        let after = try vault.compile(strict: true)
        #expect(after.diagnostics.isEmpty, "\(after.diagnostics.rendered)")
    }

    @Test func translationsOfDifferentShapesKeepTheirOwnIDs() throws {
        let vault = try TestVault(
            [
                "c.md": "---\nid: c\ntype: checklist\n---\n## Документы\n- Регистрация\n- Страховка\n",
                "c.en.md": "---\nid: c\ntype: checklist\n---\n## Documents\n- Registration\n",
            ], config: "locales: [ru, en]\n")
        defer { vault.remove() }
        let stamps = try vault.compile().stamps
        #expect(stamps.map(\.id) == ["registration", "registratsiya", "strakhovka"])
    }

    @Test func anIDOnAListItemsFirstLineStaysWithTheFirstCard() throws {
        let deck = "---\ntype: deck\n---\n- Alpha::Diver down ^alpha\n  Bravo::Dangerous cargo\n"
        let vault = try TestVault(["flags.md": deck], config: "locales: [en]\n")
        defer { vault.remove() }
        let before = try #require(try vault.compile().decks.first)
        #expect(before.cards.map(\.id) == ["alpha", "bravo"])
        try Self.stamp(vault)
        #expect(try Self.read(vault, "flags.md") == Array(deck.replacingOccurrences(of: "cargo\n", with: "cargo ^bravo\n").utf8))
        let after = try #require(try vault.compile().decks.first)
        #expect(after.cards.map(\.uuid) == before.cards.map(\.uuid))
    }

    @Test func refusesANoteWhereAnIDWouldLandOnAnotherCard() throws {
        // The code span runs over two lines, so the second card's line cannot be told from the text.
        let deck = "---\ntype: deck\n---\nKnot: `bowline\nloop`::Rabbit out of the hole ^bowline\nKnot: reef::Square knot\n"
        let vault = try TestVault(["knots.md": deck], config: "locales: [en]\n")
        defer { vault.remove() }
        let (edits, refused) = try Self.stamp(vault)
        #expect(edits.isEmpty)
        #expect(refused.map(\.file) == ["knots.md"])
        #expect(refused.first?.reason.contains("by hand") == true)
        #expect(try Self.read(vault, "knots.md") == Array(deck.utf8))
    }

    @Test func keepsAHardLineBreakAfterTheID() throws {
        let checklist = "---\ntype: checklist\n---\n## A\n- [ ] Back\\\n  slash\n"
        let vault = try TestVault(["c.md": checklist])
        defer { vault.remove() }
        try Self.stamp(vault)
        #expect(try Self.read(vault, "c.md") == Array(checklist.replacingOccurrences(of: "Back\\", with: "Back ^back\\").utf8))
        #expect(try vault.compile().checklists.first?.items.first?.title == "Back")
    }

    @Test func writesThroughASymbolicLinkAndKeepsIt() throws {
        let vault = try TestVault(["store/c.txt": "---\ntype: checklist\n---\n## A\n- Item\n"])
        defer { vault.remove() }
        try FileManager.default.createSymbolicLink(
            atPath: vault.root.appendingPathComponent("c.md").path, withDestinationPath: "store/c.txt")
        try Self.stamp(vault)
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: vault.root.appendingPathComponent("c.md").path)
        #expect(link == "store/c.txt")
        #expect(try Self.read(vault, "store/c.txt") == Array("---\ntype: checklist\n---\n## A\n- Item ^item\n".utf8))
    }

    @Test func writtenIDsNeverCollide() throws {
        let vault = try TestVault(
            [
                "c.md": "---\nid: c\ntype: checklist\n---\n## A\n- [ ] Alpha\n- [ ] Beta\n",
                "c.ru.md": "---\nid: c\ntype: checklist\n---\n## А\n- [ ] Альфа ^beta\n- [ ] Бета\n",
                "Signals/_deck.md": "---\ntype: deck\n---\nPort reverse::Something\nPort:::Left\n",
            ], config: "locales: [en, ru]\n")
        defer { vault.remove() }
        let (_, refused) = try Self.stamp(vault)
        #expect(refused.isEmpty, "\(refused)")
        let after = try vault.compile()
        #expect(after.diagnostics.filter { $0.severity == .error }.isEmpty, "\(after.diagnostics.rendered)")
        #expect(after.stamps.isEmpty)
    }
}
