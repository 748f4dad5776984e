/// Reads a checklist note's sections and lists as sections, subsections and items, and gives
/// every part an ID.
///
/// H2 is a section and H3 a subsection. Items written directly under an H2 form an untitled
/// subsection ahead of the H3s. An H4 (a third level) is folded into the subsection above it with
/// a warning: apps show two levels. Text that is not a list is the section's or subsection's note.
struct ChecklistReader {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    mutating func read(blocks: [ParsedBlock], sections: [ParsedSection]) -> ParsedChecklist {
        var intro: [ParsedBlock] = []
        for block in blocks {
            if case .list(_, _, let listItems) = block.content {
                diagnostics.append(
                    Diagnostic(
                        .error, .checklistItemOutsideSection,
                        listItems.count == 1
                            ? "a list item before the first section belongs to no section"
                            : "\(listItems.count) list items before the first section belong to no section",
                        file: file, at: block.position, hint: "put a '## Section' heading above them"))
            } else {
                intro.append(block)
            }
        }
        var sectionIDs = IDAllocator()
        var result = ParsedChecklist(blocks: intro, sections: sections.map { section($0, ids: &sectionIDs) })
        assignDerivedIDs(&result)
        reportEmpty(result)
        return result
    }

    private mutating func section(_ heading: ParsedSection, ids: inout IDAllocator) -> ParsedChecklist.Section {
        let (directItems, note) = items(in: heading.blocks)
        var subsections: [ParsedChecklist.Subsection] = []
        let id = headingID(heading, ids: &ids, fallback: "section")
        if !directItems.isEmpty {
            subsections.append(
                ParsedChecklist.Subsection(
                    id: id, anchor: nil, title: nil, plainTitle: nil, position: heading.position, note: [],
                    items: directItems))
        }
        var subsectionIDs = IDAllocator(used: [id])
        for child in heading.sections {
            var (childItems, childNote) = items(in: child.blocks)
            fold(child.sections, into: &childItems, note: &childNote, under: child.plainTitle)
            subsections.append(
                ParsedChecklist.Subsection(
                    id: headingID(child, ids: &subsectionIDs, fallback: "subsection"),
                    anchor: child.anchor, title: child.title, plainTitle: child.plainTitle, position: child.position,
                    note: childNote, items: childItems))
        }
        return ParsedChecklist.Section(
            id: id, anchor: heading.anchor, title: heading.title, plainTitle: heading.plainTitle,
            position: heading.position, note: note, subsections: subsections)
    }

    /// A heading's `^id`, reported when another heading has it, else a slug of its title.
    private mutating func headingID(_ heading: ParsedSection, ids: inout IDAllocator, fallback: String) -> String {
        if let written = heading.blockID {
            if ids.take(written) { return written }
            diagnostics.append(
                Diagnostic(
                    .error, .blockDuplicateID, "heading ID '^\(written)' is already used by another heading",
                    file: file, at: heading.position))
        }
        return ids.claim(Slug.blockID(heading.plainTitle, or: fallback))
    }

    /// Folds headings below a subsection into it, reporting each.
    private mutating func fold(
        _ headings: [ParsedSection], into items: inout [ParsedChecklist.Item], note: inout [ParsedBlock], under parent: String
    ) {
        for heading in headings {
            diagnostics.append(
                Diagnostic(
                    .warning, .checklistHeadingTooDeep,
                    "H\(heading.level) '\(heading.plainTitle)' is a third level: checklists have sections (H2) and subsections (H3); its items join \(parent.isEmpty ? "the subsection above" : "'\(parent)'")",
                    file: file, at: heading.position, hint: "make it an H3, or bold text"))
            let (more, moreNote) = self.items(in: heading.blocks)
            items += more
            note += moreNote
            fold(heading.sections, into: &items, note: &note, under: parent)
        }
    }

    /// The items of the lists among the blocks, and the blocks that are not lists.
    private mutating func items(in blocks: [ParsedBlock]) -> ([ParsedChecklist.Item], [ParsedBlock]) {
        var items: [ParsedChecklist.Item] = []
        var note: [ParsedBlock] = []
        for block in blocks {
            guard case .list(_, _, let listItems) = block.content else {
                note.append(block)
                continue
            }
            for listItem in listItems {
                if let item = item(listItem) { items.append(item) }
            }
        }
        return (items, note)
    }

    /// An item: its first line is the title, the rest its guidance.
    private mutating func item(_ listItem: ParsedListItem) -> ParsedChecklist.Item? {
        var guidance = listItem.blocks
        var title: [Inline] = []
        var titleLine = listItem.position.line
        if case .paragraph(let inlines)? = guidance.first?.content {
            titleLine = guidance[0].position.line
            let lineEnd = inlines.firstIndex { $0 == .softBreak || $0 == .lineBreak } ?? inlines.endIndex
            title = Array(inlines[..<lineEnd])
            let rest = lineEnd < inlines.endIndex ? Array(inlines[(lineEnd + 1)...]) : []
            if rest.isEmpty {
                guidance.removeFirst()
            } else {
                guidance[0].content = .paragraph(rest)
            }
        }
        let plain = title.plainText.trimmingWhitespace
        // `- [ ]` with nothing after it is no task item to cmark, just the text "[ ]".
        guard !plain.isEmpty, !["[ ]", "[x]", "[X]", "[]"].contains(plain) else {
            diagnostics.append(
                Diagnostic(
                    .error, .checklistEmptyItem, "checklist item has no text", file: file, at: listItem.position,
                    hint: "write what to check on the item's first line, or remove it"))
            return nil
        }
        return ParsedChecklist.Item(
            id: listItem.blockID ?? "", isExplicit: listItem.blockID != nil, title: title, plainTitle: plain,
            guidance: guidance, position: listItem.position, titleLine: titleLine)
    }

    /// Gives items without `^id` an ID from their title, qualified by their subsection and section
    /// when another item has it, and warns that it is fragile.
    private mutating func assignDerivedIDs(_ checklist: inout ParsedChecklist) {
        var ids = IDAllocator(used: Set(checklist.items.filter(\.isExplicit).map(\.id)))
        for s in checklist.sections.indices {
            let section = Slug.blockID(checklist.sections[s].plainTitle)
            for u in checklist.sections[s].subsections.indices {
                let subsection = Slug.blockID(checklist.sections[s].subsections[u].plainTitle ?? "")
                for i in checklist.sections[s].subsections[u].items.indices {
                    var item = checklist.sections[s].subsections[u].items[i]
                    guard !item.isExplicit else { continue }
                    let base = Slug.blockID(item.plainTitle, or: "item")
                    let candidates = [base, Self.join(subsection, base), Self.join(section, subsection, base)]
                    if let free = candidates.first(where: ids.isFree) {
                        item.id = free
                        ids.take(free)
                    } else {
                        item.id = ids.claim(candidates[2])
                    }
                    checklist.sections[s].subsections[u].items[i] = item
                    diagnostics.append(
                        Diagnostic(
                            .warning, .idDerived,
                            "item '\(item.plainTitle.excerpt)' has no ^id; its derived ID '\(item.id)' changes when its text does, orphaning users' progress",
                            file: file, at: item.position, hint: "run 'locker ids --write' to write the IDs into the notes"))
                }
            }
        }
    }

    private mutating func reportEmpty(_ checklist: ParsedChecklist) {
        if checklist.items.isEmpty {
            diagnostics.append(
                Diagnostic(
                    .error, .checklistEmpty, "checklist has no items", file: file,
                    hint: "write items as list entries ('- [ ] item') under '## Section' headings"))
            return
        }
        for section in checklist.sections {
            if section.subsections.allSatisfy({ $0.items.isEmpty }) {
                diagnostics.append(
                    Diagnostic(
                        .warning, .checklistEmptySection, "section '\(section.plainTitle)' has no items", file: file,
                        at: section.position))
                continue
            }
            for subsection in section.subsections where subsection.items.isEmpty {
                diagnostics.append(
                    Diagnostic(
                        .warning, .checklistEmptySection, "subsection '\(subsection.plainTitle ?? "")' has no items",
                        file: file, at: subsection.position))
            }
        }
    }

    private static func join(_ parts: String...) -> String {
        parts.filter { !$0.isEmpty }.joined(separator: "-")
    }
}
