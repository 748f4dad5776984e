import LockerKit

/// Checklists: a checklist note built into a ``Checklist``, its links resolved.
extension DocumentBuilder {
    /// The checklist for the note at `noteIndex`, its links resolved, and what was wrong with them.
    mutating func checklist(_ noteIndex: Int) -> (Checklist, [Diagnostic]) {
        begin(noteIndex)
        let note = self.note(noteIndex)
        let parsed = note.checklist ?? ParsedChecklist(blocks: note.blocks, sections: [])
        let kind = ContentKind.checklist
        func uuid(_ parts: String...) -> String {
            ContentIdentity.uuidString(kind: kind, id: note.id, part: parts)
        }
        let sections = parsed.sections.map { section in
            ChecklistSection(
                id: section.id, uuid: uuid("section", section.id), anchor: section.anchor, title: section.plainTitle,
                titleSpans: spans(section.title), note: convert(section.note),
                subsections: section.subsections.map { subsection in
                    ChecklistSubsection(
                        id: subsection.id, uuid: uuid("subsection", section.id, subsection.id), anchor: subsection.anchor,
                        title: subsection.plainTitle, titleSpans: subsection.title.map { spans($0) },
                        note: convert(subsection.note),
                        items: subsection.items.map { item in
                            ChecklistItem(
                                id: item.id, uuid: uuid("item", item.id), title: item.plainTitle,
                                titleSpans: spans(item.title), guidance: convert(item.guidance),
                                explicitID: item.isExplicit)
                        })
                })
        }
        let checklist = Checklist(
            id: note.id, uuid: ContentIdentity.uuidString(kind: kind, id: note.id),
            locale: note.locale, title: note.title, subtitle: note.frontmatter.subtitle ?? note.frontmatter.description,
            checklistType: note.frontmatter.checklistType ?? .reference, tags: Self.tags(of: note),
            aliases: note.frontmatter.aliases, order: note.frontmatter.order, source: note.path,
            extra: note.frontmatter.extra, blocks: convert(parsed.blocks), sections: sections)
        return (checklist, takeDiagnostics())
    }
}
