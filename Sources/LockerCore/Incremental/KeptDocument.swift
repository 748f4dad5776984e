import Foundation
import LockerKit

/// A guide kept from the previous build without being built again (``NoteRecord``): what the
/// indexes, the manifest, the translation checks and the pages' inputs need of it, and its bundle
/// file. The guide itself is built only if a stage needs it whole: when its bundle file or its
/// page in the output is not the one the previous build wrote.
final class KeptDocument: Sendable {
    let source: String
    /// What the record kept of the guide: the next record keeps it as it is.
    let guide: NoteRecord.KeptGuide
    /// What builds the guide, and the place of its note: one object shared by every kept
    /// document, not a closure made for each (an allocation per kept guide in a one-note rebuild).
    private let builder: any KeptGuideBuilding
    private let place: Int

    init(source: String, guide: NoteRecord.KeptGuide, place: Int, builder: any KeptGuideBuilding) {
        self.source = source
        self.guide = guide
        self.place = place
        self.builder = builder
    }

    // Read from the record's guide when asked: a build keeps many of them and asks few.
    var id: String { guide.id }
    var locale: String { guide.locale }
    var indexEntry: ContentIndex.Entry { guide.entry }
    var bundleSHA256: String { guide.bundleSHA256 }
    var bundleSize: Int { guide.bundleSize }

    /// The guide, built now from its note.
    func document() throws -> Document { try builder.guide(place) }
}

/// Builds a kept guide whole, when a stage needs it (``KeptDocument/document()``).
protocol KeptGuideBuilding: AnyObject, Sendable {
    /// The guide of the note at `place`, built now.
    func guide(_ place: Int) throws -> Document
}
