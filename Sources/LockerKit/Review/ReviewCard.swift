/// A card together with the deck it is reviewed in.
public struct ReviewCard: Sendable, Hashable {
    public var deckID: String
    public var card: Card

    public init(deckID: String, card: Card) {
        self.deckID = deckID
        self.card = card
    }

    /// The key progress is stored under: the card's UUID, the same in every locale and build.
    public var key: String { card.uuid }

    /// Every card of the decks, in deck order.
    public static func all(in decks: [Deck]) -> [ReviewCard] {
        decks.flatMap { deck in deck.cards.map { ReviewCard(deckID: deck.id, card: $0) } }
    }
}
