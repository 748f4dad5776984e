import Foundation
import Testing

@testable import LockerCore

/// cmark-gfm marks the characters its inline extensions start at (`~` for strikethrough, `w` and
/// `:` for autolinks) in one table shared by every parser, adds them when a parser starts on a
/// note's inlines, and takes them out when it is done (0.29.0.gfm.6, `process_inlines`): a note
/// parsed on one core while another finishes could read `~~two~~` as text. Parsing is serialised
/// where cmark reads that table, and the same note must parse the same on every core.
@Suite struct MarkdownParserTests {
    static let notes = [
        "## Steps\n\n1. Leave a tail of at least ~~two~~ three fists.\n2. See www.example.org and https://example.org.\n\n| a | b |\n|---|---|\n| ~~c~~ | d |\n",
        "Plain text with *emphasis*, **strong** and `code`, and a second ~~struck~~ word.\n",
        "- [ ] a task ~~done~~\n- [x] www.sail.example\n",
    ]

    /// The note `locker` parses ahead while it reads its arguments (``Warmup``) goes through what
    /// a guide's parse does: frontmatter with a list, headings, a list with bold text, a link and
    /// code, a callout; without a problem.
    @Test func theWarmUpNoteIsAWholeGuide() throws {
        let (parsed, diagnostics) = NoteParser(config: VaultConfig()).parse(
            path: "warmup.md", bytes: Array(Warmup.sample.utf8))
        let note = try #require(parsed)
        #expect(diagnostics.isEmpty)
        #expect(note.title == "Warm-up")
        #expect(note.frontmatter.tags == ["a"])
        let part = try #require(note.sections.first)
        #expect(part.plainTitle == "Part")
        let kinds = part.blocks.map { block -> String in
            switch block.content {
            case .list: "list"
            case .callout: "callout"
            default: "other"
            }
        }
        #expect(kinds == ["list", "callout"])
    }

    @Test func aNoteParsesTheSameOnEveryCoreAtOnce() {
        let parser = NoteParser(config: VaultConfig())
        @Sendable func shape(_ text: String) -> [ParsedBlock] {
            guard let note = parser.parse(path: "note.md", bytes: Array(text.utf8)).0 else { return [] }
            return note.blocks + note.sections.flatMap(\.blocks)
        }
        let expected = Self.notes.map(shape)
        #expect(expected.allSatisfy { !$0.isEmpty })
        let rounds = 6_000
        let differing = Compiler.parallelMap(Array(0..<rounds)) { round -> Int? in
            let which = round % Self.notes.count
            return shape(Self.notes[which]) == expected[which] ? nil : round
        }
        #expect(differing.compactMap { $0 } == [])
    }
}
