import Foundation

/// One entry of the append-only review log: a review, or the undoing of one.
public struct ReviewEvent: Sendable, Hashable, Codable {
    /// What the event did.
    public enum Kind: String, Sendable, Hashable, Codable {
        case review
        /// Restored the state before the review ``ReviewEvent/undoes``.
        case undo
    }

    /// The event's own ID: writing an event whose ID is already in the log changes nothing.
    public var id: UUID
    public var kind: Kind
    /// The card's UUID, what progress is keyed by.
    public var cardKey: String
    public var deckID: String
    public var cardID: String
    /// For a review, the grade; for an undo, the grade of the review undone.
    public var grade: Grade
    /// When it happened (milliseconds are kept).
    public var time: Date
    /// The day it counted for.
    public var day: LocalDay
    /// The card's state before the event.
    public var previous: CardState
    /// The card's state after it.
    public var next: CardState
    /// For an undo: the review it undid.
    public var undoes: UUID?

    public init(
        id: UUID, kind: Kind, cardKey: String, deckID: String, cardID: String, grade: Grade, time: Date,
        day: LocalDay, previous: CardState, next: CardState, undoes: UUID?
    ) {
        self.id = id
        self.kind = kind
        self.cardKey = cardKey
        self.deckID = deckID
        self.cardID = cardID
        self.grade = grade
        self.time = time
        self.day = day
        self.previous = previous
        self.next = next
        self.undoes = undoes
    }
}
