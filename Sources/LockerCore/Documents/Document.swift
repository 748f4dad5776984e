import Foundation
import LockerKit

/// A built document of any kind, as the bundle writer and the translation checks see it.
indirect enum Document: Sendable {
    case guide(Guide)
    case checklist(Checklist)
    case deck(Deck)
    /// A guide whose bundle file and page this build wrote as soon as it built it, and let go.
    case written(WrittenGuide)

    var kind: ContentKind {
        switch self {
        case .guide: .guide
        case .checklist: .checklist
        case .deck: .deck
        case .written: .guide
        }
    }

    var id: String {
        switch self {
        case .guide(let guide): guide.id
        case .checklist(let checklist): checklist.id
        case .deck(let deck): deck.id
        case .written(let written): written.entry.id
        }
    }

    var locale: String {
        switch self {
        case .guide(let guide): guide.locale
        case .checklist(let checklist): checklist.locale
        case .deck(let deck): deck.locale
        case .written(let written): written.entry.locale
        }
    }

    /// The note (or deck folder) the document comes from.
    var source: String {
        switch self {
        case .guide(let guide): guide.source
        case .checklist(let checklist): checklist.source
        case .deck(let deck): deck.source
        case .written(let written): written.source
        }
    }

    /// The document as its bundle file holds it: canonical JSON on one line.
    func encoded() throws -> Data {
        switch self {
        case .guide(let guide): CanonicalJSONWriter.data(for: guide)
        case .checklist(let checklist): CanonicalJSONWriter.data(for: checklist)
        case .deck(let deck): CanonicalJSONWriter.data(for: deck)
        case .written(let written): throw LockerError.io("\(written.source) was encoded already")
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
        case .written(let written): written.entry
        }
    }
}

/// What the rest of a build needs of a guide whose bundle file and page were written (or kept
/// from the previous build) as soon as it was built: its source, its index entry and its bundle
/// file.
final class WrittenGuide: Sendable {
    let source: String
    let entry: ContentIndex.Entry
    /// Its bundle file, as the manifest lists it.
    let file: Manifest.File

    init(source: String, entry: ContentIndex.Entry, file: Manifest.File) {
        self.source = source
        self.entry = entry
        self.file = file
    }
}
