import Foundation

/// Where a card stands in its spaced-repetition schedule.
///
/// One value serves both schedulers: SM-2 keeps `repetitions`, `ease` and `interval`; FSRS keeps
/// `stability` and `difficulty` (and `interval`). The phase, the learning step and the due
/// moment are the same for both.
public struct CardState: Sendable, Hashable, Codable {
    /// Where a card is in its life.
    public enum Phase: String, Sendable, Hashable, Codable {
        /// Never reviewed.
        case new
        /// Reviewed, still going through the learning steps: back in minutes, not days.
        case learning
        /// Scheduled in days.
        case review
        /// Forgotten after it was scheduled in days: going through the relearning steps.
        case relearning
    }

    /// Successful reviews in a row since the last lapse.
    public var repetitions: Int
    /// SM-2's ease factor in thousandths: 2500 is 2.5. Never below ``SM2/minimumEase``.
    public var ease: Int
    /// Days from the last review to the next; 0 for a card never reviewed, and for a card in its
    /// learning steps under FSRS.
    public var interval: Int
    /// The day the card is next due; `nil` for a card never reviewed, which is new and due.
    public var due: LocalDay?
    /// The day of the last review.
    public var lastReviewed: LocalDay?
    /// The day of the first review: what the daily limit of new cards counts.
    public var introduced: LocalDay?
    /// Every review of the card, successful or not.
    public var reviews: Int
    /// Lapses: failed reviews of a card that had been recalled (SM-2: `again` or `hard` after a
    /// success; FSRS: `again` of a card scheduled in days).
    public var lapses: Int
    /// Where the card is in its life.
    public var phase: Phase
    /// The learning or relearning step the card is at; `nil` outside the steps.
    public var step: Int?
    /// The moment a card in its steps is due again (milliseconds kept); `nil` outside the steps.
    public var dueTime: Date?
    /// FSRS: the days after which the card is recalled with 90 % probability.
    public var stability: Double?
    /// FSRS: how hard the card is, from 1 to 10.
    public var difficulty: Double?

    public init(
        repetitions: Int, ease: Int, interval: Int, due: LocalDay?, lastReviewed: LocalDay?, introduced: LocalDay?,
        reviews: Int, lapses: Int, phase: Phase? = nil, step: Int? = nil, dueTime: Date? = nil,
        stability: Double? = nil, difficulty: Double? = nil
    ) {
        self.repetitions = repetitions
        self.ease = ease
        self.interval = interval
        self.due = due
        self.lastReviewed = lastReviewed
        self.introduced = introduced
        self.reviews = reviews
        self.lapses = lapses
        self.phase = phase ?? (reviews == 0 ? .new : .review)
        self.step = step
        self.dueTime = dueTime
        self.stability = stability
        self.difficulty = difficulty
    }

    /// A card never reviewed.
    public static let new = CardState(
        repetitions: 0, ease: SM2.initialEase, interval: 0, due: nil, lastReviewed: nil, introduced: nil,
        reviews: 0, lapses: 0)

    /// Whether the card has never been reviewed.
    public var isNew: Bool { reviews == 0 }

    /// Whether the card is in its learning or relearning steps.
    public var isInSteps: Bool { phase == .learning || phase == .relearning }

    /// Whether the card is to be reviewed on `day`: new, or due on or before it. A card in its
    /// steps is due on the day of its step, and shows once its ``dueTime`` has come.
    public func isDue(on day: LocalDay) -> Bool { due.map { $0 <= day } ?? true }

    /// Whether the card is learnt well: its interval has reached ``SM2/masteredInterval`` days.
    public var isMastered: Bool { interval >= SM2.masteredInterval }

    // States written before phases and FSRS have none of the new keys: a reviewed card was
    // scheduled in days.
    private enum CodingKeys: String, CodingKey {
        case repetitions, ease, interval, due, lastReviewed, introduced, reviews, lapses, phase, step
        case dueTime = "dueTimeMs"
        case stability, difficulty
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            repetitions: try container.decode(Int.self, forKey: .repetitions),
            ease: try container.decode(Int.self, forKey: .ease),
            interval: try container.decode(Int.self, forKey: .interval),
            due: try container.decodeIfPresent(LocalDay.self, forKey: .due),
            lastReviewed: try container.decodeIfPresent(LocalDay.self, forKey: .lastReviewed),
            introduced: try container.decodeIfPresent(LocalDay.self, forKey: .introduced),
            reviews: try container.decode(Int.self, forKey: .reviews),
            lapses: try container.decode(Int.self, forKey: .lapses),
            phase: try container.decodeIfPresent(Phase.self, forKey: .phase),
            step: try container.decodeIfPresent(Int.self, forKey: .step),
            dueTime: try container.decodeIfPresent(Int64.self, forKey: .dueTime).map(Milliseconds.date),
            stability: try container.decodeIfPresent(Double.self, forKey: .stability),
            difficulty: try container.decodeIfPresent(Double.self, forKey: .difficulty))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(repetitions, forKey: .repetitions)
        try container.encode(ease, forKey: .ease)
        try container.encode(interval, forKey: .interval)
        try container.encodeIfPresent(due, forKey: .due)
        try container.encodeIfPresent(lastReviewed, forKey: .lastReviewed)
        try container.encodeIfPresent(introduced, forKey: .introduced)
        try container.encode(reviews, forKey: .reviews)
        try container.encode(lapses, forKey: .lapses)
        try container.encode(phase, forKey: .phase)
        try container.encodeIfPresent(step, forKey: .step)
        try container.encodeIfPresent(dueTime.map(Milliseconds.of), forKey: .dueTime)
        try container.encodeIfPresent(stability, forKey: .stability)
        try container.encodeIfPresent(difficulty, forKey: .difficulty)
    }
}

/// Moments as whole milliseconds since 1970: how the store and events keep time, so a moment
/// written and read back is the same value on every device.
enum Milliseconds {
    /// Clamped to ±9e18, so no moment, however far, traps.
    static func of(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(min(max(value, -9e18), 9e18))
    }
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    /// `date` as it reads back from storage.
    static func rounded(_ date: Date) -> Date { Self.date(of(date)) }
}
