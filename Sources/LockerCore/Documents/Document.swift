import Foundation
import LockerKit

/// A built document of any kind, as the bundle writer and the translation checks see it.
indirect enum Document: Sendable {
    case guide(Guide)
    case checklist(Checklist)
    case deck(Deck)
    /// A guide kept from the previous build, unbuilt (see ``loaded()``).
    case kept(KeptDocument)

    var kind: ContentKind {
        switch self {
        case .guide: .guide
        case .checklist: .checklist
        case .deck: .deck
        case .kept: .guide
        }
    }

    var id: String {
        switch self {
        case .guide(let guide): guide.id
        case .checklist(let checklist): checklist.id
        case .deck(let deck): deck.id
        case .kept(let kept): kept.id
        }
    }

    var locale: String {
        switch self {
        case .guide(let guide): guide.locale
        case .checklist(let checklist): checklist.locale
        case .deck(let deck): deck.locale
        case .kept(let kept): kept.locale
        }
    }

    /// The note (or deck folder) the document comes from.
    var source: String {
        switch self {
        case .guide(let guide): guide.source
        case .checklist(let checklist): checklist.source
        case .deck(let deck): deck.source
        case .kept(let kept): kept.source
        }
    }

    /// The document whole: a kept guide is built now; any other document is itself.
    func loaded() throws -> Document {
        guard case .kept(let kept) = self else { return self }
        return try kept.document()
    }

    /// The document as its bundle file holds it: canonical JSON on one line.
    func encoded() throws -> Data {
        switch self {
        case .guide(let guide): CanonicalJSONWriter.data(for: guide)
        case .checklist(let checklist): CanonicalJSONWriter.data(for: checklist)
        case .deck(let deck): CanonicalJSONWriter.data(for: deck)
        case .kept: try loaded().encoded()
        }
    }

    /// What the index of its kind shows of it.
    var indexEntry: ContentIndex.Entry {
        switch self {
        case .guide(let guide):
            ContentIndex.Entry(
                id: guide.id, uuid: guide.uuid, title: guide.title, subtitle: guide.subtitle, category: guide.category,
                type: guide.type, tags: guide.tags, order: guide.order, locale: guide.locale)
        case .checklist(let checklist):
            ContentIndex.Entry(
                id: checklist.id, uuid: checklist.uuid, title: checklist.title, subtitle: checklist.subtitle,
                category: nil, type: nil, tags: checklist.tags, order: checklist.order, locale: checklist.locale,
                checklistType: checklist.checklistType, itemCount: checklist.itemCount)
        case .deck(let deck):
            ContentIndex.Entry(
                id: deck.id, uuid: deck.uuid, title: deck.title, subtitle: deck.description, category: nil, type: nil,
                tags: deck.tags, order: deck.order, locale: deck.locale, cardCount: deck.cardCount)
        case .kept(let kept): kept.indexEntry
        }
    }
}
