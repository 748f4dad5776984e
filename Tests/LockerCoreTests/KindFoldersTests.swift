import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// Folders named for a kind, in a vault whose `locker.yml` maps none: pointed out first in the
/// report, their notes still built as guides until `kinds` says otherwise.
@Suite struct KindFoldersTests {
    /// A boat's handbook as its author wrote it: checklists as a title and a numbered list, an
    /// index note, a deck of card notes, in folders named for what they hold.
    static let handbook = [
        "README.md": "# Handbook\n\nSee [[mob]].\n",
        "docs/checklists/index.md": "# Emergency checklists\n\nOne note per emergency.\n",
        "docs/checklists/mob.md": "# Man overboard\n\n1. Shout and point.\n2. Throw the ring.\n",
        "docs/checklists/fire.md": "# Fire\n\n1. Raise the alarm.\n2. Fuel off.\n",
        "docs/checklists/typed.md": "---\ntype: checklist\n---\n## Before\n\n- [ ] Oil ^oil\n",
        "Flashcards/Ball.md": "# Ball\n\nAt anchor.\n",
        "Чек-листы/Отход.md": "## Перед отходом\n\n- Двигатель ^engine\n",
        "Decks/Signals/_deck.md": "---\ntype: deck\n---\nOne short::Starboard ^one\n",
        "checklist/single.md": "Not named for checklists: singular.\n",
        "my checklists/other.md": "Not named for checklists: more than the name.\n",
    ]

    @Test func pointsOutFoldersNamedForAKindAndBuildsTheirNotesAsGuides() throws {
        let vault = try TestVault(Self.handbook)
        defer { vault.remove() }
        let compilation = try vault.compile()
        let notes = compilation.diagnostics.filter { $0.code == .configKindFolder }
        #expect(
            notes.map(\.message) == [
                "Flashcards/ is named for a deck, but 1 note in it is built as a guide",
                "docs/checklists/ is named for checklists, but 3 notes in it are built as guides",
                "Чек-листы/ is named for checklists, but 1 note in it is built as a guide",
            ], "\(compilation.diagnostics.rendered)")
        let line = "kinds: {Flashcards: deck, docs/checklists: checklist, Чек-листы: checklist}"
        #expect(
            notes.map(\.hint) == [
                "to make the folder a deck, a card per note, make a locker.yml holding: " + line,
                "to build them as checklists, make a locker.yml holding: " + line,
                "to build it as a checklist, make a locker.yml holding: " + line,
            ])
        // Without a locker.yml, at each folder's first note: a file that exists.
        #expect(notes.map(\.file) == ["Flashcards/Ball.md", "docs/checklists/fire.md", "Чек-листы/Отход.md"])
        #expect(notes.allSatisfy { $0.severity == .note && $0.position == .start })
        // First in the report, before the other problems of those notes and of `README.md`.
        #expect(compilation.diagnostics.prefix(3) == notes[...])
        #expect(!compilation.failed)
        #expect(!(try vault.compile(strict: true).failed), "a note never fails, even under --strict")
        // Nothing is built otherwise than without the notes: only `type` makes a checklist here.
        #expect(compilation.checklists.map(\.id) == ["docs/checklists/typed"])
        #expect(compilation.decks.map(\.id) == ["decks/signals"])
        #expect(
            compilation.guides.map(\.source).sorted() == [
                "Flashcards/Ball.md", "README.md", "checklist/single.md", "docs/checklists/fire.md",
                "docs/checklists/index.md", "docs/checklists/mob.md", "my checklists/other.md", "Чек-листы/Отход.md",
            ])
    }

    /// The line the hint gives, pasted into `locker.yml`, builds the folders as it says, and the
    /// notes are gone: what the author then sees are the checklists' own diagnostics.
    @Test func theHintsLineBuildsTheFoldersAsItSays() throws {
        var files = Self.handbook
        files["docs/checklists/mob.md"] = "# Man overboard\n\n## Now\n\n1. Shout and point. ^shout\n"
        files["docs/checklists/fire.md"] = "# Fire\n\n## Now\n\n1. Raise the alarm. ^alarm\n"
        files["docs/checklists/index.md"] = nil
        let vault = try TestVault(files)
        defer { vault.remove() }
        let hint = try #require(try vault.diagnostics().first { $0.code == .configKindFolder }?.hint)
        let line = try #require(hint.components(separatedBy: "make a locker.yml holding: ").last)
        try vault.write("locker.yml", Data((line + "\n").utf8))
        let compilation = try vault.compile()
        #expect(!compilation.failed, "\(compilation.diagnostics.rendered)")
        #expect(compilation.diagnostics.filter { $0.code == .configKindFolder }.isEmpty)
        #expect(
            compilation.checklists.map(\.id) == [
                "docs/checklists/fire", "docs/checklists/mob", "docs/checklists/typed", "чек-листы/отход",
            ])
        #expect(compilation.decks.map(\.id).sorted() == ["decks/signals", "flashcards"])
    }

    /// A `kinds` key, even an empty one, is the author's choice of every folder's kind.
    @Test(arguments: ["kinds: {}\n", "kinds:\n  Other: checklist\n", "title: T\nkinds:\n"])
    func anExplicitKindsWinsEntirely(config: String) throws {
        let vault = try TestVault(Self.handbook, config: config)
        defer { vault.remove() }
        let diagnostics = try vault.diagnostics()
        #expect(diagnostics.filter { $0.code == .configKindFolder }.isEmpty, "\(diagnostics.rendered)")
    }

    /// Each note counts in the deepest named folder around it; notes whose frontmatter gives a
    /// kind or type, and a deck's cards, count nowhere.
    @Test func countsEachGuideInTheDeepestNamedFolder() throws {
        let vault = try TestVault([
            "cards/a.md": "x", "cards/Checklists/b.md": "x", "cards/Checklists/sub/c.md": "x",
            "cards/d.md": "---\nkind: guide\n---\nx", "cards/e.md": "---\ntype: checklist\n---\n## A\n\n- one ^one\n",
            "decks/Signals/Signals.md": "---\ntype: deck\n---\n", "decks/Signals/Alpha.md": "Diver down\n",
        ])
        defer { vault.remove() }
        let notes = try vault.diagnostics().filter { $0.code == .configKindFolder }
        #expect(
            notes.map(\.message) == [
                // In the order of their first notes: `cards/Checklists/b.md`, then `cards/a.md`.
                "cards/Checklists/ is named for checklists, but 2 notes in it are built as guides",
                "cards/ is named for a deck, but 1 note in it is built as a guide",
            ])
        #expect(notes.first?.hint?.hasSuffix("kinds: {cards: deck, cards/Checklists: checklist}") == true)
    }

    @Test func quotesFolderPathsThatArePlainYAMLOnlyWhenTheyCanBe() {
        #expect(KindFolders.yamlKey("Day Shapes/Чек-листы") == "Day Shapes/Чек-листы")
        #expect(KindFolders.yamlKey("Pilot: notes/cards") == #""Pilot: notes/cards""#)
        #expect(KindFolders.yamlKey("-a \"b\"\\c\t/cards") == #""-a \"b\"\\c\u0009/cards""#)
    }
}
