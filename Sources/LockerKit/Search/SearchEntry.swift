/// One searchable piece of a document, as ``ContentSearch`` indexes it: the document itself
/// (its title and the text before its first section), a guide's or checklist's section (its own
/// text, not its subsections'), a checklist item, or a card.
struct SearchEntry: Sendable {
    /// The heading, item title, card front, or document title.
    var title: String
    /// Where it sits: the document's title and the headings above it, joined by ` › `.
    var context: String
    var body: String
    var part: ContentLink.Part?
    var partUUID: String?

    /// The entries of a guide: the guide, then each section, depth first.
    static func entries(of guide: Guide) -> [SearchEntry] {
        var entries = [
            SearchEntry(title: guide.title, context: "", body: text(guide.subtitle, guide.blocks.plainText))
        ]
        func walk(_ sections: [Section], _ path: [String]) {
            for section in sections {
                entries.append(
                    SearchEntry(
                        title: section.title, context: path.joined(separator: " › "),
                        body: text(section.blocks.plainText),
                        part: .section(anchor: section.anchor)))
                walk(section.sections, path + [section.title])
            }
        }
        walk(guide.sections, [guide.title])
        return entries
    }

    /// The entries of a checklist: the checklist, each section and titled subsection (with its
    /// note), and each item (with its guidance).
    static func entries(of checklist: Checklist) -> [SearchEntry] {
        var entries = [
            SearchEntry(title: checklist.title, context: "", body: text(checklist.subtitle, checklist.blocks.plainText))
        ]
        for section in checklist.sections {
            let sectionPath = checklist.title + " › " + section.title
            entries.append(
                SearchEntry(
                    title: section.title, context: checklist.title, body: text(section.note.plainText),
                    part: .section(anchor: section.anchor), partUUID: section.uuid))
            for subsection in section.subsections {
                var path = sectionPath
                if let title = subsection.title, let anchor = subsection.anchor {
                    entries.append(
                        SearchEntry(
                            title: title, context: sectionPath, body: text(subsection.note.plainText),
                            part: .section(anchor: anchor), partUUID: subsection.uuid))
                    path += " › " + title
                }
                for item in subsection.items {
                    entries.append(
                        SearchEntry(
                            title: item.title, context: path, body: text(item.guidance.plainText),
                            part: .item(id: item.id), partUUID: item.uuid))
                }
            }
        }
        return entries
    }

    /// The entries of a deck: the deck, then each card (its front as the title, its back as the body).
    static func entries(of deck: Deck) -> [SearchEntry] {
        [SearchEntry(title: deck.title, context: "", body: text(deck.description))]
            + deck.cards.map { card in
                SearchEntry(
                    title: card.frontText, context: deck.title, body: text(card.back.plainText),
                    part: .card(id: card.id), partUUID: card.uuid)
            }
    }

    /// The pieces joined by a line break. (Snippets show runs of white space as one space.)
    private static func text(_ pieces: String?...) -> String {
        pieces.compactMap { $0 }.joined(separator: "\n")
    }
}
