import Foundation

/// Where an item of a checklist run stands.
public enum ItemState: String, Sendable, Hashable, Codable, CaseIterable {
    case unchecked
    case checked
    /// Does not apply to this yacht or charter: counts as done.
    case notApplicable

    /// Whether the item needs no more attention (checked or not applicable).
    public var isDone: Bool { self != .unchecked }
}

/// An item's state in one run, with when it last changed and the crew's note.
public struct ItemRecord: Sendable, Hashable, Codable {
    public var state: ItemState
    /// When the state last changed; `nil` for an item never touched.
    public var changedAt: Date?
    /// What the crew wrote about the item: a scratch, a missing spare, a photo taken.
    public var note: String?

    public init(state: ItemState = .unchecked, changedAt: Date? = nil, note: String? = nil) {
        self.state = state
        self.changedAt = changedAt
        self.note = note
    }

    /// An item never touched.
    public static let untouched = ItemRecord()
}
