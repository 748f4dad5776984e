/// The kind of a content document: what an app does with it.
///
/// A string-backed struct rather than an enum, so an app built against this schema still decodes
/// bundles that add kinds in a later minor version and can skip what it does not know.
public struct ContentKind: RawRepresentable, Codable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A practice module: briefing, safety guide or procedure.
    public static let guide = ContentKind(rawValue: "guide")
    /// A checklist of sections, subsections and items.
    public static let checklist = ContentKind(rawValue: "checklist")
    /// A flashcard deck.
    public static let deck = ContentKind(rawValue: "deck")

    /// Every kind this version of the schema defines.
    public static let known: [ContentKind] = [.guide, .checklist, .deck]

    public var description: String { rawValue }

    public static func < (lhs: ContentKind, rhs: ContentKind) -> Bool { lhs.rawValue < rhs.rawValue }
}
