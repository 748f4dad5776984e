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
    private let build: @Sendable () throws -> Document

    init(
        source: String, guide: NoteRecord.KeptGuide, build: @escaping @Sendable () throws -> Document
    ) {
        self.source = source
        self.guide = guide
        self.build = build
    }

    // Read from the record's guide when asked: a build keeps 10,000 of them and asks few.
    var id: String { guide.id }
    var locale: String { guide.locale }
    var indexEntry: ContentIndex.Entry { guide.entry }
    var bundleSHA256: String { guide.bundleSHA256 }
    var bundleSize: Int { guide.bundleSize }

    /// The guide, built now from its note.
    func document() throws -> Document { try build() }
}
