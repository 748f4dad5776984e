import Foundation
import Testing
@testable import LockerCore
import LockerKit

@Suite struct DeckTests {
    /// Compiles a vault; the vault folder is gone when this returns.
    private func compile(_ files: [String: String], config: String? = nil) throws -> Compilation {
        let vault = try TestVault(files, config: config)
        defer { vault.remove() }
        return try vault.compile()
    }

    /// The only deck of a vault.
    private func deck(_ files: [String: String], config: String? = nil) throws -> (Deck, [Diagnostic]) {
        let compilation = try compile(files, config: config)
        #expect(compilation.decks.count == 1, "\(compilation.decks.map { "\($0.id) (\($0.locale))" })")
        let deck = try #require(compilation.decks.first, "\(compilation.diagnostics.rendered)")
        return (deck, compilation.diagnostics)
    }

    /// The deck of a `Signals/_deck.md` holding `cards` under its frontmatter.
    private func inlineDeck(_ cards: String) throws -> (Deck, [Diagnostic]) {
        try deck(["Signals/_deck.md": "---\ntype: deck\n---\n\n\(cards)"])
    }

    private func paragraph(_ spans: Span...) -> [Block] { [Block(.paragraph(spans))] }

    // MARK: Styles

    @Test func folderOfCardNotesMakesOneCardPerNote() throws {
        let (deck, diagnostics) = try self.deck([
            "Signals/_deck.md": "---\ntype: deck\n---\n",
            "Signals/Bravo.md": "---\nid: bravo\n---\nDangerous cargo\n",
            "Signals/Alpha.md": "---\nid: alpha\n---\nDiver down\n",
        ])
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
        #expect(deck.id == "signals")
        #expect(deck.cards.map(\.frontText) == ["Alpha", "Bravo"])
        #expect(deck.cards.map(\.back) == [paragraph(.text("Diver down")), paragraph(.text("Dangerous cargo"))])
        #expect(deck.cards.map(\.source) == ["Signals/Alpha.md", "Signals/Bravo.md"])
        #expect(deck.cardCount == 2)
    }

    @Test func cardNoteFrontIsItsTitleAndIDItsFrontmatterID() throws {
        let (deck, _) = try self.deck([
            "Signals/_deck.md": "---\ntype: deck\n---\n",
            "Signals/a.md": "---\nid: flag-a\n---\n# Alpha flag\n\nDiver down\n",
        ])
        let card = try #require(deck.cards.first)
        #expect(card.frontText == "Alpha flag")
        #expect(card.id == "flag-a")
        #expect(card.explicitID)
    }

    @Test func inlineCardsInDeckNote() throws {
        let (deck, diagnostics) = try inlineDeck("Alpha::Diver down ^alpha\nBravo :: Dangerous cargo ^bravo\n")
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
        #expect(deck.cards.map(\.id) == ["alpha", "bravo"])
        #expect(deck.cards.map(\.frontText) == ["Alpha", "Bravo"])
        #expect(deck.cards.map(\.back) == [paragraph(.text("Diver down")), paragraph(.text("Dangerous cargo"))])
        #expect(deck.cards.allSatisfy { $0.source == "Signals/_deck.md" })
    }

    @Test func singleNoteWithTypeDeckIsADeckOfItsOwnCards() throws {
        let (deck, _) = try self.deck(["Flags.md": "---\ntype: deck\n---\n\nAlpha::Diver down ^alpha\n"])
        #expect(deck.id == "flags")
        #expect(deck.title == "Flags")
        #expect(deck.cards.map(\.id) == ["alpha"])
    }

    @Test func deckFromKindsMappingWithoutFolderNote() throws {
        let (deck, _) = try self.deck(
            ["Signals/Alpha.md": "Diver down\n", "Signals/Bravo.md": "Dangerous cargo\n", "guide.md": "Not a card\n"],
            config: "kinds:\n  Signals: deck\n")
        #expect(deck.id == "signals")
        #expect(deck.title == "Signals")
        #expect(deck.source == "Signals")
        #expect(deck.cards.map(\.frontText) == ["Alpha", "Bravo"])
        #expect(deck.cards.map(\.id) == ["alpha", "bravo"])
    }

    // MARK: Title and description

    @Test func titleComesFromFolderNoteTitle() throws {
        let (deck, _) = try self.deck([
            "Signals/Signals.md": "---\ntype: deck\n---\n\n# International code flags\n",
            "Signals/Alpha.md": "Diver down\n",
        ])
        #expect(deck.title == "International code flags")
        #expect(deck.source == "Signals/Signals.md")
    }

    @Test func titleFallsBackToFolderName() throws {
        let (underscored, _) = try self.deck([
            "Signals/_deck.md": "---\ntype: deck\n---\n", "Signals/Alpha.md": "Diver down\n",
        ])
        #expect(underscored.title == "Signals")
        let (named, _) = try self.deck([
            "Signals/Signals.md": "---\ntype: deck\n---\n", "Signals/Alpha.md": "Diver down\n",
        ])
        #expect(named.title == "Signals")
    }

    @Test func descriptionComesFromFrontmatter() throws {
        let (deck, _) = try self.deck([
            "Signals/_deck.md": "---\ntype: deck\ndescription: Flags a yacht may meet\n---\n\nSome other text.\n",
            "Signals/Alpha.md": "Diver down\n",
        ])
        #expect(deck.description == "Flags a yacht may meet")
        let (plain, _) = try self.deck([
            "Signals/_deck.md": "---\ntype: deck\n---\n", "Signals/Alpha.md": "Diver down\n",
        ])
        #expect(plain.description == nil)
    }

    // MARK: Card syntax

    /// A deck's note has its inline cards read when it is parsed, as a checklist its items; a
    /// guide has none read, even below a folder note that makes it a card note (that is known
    /// only once decks gather their notes).
    @Test func aDeckNoteHasItsCardsReadWhenParsed() throws {
        let parser = NoteParser(config: VaultConfig.parse("kinds:\n  Signals: deck\n").0)
        let bytes = Array("Alpha::Diver down ^alpha\nBravo:::Dangerous cargo\n".utf8)
        let card = try #require(parser.parse(path: "Signals/Flags.md", bytes: bytes).0)
        #expect(card.cards?.map(\.frontText) == ["Alpha", "Bravo", "Dangerous cargo"])
        #expect(card.cards?.map(\.isReverse) == [false, false, true])
        #expect(card.cards?.first?.isExplicit == true)
        let guide = try #require(parser.parse(path: "Other/Flags.md", bytes: bytes).0)
        #expect(guide.cards == nil)
        #expect(
            CardReader.cards(of: guide, at: 3, wholeNote: false)
                == card.cards?.map { card in
                    var card = card
                    card.file = "Other/Flags.md"
                    card.note = 3
                    return card
                })
    }

    @Test func reversibleCardAddsSwappedReverseCard() throws {
        let (deck, _) = try inlineDeck("Alpha:::Diver down ^alpha\n")
        #expect(deck.cards.map(\.id) == ["alpha", "alpha-reverse"])
        let (forward, reverse) = (deck.cards[0], deck.cards[1])
        #expect(reverse.frontText == "Diver down")
        #expect(reverse.front == forward.back)
        #expect(reverse.back == forward.front)
        #expect(forward.front == paragraph(.text("Alpha")))
        #expect(reverse.uuid != forward.uuid)
    }

    @Test func multiLineCardWithQuestionMark() throws {
        let (deck, diagnostics) = try inlineDeck("What does\nflag Bravo mean?\n?\nDangerous\ncargo ^bravo\n")
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
        let card = try #require(deck.cards.first)
        #expect(deck.cards.count == 1)
        #expect(card.id == "bravo")
        #expect(card.frontText == "What does flag Bravo mean?")
        #expect(card.front == paragraph(.text("What does"), .lineBreak, .text("flag Bravo mean?")))
        #expect(card.back == paragraph(.text("Dangerous"), .lineBreak, .text("cargo")))
    }

    @Test func idAtEndOfSingleLineCard() throws {
        let (deck, diagnostics) = try inlineDeck("Alpha::Diver down ^flag-a\nBravo::Dangerous cargo\n")
        #expect(deck.cards.map(\.id) == ["flag-a", "bravo"])
        #expect(deck.cards.map(\.explicitID) == [true, false])
        #expect(deck.cards[0].back == paragraph(.text("Diver down")))
        #expect(diagnostics.with(.idDerived).map(\.position) == [SourcePosition(line: 6, column: 1)])
    }

    @Test func derivedCardIDsAreUniqueAndUUIDsDeterministic() throws {
        let files = [
            "Signals/_deck.md": "---\ntype: deck\n---\n\nAlpha::Diver down\n\nAlpha flag::Diver down\n\nAlpha?::Diver\n"
        ]
        let (first, _) = try self.deck(files)
        let (second, _) = try self.deck(files)
        #expect(Set(first.cards.map(\.id)).count == 3, "\(first.cards.map(\.id))")
        #expect(Set(first.cards.map(\.uuid)).count == 3)
        #expect(first.cards.map(\.uuid) == second.cards.map(\.uuid))
        #expect(first.uuid == second.uuid)
    }

    // MARK: Translations

    @Test func cardsOfRuAndEnNotesPairByID() throws {
        let compilation = try compile(
            [
                "Signals/_deck.md": "---\ntype: deck\nlang: ru\n---\n\nАльфа::Водолаз под водой ^alpha\n",
                "Signals/_deck.en.md": "---\ntype: deck\n---\n\nAlpha::Diver down ^alpha\n",
            ], config: "locales: [ru, en]\n")
        #expect(compilation.diagnostics.isEmpty, "\(compilation.diagnostics.rendered)")
        let ru = try #require(compilation.decks.first { $0.locale == "ru" })
        let en = try #require(compilation.decks.first { $0.locale == "en" })
        #expect(ru.id == en.id)
        #expect(ru.uuid == en.uuid)
        #expect(ru.cards.map(\.id) == ["alpha"])
        #expect(en.cards.map(\.id) == ["alpha"])
        #expect(ru.cards[0].uuid == en.cards[0].uuid)
        #expect(ru.cards[0].frontText != en.cards[0].frontText)
    }

    @Test func suffixNamedTranslationsKeepTheirLocales() throws {
        // The documented naming: `x.md` in the default locale (ru) and `x.en.md` in en, no `lang:`.
        let compilation = try compile(
            [
                "Signals/_deck.md": "---\ntype: deck\n---\n",
                "Signals/_deck.en.md": "---\ntype: deck\n---\n",
                "Signals/Alpha.md": "Водолаз под водой\n",
                "Signals/Alpha.en.md": "Diver down\n",
            ], config: "locales: [ru, en]\n")
        #expect(compilation.decks.map(\.locale).sorted() == ["en", "ru"])
        let ru = compilation.decks.first { $0.locale == "ru" }
        #expect(ru?.cards.map(\.source) == ["Signals/Alpha.md"])
        let en = compilation.decks.first { $0.locale == "en" }
        #expect(en?.cards.map(\.source) == ["Signals/Alpha.en.md"])
        #expect(en?.cards.map(\.id) == ["alpha"])
        #expect(compilation.diagnostics.with(.deckDuplicateCard).isEmpty, "\(compilation.diagnostics.rendered)")
    }

    @Test func cardNoteWithoutSuffixTakesTheLocaleOfItsOnlyFolderNote() throws {
        let compilation = try compile(
            ["Signals/_deck.en.md": "---\ntype: deck\n---\n", "Signals/Alpha.md": "Diver down\n"],
            config: "locales: [ru, en]\n")
        #expect(compilation.decks.map(\.locale) == ["en"])
        #expect(compilation.decks.first?.cards.map(\.source) == ["Signals/Alpha.md"])
    }

    @Test func reverseCardKeepsItsIDWhateverCardFollows() throws {
        let compilation = try compile(
            ["Signals/_deck.md": "---\ntype: deck\n---\nAlpha:::Diver down\nAlpha reverse::Something else\n"],
            config: "locales: [en]\n")
        let deck = try #require(compilation.decks.first)
        #expect(deck.cards.map(\.id) == ["alpha", "alpha-reverse", "deck-alpha-reverse"], "the later card is qualified by its note, _deck")
    }

    @Test func writtenReverseIDClashIsADuplicate() throws {
        let compilation = try compile(
            ["Signals/_deck.md": "---\ntype: deck\n---\nAlpha:::Diver down ^a\nBravo::Dangerous cargo ^a-reverse\n"],
            config: "locales: [en]\n")
        let duplicate = try #require(compilation.diagnostics.with(.deckDuplicateID).first)
        #expect(duplicate.position == SourcePosition(line: 5, column: 1))
    }

    /// Two decks whose IDs differ only in case would share a folder of the site on macOS.
    @Test func deckIDsDifferingOnlyInCaseAreADuplicate() throws {
        let compilation = try compile(
            [
                "Signals/_deck.md": "---\ntype: deck\nid: Signals\n---\nAlpha::Diver down\n",
                "Flags/_deck.md": "---\ntype: deck\nid: signals\n---\nBravo::Dangerous cargo\n",
            ],
            config: "locales: [en]\n")
        let duplicates = compilation.diagnostics.with(.idDuplicate)
        #expect(duplicates.count == 1)
        #expect(duplicates.first?.message.contains("differs only in case") == true)
        #expect(duplicates.first?.file == "Flags/_deck.md")
        #expect(duplicates.first?.position == SourcePosition(line: 3, column: 5))
    }

    @Test func subfolderMappedToAnotherKindStaysOutOfTheDeck() throws {
        let compilation = try compile(
            ["Signals/Alpha.md": "Diver down\n", "Signals/Notes/History.md": "How flags began.\n"],
            config: "locales: [en]\nkinds:\n  Signals: deck\n  Signals/Notes: guide\n")
        #expect(compilation.decks.first?.cards.map(\.source) == ["Signals/Alpha.md"])
        #expect(compilation.guides.map(\.source) == ["Signals/Notes/History.md"])
    }

    @Test func anImageCanBeACardsSide() throws {
        let vault = try TestVault([:], config: "locales: [en]\n")
        defer { vault.remove() }
        try vault.write("Flags/_deck.md", Data("---\ntype: deck\n---\nCode flag A::![[a.png]] ^a\n\n![[b.png]]::Code flag B ^b\n".utf8))
        try vault.write("Flags/a.png", Data([0x89, 0x50, 0x4E, 0x47]))
        try vault.write("Flags/b.png", Data([0x89, 0x50, 0x4E, 0x48]))
        let compilation = try vault.compile()
        #expect(compilation.diagnostics.isEmpty, "\(compilation.diagnostics.rendered)")
        let cards = try #require(compilation.decks.first?.cards)
        #expect(cards.map(\.id) == ["a", "b"])
        #expect(cards.map(\.explicitID) == [true, true])
        guard case .image? = cards.first?.back.first?.content else {
            Issue.record("the back of 'a' is not the image: \(cards)")
            return
        }
        guard case .image? = cards.last?.front.first?.content else {
            Issue.record("the front of 'b' is not the image: \(cards)")
            return
        }
    }

    @Test func aReversibleCardsLinksAreCheckedOnce() throws {
        let compilation = try compile(
            ["Signals/_deck.md": "---\ntype: deck\n---\nSee [[nope]]:::answer ^a\n"], config: "locales: [en]\n")
        #expect(compilation.diagnostics.with(.linkBroken).count == 1, "\(compilation.diagnostics.rendered)")
    }

    @Test func aNoteSayingKindDeckInAMappedFolderIsACard() throws {
        let compilation = try compile(
            ["Signals/Alpha.md": "---\nkind: deck\n---\nDiver down\n", "Signals/Bravo.md": "Dangerous cargo\n"],
            config: "locales: [en]\nkinds:\n  Signals: deck\n")
        #expect(compilation.decks.map(\.cardCount) == [2])
    }

    @Test func theVaultRootIsNoDeckFolder() throws {
        let compilation = try compile(
            ["_deck.md": "---\ntype: deck\n---\nA::B ^a\n", "guide.md": "A guide.\n"], config: "locales: [en]\n")
        #expect(compilation.guides.map(\.source) == ["guide.md"])
        #expect(compilation.decks.first?.cards.map(\.id) == ["a"])
    }

    @Test func aFolderNoteWithoutTypeDeckInsideADeckIsACard() throws {
        let compilation = try compile(
            ["D/Alpha.md": "Diver down\n", "D/sub/_deck.md": "---\ntitle: Bravo\n---\nDangerous cargo\n"],
            config: "locales: [en]\nkinds:\n  D: deck\n")
        #expect(compilation.decks.map(\.id) == ["d"])
        #expect(compilation.decks.first?.cardCount == 2)
    }

    /// Identical cards and items each get their own ID, in linear time (this once looped).
    @Test(.timeLimit(.minutes(1))) func manyIdenticalCardsAndItemsGetDistinctIDs() throws {
        let compilation = try compile(
            [
                "Signals/_deck.md": "---\ntype: deck\n---\n" + String(repeating: "a::b\n\nc:::d\n\n", count: 2000),
                "c.md": "---\ntype: checklist\n---\n## A\n" + String(repeating: "- a\n", count: 4000),
            ], config: "locales: [en]\n")
        let cards = try #require(compilation.decks.first?.cards)
        #expect(cards.count == 6000)
        #expect(Set(cards.map(\.id)).count == 6000)
        let items = try #require(compilation.checklists.first?.items)
        #expect(Set(items.map(\.id)).count == 4000)
    }
}
