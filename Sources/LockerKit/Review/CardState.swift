/// Where a card stands in its spaced-repetition schedule.
public struct CardState: Sendable, Hashable, Codable {
    /// Successful reviews in a row since the last lapse.
    public var repetitions: Int
    /// The ease factor in thousandths: 2500 is 2.5. Never below ``Scheduler/minimumEase``.
    public var ease: Int
    /// Days from the last review to the next; 0 for a card never reviewed.
    public var interval: Int
    /// The day the card is next due; `nil` for a card never reviewed, which is new and due.
    public var due: LocalDay?
    /// The day of the last review.
    public var lastReviewed: LocalDay?
    /// The day of the first review: what the daily limit of new cards counts.
    public var introduced: LocalDay?
    /// Every review of the card, successful or not.
    public var reviews: Int
    /// Lapses: failed reviews (`again` or `hard`) whose previous review was a success.
    public var lapses: Int

    public init(
        repetitions: Int, ease: Int, interval: Int, due: LocalDay?, lastReviewed: LocalDay?, introduced: LocalDay?,
        reviews: Int, lapses: Int
    ) {
        self.repetitions = repetitions
        self.ease = ease
        self.interval = interval
        self.due = due
        self.lastReviewed = lastReviewed
        self.introduced = introduced
        self.reviews = reviews
        self.lapses = lapses
    }

    /// A card never reviewed.
    public static let new = CardState(
        repetitions: 0, ease: Scheduler.initialEase, interval: 0, due: nil, lastReviewed: nil, introduced: nil,
        reviews: 0, lapses: 0)

    /// Whether the card has never been reviewed.
    public var isNew: Bool { reviews == 0 }

    /// Whether the card is to be reviewed on `day`: new, or due on or before it.
    public func isDue(on day: LocalDay) -> Bool { due.map { $0 <= day } ?? true }

    /// Whether the card is learnt well: its interval has reached ``Scheduler/masteredInterval`` days.
    public var isMastered: Bool { interval >= Scheduler.masteredInterval }
}
