import LockerKit

/// Decks: a deck's notes built into a ``Deck`` per locale, each card given its ID.
extension DocumentBuilder {
    /// A deck's versions, one per locale, with card IDs assigned, the problems found, and the
    /// cards whose IDs are derived.
    mutating func decks(
        _ group: DeckCatalog.Group, config: VaultConfig
    ) -> (decks: [Deck], diagnostics: [Diagnostic], stamps: [IDStamp], versions: [VersionParts]) {
        let notes = index.notes
        recordReads(group.headers + group.members)
        var diagnostics: [Diagnostic] = []
        var stamps: [IDStamp] = []
        var decks: [Deck] = []
        var versions: [VersionParts] = []
        let present = Set((group.headers + group.members).map { notes[$0].locale })
        let locales = config.localePreference.ordered(present)
        if locales.isEmpty {
            diagnostics.append(
                Diagnostic(
                    .error, .deckEmpty, "folder '\(group.path)' is mapped to deck but holds no notes",
                    file: VaultConfig.fileName, at: group.configPosition ?? .start,
                    hint: "add a note per card to the folder, or remove the mapping"))
        }
        for locale in locales {
            let headers = group.headers.filter { notes[$0].locale == locale }
            let header = config.preferred(group.headers, in: locale) { notes[$0].locale }
            // The header's cards are those it holds inline; a card note without any is one card.
            var cards: [ParsedCard] = []
            for noteIndex in headers {
                cards += CardReader.cards(of: index.whole(noteIndex), at: noteIndex, wholeNote: false)
            }
            for noteIndex in group.members where notes[noteIndex].locale == locale {
                cards += CardReader.cards(of: index.whole(noteIndex), at: noteIndex, wholeNote: true)
            }
            let (identified, idDiagnostics, idStamps) = Self.identify(cards, notes: notes)
            diagnostics += idDiagnostics
            stamps += idStamps

            var built: [Card] = []
            var fronts: [String: ParsedCard] = [:]
            for card in identified {
                let front: [Block]
                let back: [Block]
                if card.isReverse, let forward = built.last {
                    // The same sides as the card before, swapped: converted (and checked) once.
                    (front, back) = (forward.back, forward.front)
                } else {
                    diagnostics += begin(card.note)
                    front = convert(card.front)
                    back = convert(card.back)
                }
                let emptySide = front.isEmpty ? "front" : (back.isEmpty ? "back" : nil)
                if let emptySide {
                    diagnostics.append(
                        Diagnostic(
                            .error, .deckEmptySide, "card has an empty \(emptySide)", file: card.file,
                            at: card.position,
                            hint: card.stamp == .frontmatter
                                ? "a card note's title is the front and its text the back"
                                : "write 'front::back', or front lines, '?', back lines"))
                }
                let key = card.frontText.lowercased()
                if !key.isEmpty, let earlier = fronts[key] {
                    diagnostics.append(
                        Diagnostic(
                            .warning, .deckDuplicateCard,
                            "card '\(card.frontText.excerpt)' has the same front as the card at \(earlier.file):\(earlier.position.line)",
                            file: card.file, at: card.position,
                            hint: "merge the two cards, or make the questions differ"))
                } else if !key.isEmpty {
                    fronts[key] = card
                }
                built.append(
                    Card(
                        id: card.id,
                        uuid: ContentIdentity.uuidString(kind: .deck, id: group.id, part: ["card", card.id]),
                        front: front, back: back, frontText: card.frontText, source: card.file,
                        explicitID: card.isExplicit))
            }
            diagnostics += takeDiagnostics()

            let headerNote = header.map { index.whole($0) }
            let folderName = VaultPath.fileName(of: group.path)
            var title = headerNote?.title ?? folderName
            if let headerNote, headerNote.title == headerNote.stem, DeckCatalog.isFolderNote(headerNote) {
                title = folderName
            }
            var description = headerNote?.frontmatter.description ?? headerNote?.frontmatter.subtitle
            if description == nil, let headerNote, !identified.contains(where: { $0.note == header }),
                case .paragraph(let inlines)? = headerNote.blocks.first?.content
            {
                description = inlines.plainText.trimmingWhitespace
            }
            if built.isEmpty {
                diagnostics.append(
                    Diagnostic(
                        .error, .deckEmpty, "deck '\(title)' (\(locale)) has no cards",
                        file: headers.first.map { notes[$0].path } ?? VaultConfig.fileName,
                        at: headers.isEmpty ? (group.configPosition ?? .start) : .start,
                        hint: "add a note per card to the folder, or cards as 'front::back' lines"))
            }
            versions.append(
                VersionParts(
                    kind: .deck, id: group.id, locale: locale,
                    source: headers.first.map { notes[$0].path } ?? group.path,
                    parts: identified.map { PartSite(id: $0.id, file: $0.file, position: $0.position) }))
            decks.append(
                Deck(
                    id: group.id, uuid: ContentIdentity.uuidString(kind: .deck, id: group.id),
                    locale: locale, title: title, description: description,
                    tags: headerNote.map { Self.tags(of: $0) } ?? [], order: headerNote?.frontmatter.order,
                    source: headerNote?.path ?? group.path, extra: headerNote?.frontmatter.extra ?? [:], cards: built))
        }
        return (decks, diagnostics, stamps, versions)
    }

    /// Gives every card its ID: written IDs first, then IDs derived from the front (a card
    /// note's from its file name), then `-reverse` IDs for reverse cards.
    private static func identify(
        _ cards: [ParsedCard], notes: [ParsedNote]
    ) -> ([ParsedCard], [Diagnostic], [IDStamp]) {
        var cards = cards
        var diagnostics: [Diagnostic] = []
        var stamps: [IDStamp] = []
        // Written IDs first, each reverse card's `<id>-reverse` with it.
        var used: [String: ParsedCard] = [:]
        for (index, card) in cards.enumerated() where card.isExplicit {
            let id = card.isReverse ? (index > 0 ? cards[index - 1].id : card.id) + "-reverse" : card.id
            cards[index].id = id
            if let earlier = used[id] {
                diagnostics.append(
                    Diagnostic(
                        .error, .deckDuplicateID,
                        "card ID '\(id)' is already used by the card at \(earlier.file):\(earlier.position.line)",
                        file: card.file, at: card.position, hint: "IDs of cards must differ within a deck"))
            } else {
                used[id] = card
            }
        }
        // Then derived IDs, in order; a reversible card's only where its `-reverse` is free too.
        var ids = IDAllocator(used: Set(used.keys))
        for index in cards.indices where !cards[index].isExplicit {
            let card = cards[index]
            if card.isReverse {
                cards[index].id = ids.claim(cards[index - 1].id + "-reverse")
                continue
            }
            let reversible = index + 1 < cards.count && cards[index + 1].isReverse
            let fits = { (id: String) in ids.isFree(id) && (!reversible || ids.isFree(id + "-reverse")) }
            let stem = Slug.blockID(notes[card.note].stem)
            let base = Slug.blockID(card.stamp == .frontmatter ? notes[card.note].stem : card.frontText, or: "card")
            let qualified = stem.isEmpty || stem == base ? base : stem + "-" + base
            let id: String
            if let free = [base, qualified].first(where: fits) {
                id = free
                ids.take(free)
            } else {
                id = ids.claim(base, pairedSuffix: reversible ? "-reverse" : nil)
            }
            cards[index].id = id
            let what = card.stamp == .frontmatter ? "card note" : "card"
            diagnostics.append(
                Diagnostic(
                    .warning, .idDerived,
                    "\(what) '\(card.frontText.excerpt)' has no ID; its derived ID '\(id)' changes when its text does, orphaning users' progress",
                    file: card.file, at: card.position, hint: "run 'locker ids --write' to write the IDs into the notes"
                ))
            stamps.append(IDStamp(card: card, id: id))
        }
        return (cards, diagnostics, stamps)
    }
}
