import Foundation

/// Finds the flashcards in a note of a deck, in the syntax of Obsidian's spaced-repetition plugin:
///
/// - `front::back` on one line; `front:::back` also adds the reverse card;
/// - several lines of front, a line `?` (`??` for a reversible card), several lines of back;
///   the card ends at a blank line. A back that starts with a list may follow the `?` line directly.
///
/// A note with none of these is one card: its title is the front, its body the back.
///
/// A deck's note has its inline cards read when it is parsed (``ParsedNote/cards``), as a checklist
/// has its items; whether it is a card note, which is one card when it has none, is known only
/// once the decks have gathered their notes (``DeckCatalog``), so ``cards(of:at:wholeNote:)``
/// decides that when the deck is built.
struct CardReader {
    let file: String
    private var cards: [ParsedCard] = []

    init(file: String) { self.file = file }

    /// The cards written inline in a note's blocks and sections, in order; their ``ParsedCard/note``
    /// is given when a deck gathers them.
    mutating func read(blocks: [ParsedBlock], sections: [ParsedSection]) -> [ParsedCard] {
        cards = []
        scan(blocks)
        scan(sections)
        return cards
    }

    /// The cards of the note at `noteIndex`: those it holds inline (read when it was parsed, or
    /// now for a note that joined its deck afterwards, a guide below a folder note that says
    /// `type: deck`); when there are none and `wholeNote` is set, the note is one card.
    static func cards(of note: ParsedNote, at noteIndex: Int, wholeNote: Bool) -> [ParsedCard] {
        var cards: [ParsedCard]
        if let read = note.cards {
            cards = read
        } else {
            var reader = CardReader(file: note.path)
            cards = reader.read(blocks: note.blocks, sections: note.sections)
        }
        if cards.isEmpty, wholeNote {
            let back = note.blocks + note.sections.flatMap(Self.flatten)
            let front = ParsedBlock(content: .paragraph([.text(note.title)]), position: .start)
            cards.append(
                ParsedCard(
                    id: note.frontmatter.id ?? "", isExplicit: note.frontmatter.id != nil, front: [front], back: back,
                    frontText: note.title, note: -1, file: note.path,
                    position: note.frontmatter.idPosition ?? .start, stamp: .frontmatter, isReverse: false))
        }
        for index in cards.indices { cards[index].note = noteIndex }
        return cards
    }

    /// A section as blocks: its title in bold, then its text.
    private static func flatten(_ section: ParsedSection) -> [ParsedBlock] {
        [ParsedBlock(content: .paragraph([.strong(section.title)]), position: section.position)] + section.blocks
            + section.sections.flatMap(flatten)
    }

    private mutating func scan(_ sections: [ParsedSection]) {
        for section in sections {
            scan(section.blocks)
            scan(section.sections)
        }
    }

    private mutating func scan(_ blocks: [ParsedBlock]) {
        var index = 0
        var previousUsed = false
        while index < blocks.count {
            let block = blocks[index]
            index += 1
            switch block.content {
            case .paragraph(let inlines):
                let next = index < blocks.count ? blocks[index] : nil
                let before = cards.count
                var usedNext = paragraph(inlines, blockID: block.blockID, at: block.position, next: next)
                if cards.count > before {
                    // An image where a side is empty: `![[flag.png]]::Code A`, `Code A::![[flag.png]]`.
                    let previous = index >= 2 && !previousUsed ? blocks[index - 2] : nil
                    if cards[before].front.isEmpty, let previous, Self.isPicture(previous) {
                        setSide(front: true, of: before, to: previous)
                    } else if let previous, Self.isPicture(previous),
                        previous.position.line + 1 == block.position.line,
                        cards[before].position.line == block.position.line,
                        !(index >= 3 && Self.lastLine(blocks[index - 3]) == previous.position.line)
                    {
                        // An image alone on the line right above a card's line joins its front.
                        addPicture(previous, front: true, of: before)
                    }
                    let last = cards[cards.count - 1].isReverse ? cards.count - 2 : cards.count - 1
                    if !usedNext, cards[last].back.isEmpty, let next, Self.isPicture(next) {
                        setSide(front: false, of: last, to: next)
                        usedNext = true
                    } else if !usedNext, let next, Self.isPicture(next),
                        next.position.line == block.position.line + inlines.count(where: Self.isBreak) + 1,
                        !(index + 1 < blocks.count && blocks[index + 1].position.line == next.position.line),
                        !(index + 1 < blocks.count && Self.isParagraph(blocks[index + 1])
                            && blocks[index + 1].position.line == next.position.line + 1)
                    {
                        // An image alone on the line right below a card's last line joins its back,
                        // unless a card follows on the next line: then it is that card's drawing.
                        addPicture(next, front: false, of: last)
                        usedNext = true
                    }
                }
                if usedNext { index += 1 }
                previousUsed = usedNext
                continue
            case .list(_, _, let items):
                for item in items {
                    guard case .paragraph(let inlines)? = item.blocks.first?.content, let first = item.blocks.first
                    else { continue }
                    // Reported at the item's marker, as checklist items are; IDs go on the text's line.
                    let before = cards.count
                    _ = paragraph(
                        inlines, blockID: item.blockID, at: first.position, next: nil,
                        idOnFirstLine: item.blockIDOnFirstLine)
                    if cards.count > before, first.position.line == item.position.line {
                        for index in before..<cards.count where cards[index].position.line == item.position.line {
                            cards[index].position = item.position
                        }
                    }
                }
            default:
                break
            }
            previousUsed = false
        }
    }

    private static func isPicture(_ block: ParsedBlock) -> Bool {
        if case .image = block.content { return true }
        return false
    }

    private static func isBreak(_ inline: Inline) -> Bool { inline == .softBreak || inline == .lineBreak }

    /// The line a block ends on: a paragraph's last line, another block's first (an image's only).
    private static func lastLine(_ block: ParsedBlock) -> Int {
        guard case .paragraph(let inlines) = block.content else { return block.position.line }
        return block.position.line + inlines.count(where: isBreak)
    }

    /// Adds an image block to a side of a card that has text (and to its reverse): above the
    /// front's text, below the back's.
    private mutating func addPicture(_ block: ParsedBlock, front: Bool, of index: Int) {
        if front {
            cards[index].front.insert(block, at: 0)
        } else {
            cards[index].back.append(block)
        }
        if index + 1 < cards.count, cards[index + 1].isReverse {
            cards[index + 1].front = cards[index].back
            cards[index + 1].back = cards[index].front
        }
    }

    /// Puts an image block on an empty side of a card (and of its reverse), with the image's `^id`.
    private mutating func setSide(front: Bool, of index: Int, to block: ParsedBlock) {
        var label = ""
        if case .image(let source, let alt, _, _) = block.content {
            label = alt.isEmpty ? VaultPath.fileName(of: source) : alt
        }
        if front {
            cards[index].front = [block]
            cards[index].frontText = label
        } else {
            cards[index].back = [block]
        }
        if !cards[index].isExplicit, let id = block.blockID {
            cards[index].id = id
            cards[index].isExplicit = true
        }
        if index + 1 < cards.count, cards[index + 1].isReverse {
            cards[index + 1].front = cards[index].back
            cards[index + 1].back = cards[index].front
            cards[index + 1].frontText = front ? cards[index + 1].frontText : label
            cards[index + 1].isExplicit = cards[index].isExplicit
        }
    }

    /// Reads the cards of one paragraph; returns whether the block after it became a card's back.
    private mutating func paragraph(
        _ inlines: [Inline], blockID: String?, at position: SourcePosition, next: ParsedBlock?,
        idOnFirstLine: Bool = false
    ) -> Bool {
        var lines: [[Inline]] = [[]]
        for inline in inlines {
            if inline == .softBreak || inline == .lineBreak {
                lines.append([])
            } else {
                lines[lines.count - 1].append(inline)
            }
        }
        let lastLine = position.line + lines.count - 1
        // Multi-line: front lines, `?`, back lines.
        var firstLine = 0
        if let mark = lines.firstIndex(where: { ["?", "??"].contains($0.plainText.trimmingWhitespace) }) {
            // Single-line cards above the `?` stand on their own; the front starts after them.
            if let lastSingle = lines[..<mark].lastIndex(where: { Self.split($0) != nil }) {
                singleLineCards(lines[...lastSingle], blockID: nil, at: position)
                firstLine = lastSingle + 1
            }
            let reversible = lines[mark].plainText.trimmingWhitespace == "??"
            let front = Array(lines[firstLine..<mark])
            var backLines = Array(lines[(mark + 1)...])
            var back: [ParsedBlock] = []
            var usedNext = false
            var id = blockID
            if id == nil, var last = backLines.last, let taken = BlockConverter.takeBlockID(&last) {
                id = taken
                backLines[backLines.count - 1] = last
            }
            if let paragraph = Self.paragraph(backLines, line: position.line + mark + 1) { back.append(paragraph) }
            if back.isEmpty, let next, !Self.isParagraph(next) {
                back.append(next)
                usedNext = true
                if id == nil { id = next.blockID }
            }
            add(
                front: Self.paragraph(front, line: position.line + firstLine).map { [$0] } ?? [], back: back, id: id,
                position: firstLine == 0 ? position : SourcePosition(line: position.line + firstLine, column: 1),
                stampLine: lastLine, reversible: reversible)
            return usedNext
        }
        singleLineCards(lines[...], blockID: blockID, onLine: idOnFirstLine ? 0 : lines.count - 1, at: position)
        return false
    }

    /// `front::back` or `front:::back` on each line; `blockID` is the paragraph's, from line `onLine`.
    private mutating func singleLineCards(
        _ lines: ArraySlice<[Inline]>, blockID: String?, onLine idLine: Int = -1, at position: SourcePosition
    ) {
        for (offset, line) in lines.enumerated() {
            guard let (front, split, reversible) = Self.split(line) else { continue }
            var back = split
            var id = BlockConverter.takeBlockID(&back)
            if id == nil, offset == idLine { id = blockID }
            let at = SourcePosition(line: position.line + offset, column: offset == 0 ? position.column : 1)
            add(
                front: Self.paragraph([front], line: at.line).map { [$0] } ?? [],
                back: Self.paragraph([back], line: at.line).map { [$0] } ?? [], id: id, position: at,
                stampLine: at.line, reversible: reversible)
        }
    }

    private mutating func add(
        front: [ParsedBlock], back: [ParsedBlock], id: String?, position: SourcePosition, stampLine: Int,
        reversible: Bool
    ) {
        let frontText = Self.plainText(front)
        let card = ParsedCard(
            id: id ?? "", isExplicit: id != nil, front: front, back: back, frontText: frontText, note: -1,
            file: file, position: position, stamp: .endOfLine(stampLine), isReverse: false)
        cards.append(card)
        if reversible {
            var reverse = card
            reverse.front = back
            reverse.back = front
            reverse.frontText = Self.plainText(back)
            reverse.isReverse = true
            cards.append(reverse)
        }
    }

    /// A side's paragraphs as one line of plain text.
    private static func plainText(_ side: [ParsedBlock]) -> String {
        side.map { block -> String in
            if case .paragraph(let inlines) = block.content {
                return inlines.plainText.replacingOccurrences(of: "\n", with: " ")
            }
            return ""
        }.joined(separator: " ").trimmingWhitespace
    }

    private static func isParagraph(_ block: ParsedBlock) -> Bool {
        if case .paragraph = block.content { return true }
        return false
    }

    /// Lines joined back into one paragraph with line breaks, trimmed; nil when empty.
    private static func paragraph(_ lines: [[Inline]], line: Int) -> ParsedBlock? {
        var inlines: [Inline] = []
        for line in lines {
            let trimmed = trim(line)
            guard !trimmed.isEmpty else { continue }
            if !inlines.isEmpty { inlines.append(.lineBreak) }
            inlines += trimmed
        }
        guard !inlines.isEmpty else { return nil }
        return ParsedBlock(content: .paragraph(inlines), position: SourcePosition(line: line, column: 1))
    }

    private static func trim(_ line: [Inline]) -> [Inline] {
        var line = line
        if case .text(let text)? = line.first {
            let trimmed = String(text.drop(while: \.isWhitespace))
            if trimmed.isEmpty { line.removeFirst() } else { line[0] = .text(trimmed) }
        }
        if case .text(let text)? = line.last {
            let trimmed = text.trimmingTrailingWhitespace
            if trimmed.isEmpty { line.removeLast() } else { line[line.count - 1] = .text(trimmed) }
        }
        return line
    }

    /// A line split at its first `::` or `:::` outside code and links.
    private static func split(_ line: [Inline]) -> (front: [Inline], back: [Inline], reversible: Bool)? {
        for (index, inline) in line.enumerated() {
            guard case .text(let text) = inline, let range = text.firstByteRange(of: "::") else { continue }
            var end = range.upperBound
            var reversible = false
            if end < text.endIndex, text[end] == ":" {
                reversible = true
                end = text.index(after: end)
            }
            var front = Array(line[..<index])
            var back = Array(line[(index + 1)...])
            let before = String(text[..<range.lowerBound])
            let after = String(text[end...])
            if !before.isEmpty { front.append(.text(before)) }
            if !after.isEmpty { back.insert(.text(after), at: 0) }
            return (trim(front), trim(back), reversible)
        }
        return nil
    }
}
