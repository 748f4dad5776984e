/// The cards to review on one day: due cards, oldest due first, then new cards up to the day's limit.
public struct ReviewQueue: Sendable, Hashable {
    /// The day the queue is for.
    public var day: LocalDay
    /// In the order to show them.
    public var cards: [ReviewCard]
    /// How many of `cards` were reviewed before and are due.
    public var dueCount: Int
    /// How many of `cards` are new.
    public var newCount: Int
    /// New cards left out today because of the daily limit.
    public var newHeldBack: Int

    /// The default number of new cards a day.
    public static let defaultNewLimit = 20

    /// Builds the queue of `cards` from their states.
    ///
    /// - Parameters:
    ///   - states: by ``ReviewCard/key``; a card with none is new.
    ///   - newLimit: new cards a day; cards first reviewed on `day` count against it, so quitting
    ///     and coming back the same day does not bring more.
    public init(cards: [ReviewCard], states: [String: CardState], day: LocalDay, newLimit: Int = defaultNewLimit) {
        self.day = day
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
            if let dueDay = state.due, dueDay <= day { due.append((card, dueDay, order)) }
        }
        due.sort { ($0.due, $0.order) < ($1.due, $1.order) }
        let allowed = min(fresh.count, max(0, newLimit - introducedToday))
        self.cards = due.map(\.card) + fresh.prefix(allowed)
        dueCount = due.count
        newCount = allowed
        newHeldBack = fresh.count - allowed
    }
}
