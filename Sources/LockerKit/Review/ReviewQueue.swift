import Foundation

/// The cards to review on one day: cards back from their learning steps first, then due cards,
/// oldest due first, then new cards up to the day's limit.
public struct ReviewQueue: Sendable, Hashable {
    /// The day the queue is for.
    public var day: LocalDay
    /// In the order to show them.
    public var cards: [ReviewCard]
    /// How many of `cards` were reviewed before and are due (in their steps or in days).
    public var dueCount: Int
    /// How many of `cards` are new.
    public var newCount: Int
    /// New cards left out today because of the daily limit.
    public var newHeldBack: Int
    /// Cards in their steps that come back later today, soonest first, with the moment each is due.
    public var later: [Later]

    /// A card in its steps and the moment it is due.
    public struct Later: Sendable, Hashable {
        public var card: ReviewCard
        public var dueTime: Date

        public init(card: ReviewCard, dueTime: Date) {
            self.card = card
            self.dueTime = dueTime
        }
    }

    /// The default number of new cards a day.
    public static let defaultNewLimit = 20

    /// When nothing else is left, a card in its steps due within this many seconds may be shown
    /// early rather than end the sitting: 20 minutes, as Anki does.
    public static let learnAheadLimit: TimeInterval = 20 * 60

    /// Builds the queue of `cards` from their states.
    ///
    /// - Parameters:
    ///   - states: by ``ReviewCard/key``; a card with none is new.
    ///   - newLimit: new cards a day; cards first reviewed on `day` count against it, so quitting
    ///     and coming back the same day does not bring more.
    ///   - now: the moment the queue is for. A card in its steps is in `cards` once its due
    ///     moment has come, and in `later` before; without `now`, every card in its steps due on
    ///     or before `day` is in `cards`.
    public init(
        cards: [ReviewCard], states: [String: CardState], day: LocalDay, newLimit: Int = defaultNewLimit,
        now: Date? = nil
    ) {
        self.day = day
        var stepping: [(card: ReviewCard, dueTime: Date, order: Int)] = []
        var due: [(card: ReviewCard, due: LocalDay, order: Int)] = []
        var fresh: [ReviewCard] = []
        var introducedToday = 0
        var seen: Set<String> = []
        for (order, card) in cards.enumerated() where seen.insert(card.key).inserted {
            guard let state = states[card.key], !state.isNew else {
                fresh.append(card)
                continue
            }
            if state.introduced == day { introducedToday += 1 }
            guard let dueDay = state.due, dueDay <= day else { continue }
            if state.isInSteps, let dueTime = state.dueTime {
                stepping.append((card, dueTime, order))
            } else {
                due.append((card, dueDay, order))
            }
        }
        stepping.sort { ($0.dueTime, $0.order) < ($1.dueTime, $1.order) }
        due.sort { ($0.due, $0.order) < ($1.due, $1.order) }
        let ready = stepping.filter { item in now.map { item.dueTime <= $0 } ?? true }
        later = stepping.dropFirst(ready.count).map { Later(card: $0.card, dueTime: $0.dueTime) }
        let allowed = min(fresh.count, max(0, newLimit - introducedToday))
        self.cards = ready.map(\.card) + due.map(\.card) + fresh.prefix(allowed)
        dueCount = ready.count + due.count
        newCount = allowed
        newHeldBack = fresh.count - allowed
    }
}
