import Foundation
import LockerKit

/// A guide kept from the previous build without being built again (``NoteRecord``): what the
/// indexes, the manifest, the translation checks and the pages' inputs need of it, and its bundle
/// file. The guide itself is built only if a stage needs it whole: when its bundle file or its
/// page in the output is not the one the previous build wrote.
final class KeptDocument: Sendable {
    let id: String
    let locale: String
    let source: String
    let indexEntry: ContentIndex.Entry
    let bundleSHA256: String
    let bundleSize: Int
    /// What the record kept of the guide: the next record keeps it as it is.
    let guide: NoteRecord.KeptGuide
    private let build: @Sendable () throws -> Document

    init(
        source: String, guide: NoteRecord.KeptGuide, build: @escaping @Sendable () throws -> Document
    ) {
        id = guide.id
        locale = guide.locale
        self.source = source
        indexEntry = guide.entry
        bundleSHA256 = guide.bundleSHA256
        bundleSize = guide.bundleSize
        self.guide = guide
        self.build = build
    }

    /// The guide, built now from its note.
    func document() throws -> Document { try build() }
}
