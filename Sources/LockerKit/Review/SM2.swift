/// SM-2 in integer arithmetic: the same schedule on every platform.
///
/// - Ease changes on every review by `100 − (3−q)·(80 + (3−q)·20)` thousandths (easy +100,
///   good 0, hard −140, again −320) and never goes below 1300.
/// - A success (good, easy) adds a repetition; the interval is 1 day after the first, 6 after the
///   second, then `ceil(previous interval × new ease / 1000)`.
/// - A failure (again, hard) resets repetitions to 0 and the interval to 1 day.
/// - Intervals stop growing at ``maximumInterval`` (100 years).
/// - The card is next due `interval` days after the day of the review.
///
/// This is SM-2 alone, scheduled in days; ``Scheduling`` adds the learning steps around it.
public enum SM2 {
    /// A new card's ease: 2.5.
    public static let initialEase = 2500
    /// The floor of the ease: 1.3.
    public static let minimumEase = 1300
    /// The interval, in days, from which a card counts as mastered.
    public static let masteredInterval = 21
    /// The longest interval: 100 years (as Anki caps it), so dates stay in range however often a
    /// card is answered early.
    public static let maximumInterval = 36_500

    /// The change of ease a grade makes, in thousandths.
    public static func easeChange(for grade: Grade) -> Int {
        let miss = 3 - grade.rawValue
        return 100 - miss * (80 + miss * 20)
    }

    /// The state after reviewing a card in `state` with `grade` on `day`.
    public static func review(_ state: CardState, grade: Grade, on day: LocalDay) -> CardState {
        var next = state
        next.ease = max(minimumEase, state.ease + easeChange(for: grade))
        if grade.isSuccess {
            next.repetitions = state.repetitions + 1
            switch next.repetitions {
            case 1: next.interval = 1
            case 2: next.interval = 6
            default:
                // ceil(previous × ease / 1000) without floating point; a card that lapsed has
                // interval 1, so the 3rd success after a lapse still grows from it.
                let product = min(max(1, state.interval), maximumInterval) * next.ease
                next.interval = min(maximumInterval, (product + 999) / 1000)
            }
        } else {
            if state.repetitions > 0 { next.lapses = state.lapses + 1 }
            next.repetitions = 0
            next.interval = 1
        }
        next.reviews = state.reviews + 1
        next.lastReviewed = day
        next.introduced = state.introduced ?? day
        next.due = day.adding(days: next.interval)
        next.phase = .review
        next.step = nil
        next.dueTime = nil
        return next
    }
}

/// SM-2's former name.
@available(*, deprecated, renamed: "SM2")
public typealias Scheduler = SM2
