extension ContentBundle {
    /// The written forms of this bundle's links.
    public var linkFormat: ContentLinkFormat { ContentLinkFormat(manifest: manifest) }

    /// What the text of a link names, for a reader of `locale`: ``resolve(_:locale:)`` of the
    /// link it spells, or why it spells none.
    public func resolve(_ text: String, locale: String) -> Result<LinkResolution, ContentLinkError> {
        do {
            return .success(resolve(try linkFormat.link(from: text), locale: locale))
        } catch {
            return .failure(error)
        }
    }

    /// What `link` names, for a reader of `locale`: the document in that locale or the one it
    /// falls back to, and the part there.
    ///
    /// A section's anchor is of one translation: when the reader's version has no such anchor,
    /// the section is looked for in the link's locale (or any other) and taken to the heading in
    /// the same place of the reader's version, when that version has the same headings' shape
    /// there; otherwise the outcome is ``LinkResolution/otherLocale(_:)``.
    public func resolve(_ link: ContentLink, locale: String) -> LinkResolution {
        let kind = link.kind
        let id: String
        switch documentID(of: link.document, kind: kind) {
        case .found(let found): id = found
        case .failed(let failure): return failure
        }
        guard let version = resolvedLocale(of: kind, id: id, for: locale) else {
            return .notFound(kind: kind, document: id)
        }
        let outline: LinkOutline
        do {
            outline = try LinkOutline(self, kind: kind, id: id, locale: version)
        } catch {
            return .unreadable(error)
        }
        let document = ContentTarget(
            kind: kind, id: id, uuid: outline.uuid, locale: version, title: outline.title)
        guard let part = link.part else { return .found(document) }
        if let found = outline.target(part, document: document) { return .found(found) }
        // The other versions, the link's own first.
        let others = locales(of: kind, id: id).filter { $0 != version }
            .sorted { ($0 == link.locale ? 0 : 1) < ($1 == link.locale ? 0 : 1) }
        for other in others {
            guard let there = try? LinkOutline(self, kind: kind, id: id, locale: other) else { continue }
            var otherDocument = document
            otherDocument.locale = other
            otherDocument.title = there.title
            guard let found = there.target(part, document: otherDocument) else { continue }
            if case .section(let anchor) = part, let place = there.place(ofSection: anchor),
                let mapped = outline.section(at: place, shapedAs: there),
                let here = outline.target(mapped, document: document)
            {
                return .found(here)
            }
            return .otherLocale(found)
        }
        return .partNotFound(document, part)
    }

    /// The ID of the document a link names, or the failure to report.
    private func documentID(of document: ContentLink.Document, kind: ContentKind) -> DocumentMatch {
        let kinds = [kind] + ContentKind.known.filter { $0 != kind }
        for candidate in kinds {
            let found: String? =
                switch document {
                case .id(let id): locales(of: candidate, id: id).isEmpty ? nil : id
                case .uuid(let uuid):
                    ids(of: candidate).first { ContentIdentity.uuidString(kind: candidate, id: $0) == uuid }
                }
            guard let found else { continue }
            return candidate == kind ? .found(found) : .failed(.wrongKind(link: kind, actual: candidate, id: found))
        }
        let named =
            switch document {
            case .id(let id): id
            case .uuid(let uuid): uuid
            }
        return .failed(.notFound(kind: kind, document: named))
    }
}

private enum DocumentMatch {
    case found(String)
    case failed(LinkResolution)
}

/// The parts of one version of a document that links name: its headings in order, with their
/// place in the tree, its items and its cards.
private struct LinkOutline {
    struct Heading {
        /// The indexes from the top: `[2, 0]` is the first subsection of the third section.
        var place: [Int]
        var anchor: String
        var title: String
        var uuid: String?
    }

    var uuid: String
    var title: String
    var headings: [Heading] = []
    /// Items or cards by ID: title (or front) and uuid.
    var parts: [String: (title: String, uuid: String)] = [:]

    init(_ bundle: ContentBundle, kind: ContentKind, id: String, locale: String) throws(BundleError) {
        switch kind {
        case .guide:
            let guide = try bundle.guide(id: id, locale: locale)
            (uuid, title) = (guide.uuid, guide.title)
            func walk(_ sections: [Section], _ place: [Int]) {
                for (index, section) in sections.enumerated() {
                    headings.append(Heading(place: place + [index], anchor: section.anchor, title: section.title))
                    walk(section.sections, place + [index])
                }
            }
            walk(guide.sections, [])
        case .checklist:
            let checklist = try bundle.checklist(id: id, locale: locale)
            (uuid, title) = (checklist.uuid, checklist.title)
            for (index, section) in checklist.sections.enumerated() {
                headings.append(
                    Heading(place: [index], anchor: section.anchor, title: section.title, uuid: section.uuid))
                for (subindex, subsection) in section.subsections.enumerated() {
                    if let anchor = subsection.anchor {
                        headings.append(
                            Heading(
                                place: [index, subindex], anchor: anchor, title: subsection.title ?? "",
                                uuid: subsection.uuid))
                    }
                    for item in subsection.items { parts[item.id] = (item.title, item.uuid) }
                }
            }
        case .deck:
            let deck = try bundle.deck(id: id, locale: locale)
            (uuid, title) = (deck.uuid, deck.title)
            for card in deck.cards { parts[card.id] = (card.frontText, card.uuid) }
        default:
            throw .notFound(kind: kind, id: id)
        }
    }

    /// The target of `part` in this version; a web link's `#item-x` that is no item may be a heading.
    func target(_ part: ContentLink.Part, document: ContentTarget) -> ContentTarget? {
        var target = document
        target.part = part
        switch part {
        case .section(let anchor):
            guard let heading = headings.first(where: { $0.anchor == anchor }) else { return nil }
            (target.partTitle, target.partUUID) = (heading.title, heading.uuid)
        case .item(let id), .card(let id):
            guard let found = parts[id] else {
                return document.kind == .checklist
                    ? self.target(.section(anchor: ContentLinkFormat.elementID(of: part)), document: document) : nil
            }
            (target.partTitle, target.partUUID) = (found.title, found.uuid)
        }
        return target
    }

    func place(ofSection anchor: String) -> [Int]? { headings.first { $0.anchor == anchor }?.place }

    /// The section at `place`, when this version's headings have the same places as `other`'s
    /// down to it (a translation whose headings are paired one to one).
    func section(at place: [Int], shapedAs other: LinkOutline) -> ContentLink.Part? {
        guard headings.map(\.place) == other.headings.map(\.place),
            let heading = headings.first(where: { $0.place == place })
        else { return nil }
        return .section(anchor: heading.anchor)
    }
}
