/// Where the cards of a deck (or of every deck) stand on one day.
///
/// Every card is exactly one of new, learning or mastered, so `new + learning + mastered == total`;
/// `due` counts the learning and mastered cards due on the day (new cards are counted apart).
public struct ReviewStats: Sendable, Hashable, Codable {
    /// The deck's ID; `nil` for the total over decks.
    public var deckID: String?
    public var title: String?
    /// Reviewed before and due on or before the day.
    public var due: Int
    /// Never reviewed.
    public var new: Int
    /// Reviewed, with an interval under ``SM2/masteredInterval`` days.
    public var learning: Int
    /// Reviewed, with an interval of ``SM2/masteredInterval`` days or more.
    public var mastered: Int
    /// Cards in the deck now; cards removed from the content keep their progress but are not counted.
    public var total: Int

    public init(
        deckID: String?, title: String?, due: Int = 0, new: Int = 0, learning: Int = 0, mastered: Int = 0,
        total: Int = 0
    ) {
        self.deckID = deckID
        self.title = title
        self.due = due
        self.new = new
        self.learning = learning
        self.mastered = mastered
        self.total = total
    }

    /// Counts `cards` by their `states` on `day`.
    public init(deckID: String?, title: String?, cards: [Card], states: [String: CardState], day: LocalDay) {
        self.init(deckID: deckID, title: title)
        for card in cards {
            total += 1
            guard let state = states[card.uuid], !state.isNew else {
                new += 1
                continue
            }
            if state.isMastered { mastered += 1 } else { learning += 1 }
            if state.isDue(on: day) { due += 1 }
        }
    }

    /// Stats for each deck and the total over them.
    public static func of(decks: [Deck], states: [String: CardState], day: LocalDay) -> (
        decks: [ReviewStats], total: ReviewStats
    ) {
        let perDeck = decks.map {
            ReviewStats(deckID: $0.id, title: $0.title, cards: $0.cards, states: states, day: day)
        }
        var total = ReviewStats(deckID: nil, title: nil)
        for stats in perDeck {
            total.due += stats.due
            total.new += stats.new
            total.learning += stats.learning
            total.mastered += stats.mastered
            total.total += stats.total
        }
        return (perDeck, total)
    }
}
