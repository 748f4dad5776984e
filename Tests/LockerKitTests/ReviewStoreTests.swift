import Foundation
import LockerKit
import LockerTestSupport
import Testing

/// A progress store in a fresh temporary folder; `remove()` deletes the folder.
struct TemporaryStore {
    let folder: URL
    let path: String
    let store: ProgressStore

    /// - Parameter scheduling: SM-2 without steps unless given, the schedule these tests state.
    init(scheduling: Scheduling = .classicSM2) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-kit-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("progress.sqlite").path
        store = try ProgressStore(path: path)
        try store.setScheduling(scheduling)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// Hand-built decks and fixed times for review tests.
enum ReviewFixtures {
    static let utc = DayBoundary(timeZone: TimeZone(identifier: "UTC")!)
    static let day0 = LocalDay(year: 2026, month: 6, day: 1)!

    /// `hour` o'clock UTC on `day`: with ``utc`` it counts for `day` from 04:00 on.
    static func time(_ day: LocalDay, hour: Int = 12, seconds: Double = 0) -> Date {
        Date(timeIntervalSince1970: Double(day.ordinal * 86_400 + hour * 3_600) + seconds)
    }

    static func card(_ id: String, deck: String, front: String? = nil) -> Card {
        let text = front ?? "Question \(id)"
        return Card(
            id: id, uuid: ContentIdentity.uuidString(kind: .deck, id: deck, part: ["card", id]),
            front: [Block(.paragraph([.text(text)]))], back: [Block(.paragraph([.text("Answer \(id)")]))],
            frontText: text, source: "\(deck)/\(id).md", explicitID: true)
    }

    static func deck(_ id: String, title: String? = nil, cards: [Card]) -> Deck {
        Deck(
            id: id, uuid: ContentIdentity.uuidString(kind: .deck, id: id), locale: "en", title: title ?? id.capitalized,
            description: nil, tags: [], order: nil, source: "\(id)/_deck.md", extra: [:], cards: cards)
    }

    static func deck(_ id: String, count: Int) -> Deck {
        deck(id, cards: (0..<count).map { card("c\($0)", deck: id) })
    }
}

@Suite struct ReviewStoreTests {
    typealias F = ReviewFixtures

    // MARK: - The review log

    @Test func aReviewIsLoggedWithItsStatesGradeDayAndID() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let deck = F.deck("flags", count: 2)
        let card = ReviewCard(deckID: "flags", card: deck.cards[0])
        let id = try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000001"))
        // Milliseconds are kept, finer parts rounded.
        let time = F.time(F.day0, hour: 9, seconds: 0.1234)

        let event = try store.review(card, grade: .good, at: time, boundary: F.utc, eventID: id)
        #expect(event.id == id)
        #expect(event.kind == .review)
        #expect(event.cardKey == deck.cards[0].uuid)
        #expect(event.deckID == "flags")
        #expect(event.cardID == "c0")
        #expect(event.grade == .good)
        #expect(event.day == F.day0)
        #expect(abs(event.time.timeIntervalSince(time)) < 0.001)
        #expect(event.time.timeIntervalSince1970 * 1000 == (time.timeIntervalSince1970 * 1000).rounded())
        #expect(event.previous == .new)
        #expect(event.next == SM2.review(.new, grade: .good, on: F.day0))
        #expect(event.undoes == nil)
        #expect(try store.reviewEvents() == [event])
        #expect(try store.cardState(key: card.key) == event.next)
        #expect(try store.cardStates() == [card.key: event.next])

        // The next review starts from the stored state.
        let second = try store.review(card, grade: .easy, at: F.time(F.day0.adding(days: 1)), boundary: F.utc)
        #expect(second.previous == event.next)
        #expect(second.next == SM2.review(event.next, grade: .easy, on: F.day0.adding(days: 1)))
        #expect(second.next.interval == 6)
        #expect(try store.reviewEvents() == [event, second])
    }

    @Test func theDayOfAReviewFollowsTheBoundary() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let card = ReviewCard(deckID: "flags", card: F.card("a", deck: "flags"))
        let early = try temp.store.review(card, grade: .good, at: F.time(F.day0, hour: 1), boundary: F.utc)
        #expect(early.day == F.day0.adding(days: -1))
        #expect(early.next.due == F.day0)
        let auckland = DayBoundary(timeZone: try #require(TimeZone(identifier: "Pacific/Auckland")))
        let other = ReviewCard(deckID: "flags", card: F.card("b", deck: "flags"))
        // 20:00 UTC on 1 June is 08:00 on 2 June in Auckland (NZST, +12).
        let late = try temp.store.review(other, grade: .good, at: F.time(F.day0, hour: 20), boundary: auckland)
        #expect(late.day == F.day0.adding(days: 1))
    }

    @Test func reviewingTwiceWithTheSameEventIDStoresOneEvent() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let card = ReviewCard(deckID: "flags", card: F.card("a", deck: "flags"))
        let id = UUID()
        let first = try store.review(card, grade: .good, at: F.time(F.day0), boundary: F.utc, eventID: id)
        // A retry, even one that got the grade or time wrong, changes nothing and returns the stored event.
        let retry = try store.review(
            card, grade: .again, at: F.time(F.day0.adding(days: 3)), boundary: F.utc, eventID: id)
        #expect(retry == first)
        #expect(try store.reviewEvents().count == 1)
        let state = try store.cardState(key: card.key)
        #expect(state == first.next)
        #expect(state.reviews == 1)
        #expect(state.repetitions == 1)
    }

    @Test func undoRestoresANewCardToNew() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let card = ReviewCard(deckID: "flags", card: F.card("a", deck: "flags"))
        let review = try store.review(card, grade: .easy, at: F.time(F.day0), boundary: F.utc)
        let undoTime = F.time(F.day0, hour: 13)
        let undo = try #require(try store.undoReview(review.id, at: undoTime, boundary: F.utc))
        #expect(undo.kind == .undo)
        #expect(undo.undoes == review.id)
        #expect(undo.id != review.id)
        #expect(undo.cardKey == card.key)
        #expect(undo.grade == .easy)
        #expect(undo.previous == review.next)
        #expect(undo.next == .new)
        #expect(undo.time == undoTime)
        #expect(undo.day == F.day0)
        #expect(try store.cardStates().isEmpty, "a card undone back to new has no stored state")
        #expect(try store.cardState(key: card.key) == .new)
        #expect(try store.reviewEvents() == [review, undo], "the log only grows")

        // Undoing the same review again does nothing.
        #expect(try store.undoReview(review.id, at: undoTime, boundary: F.utc) == nil)
        #expect(try store.reviewEvents().count == 2)
        // The card is new again: the queue offers it, and it can be reviewed afresh.
        let deck = F.deck("flags", cards: [card.card])
        #expect(try store.queue(for: [deck], on: F.day0).cards == [card])
        let again = try store.review(card, grade: .good, at: F.time(F.day0, hour: 14), boundary: F.utc)
        #expect(again.previous == .new)
    }

    @Test func undoRestoresThePreviousStateExactly() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let card = ReviewCard(deckID: "flags", card: F.card("a", deck: "flags"))
        let first = try store.review(card, grade: .good, at: F.time(F.day0), boundary: F.utc)
        let second = try store.review(card, grade: .again, at: F.time(F.day0.adding(days: 1)), boundary: F.utc)
        #expect(second.next.lapses == 1)
        let undo = try #require(
            try store.undoReview(second.id, at: F.time(F.day0.adding(days: 1), hour: 13), boundary: F.utc))
        #expect(undo.next == first.next)
        #expect(try store.cardState(key: card.key) == first.next)
        #expect(try store.cardStates() == [card.key: first.next])
    }

    @Test func undoingWithTheSameEventIDTwiceStoresOneUndo() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let card = ReviewCard(deckID: "flags", card: F.card("a", deck: "flags"))
        let review = try store.review(card, grade: .good, at: F.time(F.day0), boundary: F.utc)
        let undoID = UUID()
        let undo = try store.undoReview(review.id, at: F.time(F.day0, hour: 13), boundary: F.utc, eventID: undoID)
        let retry = try store.undoReview(review.id, at: F.time(F.day0, hour: 14), boundary: F.utc, eventID: undoID)
        #expect(undo != nil)
        #expect(retry == undo)
        #expect(try store.reviewEvents().count == 2)
        // An undo's ID replayed as a review is refused, not mistaken for one.
        #expect(throws: ProgressStoreError.self) {
            try store.review(card, grade: .easy, at: F.time(F.day0, hour: 15), boundary: F.utc, eventID: undoID)
        }
        #expect(try store.reviewEvents().count == 2)
    }

    @Test func undoOfAnUnknownReviewOrOfAnUndoIsNil() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        #expect(try store.undoReview(UUID(), at: F.time(F.day0), boundary: F.utc) == nil)
        #expect(try store.undoLastReview(at: F.time(F.day0), boundary: F.utc) == nil)
        let card = ReviewCard(deckID: "flags", card: F.card("a", deck: "flags"))
        let review = try store.review(card, grade: .good, at: F.time(F.day0), boundary: F.utc)
        let undo = try #require(try store.undoReview(review.id, at: F.time(F.day0), boundary: F.utc))
        #expect(try store.undoReview(undo.id, at: F.time(F.day0), boundary: F.utc) == nil)
        #expect(try store.reviewEvents().count == 2)
    }

    @Test func undoOfAReviewFollowedByAnotherReviewOfTheCardIsNil() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let card = ReviewCard(deckID: "flags", card: F.card("a", deck: "flags"))
        let first = try store.review(card, grade: .good, at: F.time(F.day0), boundary: F.utc)
        let second = try store.review(card, grade: .good, at: F.time(F.day0.adding(days: 1)), boundary: F.utc)
        #expect(try store.undoReview(first.id, at: F.time(F.day0.adding(days: 1)), boundary: F.utc) == nil)
        #expect(try store.cardState(key: card.key) == second.next)
        #expect(try store.reviewEvents().count == 2)
        // A review of another card in between does not stand in the way.
        let other = ReviewCard(deckID: "flags", card: F.card("b", deck: "flags"))
        try store.review(other, grade: .good, at: F.time(F.day0.adding(days: 1)), boundary: F.utc)
        let undo = try store.undoReview(second.id, at: F.time(F.day0.adding(days: 1)), boundary: F.utc)
        #expect(undo?.next == first.next)
    }

    @Test func undoLastReviewWalksBackThroughSuccessiveReviews() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let a = ReviewCard(deckID: "flags", card: F.card("a", deck: "flags"))
        let b = ReviewCard(deckID: "flags", card: F.card("b", deck: "flags"))
        let a1 = try store.review(a, grade: .good, at: F.time(F.day0), boundary: F.utc)
        let b1 = try store.review(b, grade: .hard, at: F.time(F.day0, hour: 13), boundary: F.utc)
        let a2 = try store.review(a, grade: .easy, at: F.time(F.day0.adding(days: 1)), boundary: F.utc)
        let undoTime = F.time(F.day0.adding(days: 1), hour: 13)

        let u1 = try store.undoLastReview(at: undoTime, boundary: F.utc)
        #expect(u1?.undoes == a2.id)
        #expect(try store.cardStates() == [a.key: a1.next, b.key: b1.next])
        let u2 = try store.undoLastReview(at: undoTime, boundary: F.utc)
        #expect(u2?.undoes == b1.id)
        #expect(try store.cardStates() == [a.key: a1.next])
        let u3 = try store.undoLastReview(at: undoTime, boundary: F.utc)
        #expect(u3?.undoes == a1.id)
        #expect(try store.cardStates().isEmpty)
        #expect(try store.undoLastReview(at: undoTime, boundary: F.utc) == nil)

        // Every event is still in the log, in order: it is append-only.
        let events = try store.reviewEvents()
        #expect(events.map(\.kind) == [.review, .review, .review, .undo, .undo, .undo])
        #expect(events.prefix(3).map(\.id) == [a1.id, b1.id, a2.id])
        #expect(events.suffix(3).map(\.undoes) == [a2.id, b1.id, a1.id])
        #expect(try store.reviewEvents(cardKey: a.key).map(\.id) == [a1.id, a2.id, u1?.id, u3?.id].compactMap { $0 })
        #expect(try store.reviewEvents(cardKey: b.key).map(\.id) == [b1.id, u2?.id].compactMap { $0 })
    }

    @Test func theLogKeepsEveryEventThroughReviewsAndUndos() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let deck = F.deck("flags", count: 5)
        var random = SplitMix64(seed: 99)
        var expected: [UUID] = []
        var day = F.day0
        for step in 0..<60 {
            let card = ReviewCard(deckID: deck.id, card: deck.cards[Int.random(in: 0..<5, using: &random)])
            if step % 7 == 6, let undo = try store.undoLastReview(at: F.time(day), boundary: F.utc) {
                expected.append(undo.id)
            } else {
                let grade = Grade.allCases.randomElement(using: &random)!
                expected.append(try store.review(card, grade: grade, at: F.time(day), boundary: F.utc).id)
            }
            if step % 5 == 4 { day = day.adding(days: 1) }
        }
        #expect(try store.reviewEvents().map(\.id) == expected)
        #expect(expected.count == 60)
        // Replaying the whole log's reviews and undos from new gives the stored states.
        var states: [String: CardState] = [:]
        for event in try store.reviewEvents() {
            #expect((states[event.cardKey] ?? .new) == event.previous)
            states[event.cardKey] = event.next.isNew ? nil : event.next
        }
        #expect(try store.cardStates() == states)
    }

    // MARK: - Queue

    @Test func newCardsComeInDeckOrderUpToTheDefaultLimit() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let deck = F.deck("flags", count: 30)
        let queue = try temp.store.queue(for: [deck], on: F.day0)
        #expect(ReviewQueue.defaultNewLimit == 20)
        #expect(queue.day == F.day0)
        #expect(queue.cards.map(\.card.id) == (0..<20).map { "c\($0)" })
        #expect(queue.cards.allSatisfy { $0.deckID == "flags" })
        #expect(queue.newCount == 20)
        #expect(queue.dueCount == 0)
        #expect(queue.newHeldBack == 10)
    }

    @Test func cardsIntroducedTodayCountAgainstTheLimit() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let deck = F.deck("flags", count: 30)
        for card in deck.cards.prefix(5) {
            try store.review(ReviewCard(deckID: deck.id, card: card), grade: .good, at: F.time(F.day0), boundary: F.utc)
        }
        let queue = try store.queue(for: [deck], on: F.day0)
        #expect(queue.newCount == 15)
        #expect(queue.dueCount == 0, "reviewed cards are due tomorrow")
        #expect(queue.cards.map(\.card.id) == (5..<20).map { "c\($0)" })
        #expect(queue.newHeldBack == 10)

        // Tomorrow: the five are due first, then a full day's 20 new cards.
        let tomorrow = try store.queue(for: [deck], on: F.day0.adding(days: 1))
        #expect(tomorrow.dueCount == 5)
        #expect(tomorrow.newCount == 20)
        #expect(tomorrow.cards.map(\.card.id) == (0..<25).map { "c\($0)" })
        #expect(tomorrow.newHeldBack == 5)
    }

    @Test func undoingAFirstReviewGivesItsNewCardBack() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let deck = F.deck("flags", count: 30)
        for card in deck.cards.prefix(5) {
            try store.review(ReviewCard(deckID: deck.id, card: card), grade: .good, at: F.time(F.day0), boundary: F.utc)
        }
        try store.undoLastReview(at: F.time(F.day0), boundary: F.utc)
        let queue = try store.queue(for: [deck], on: F.day0)
        #expect(queue.newCount == 16)
        #expect(queue.cards.map(\.card.id) == ["c4"] + (5..<20).map { "c\($0)" })
    }

    @Test func dueCardsComeOldestDueFirstThenNewCardsInDeckOrder() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let flags = F.deck("flags", count: 6)
        let knots = F.deck("knots", count: 3)
        func review(_ deck: Deck, _ index: Int, _ grade: Grade, on day: LocalDay) throws {
            try store.review(
                ReviewCard(deckID: deck.id, card: deck.cards[index]), grade: grade, at: F.time(day), boundary: F.utc)
        }
        let today = F.day0.adding(days: 10)
        try review(flags, 4, .good, on: today.adding(days: -3))  // due today − 2
        try review(flags, 1, .good, on: today.adding(days: -1))  // due today
        try review(knots, 2, .again, on: today.adding(days: -2))  // due today − 1
        try review(flags, 2, .good, on: today)  // due tomorrow: not in the queue
        try review(knots, 0, .good, on: today.adding(days: -1))  // due today, after flags c1 in order

        let queue = try store.queue(for: [flags, knots], on: today)
        #expect(
            queue.cards.map { "\($0.deckID)/\($0.card.id)" } == [
                "flags/c4", "knots/c2", "flags/c1", "knots/c0",
                "flags/c0", "flags/c3", "flags/c5", "knots/c1",
            ])
        #expect(queue.dueCount == 4)
        #expect(queue.newCount == 4)
        #expect(queue.newHeldBack == 0)
    }

    @Test func aNewLimitOfZeroGivesOnlyDueCards() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let deck = F.deck("flags", count: 4)
        try store.review(
            ReviewCard(deckID: deck.id, card: deck.cards[2]), grade: .good, at: F.time(F.day0), boundary: F.utc)
        let queue = try store.queue(for: [deck], on: F.day0.adding(days: 1), newLimit: 0)
        #expect(queue.cards.map(\.card.id) == ["c2"])
        #expect(queue.newCount == 0)
        #expect(queue.dueCount == 1)
        #expect(queue.newHeldBack == 3)
        #expect(
            try store.queue(for: [deck], on: F.day0.adding(days: 1), newLimit: 2).cards.map(\.card.id) == [
                "c2", "c0", "c1",
            ])
    }

    // MARK: - Stats

    @Test func statsPerDeckAndOverall() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let a = F.deck("alpha", title: "Alpha", cards: (0..<4).map { F.card("a\($0)", deck: "alpha") })
        let b = F.deck("bravo", title: "Bravo", cards: (0..<3).map { F.card("b\($0)", deck: "bravo") })
        func review(_ deck: Deck, _ index: Int, _ grade: Grade, after days: Int) throws {
            try store.review(
                ReviewCard(deckID: deck.id, card: deck.cards[index]), grade: grade,
                at: F.time(F.day0.adding(days: days)),
                boundary: F.utc)
        }
        // a1: good on days 0, 1, 7, 22 → intervals 1, 6, 15, 38: mastered, due on day 60.
        for day in [0, 1, 7, 22] { try review(a, 1, .good, after: day) }
        // b0: good on days 0, 1, 7 → interval 15: learning, due on day 22.
        for day in [0, 1, 7] { try review(b, 0, .good, after: day) }
        // a0 good and a2 again on day 22: learning, due on day 23.
        try review(a, 0, .good, after: 22)
        try review(a, 2, .again, after: 22)

        let day = F.day0.adding(days: 23)
        let (decks, total) = try store.stats(for: [a, b], on: day)
        #expect(decks.count == 2)
        #expect(
            decks[0] == ReviewStats(deckID: "alpha", title: "Alpha", due: 2, new: 1, learning: 2, mastered: 1, total: 4)
        )
        #expect(
            decks[1] == ReviewStats(deckID: "bravo", title: "Bravo", due: 1, new: 2, learning: 1, mastered: 0, total: 3)
        )
        #expect(total == ReviewStats(deckID: nil, title: nil, due: 3, new: 3, learning: 3, mastered: 1, total: 7))
        for stats in decks + [total] { #expect(stats.new + stats.learning + stats.mastered == stats.total) }

        // On day 60 the mastered card is due too; on day 22 only b0 is.
        #expect(try store.stats(for: [a, b], on: F.day0.adding(days: 60)).total.due == 4)
        #expect(try store.stats(for: [a, b], on: F.day0.adding(days: 22)).total.due == 1)
    }

    @Test func masteredStartsAtAnIntervalOf21Days() {
        let card20 = F.card("x", deck: "d")
        let card21 = F.card("y", deck: "d")
        func state(_ interval: Int) -> CardState {
            CardState(
                repetitions: 3, ease: 2500, interval: interval, due: F.day0.adding(days: interval),
                lastReviewed: F.day0,
                introduced: F.day0, reviews: 3, lapses: 0)
        }
        let stats = ReviewStats(
            deckID: "d", title: "D", cards: [card20, card21], states: [card20.uuid: state(20), card21.uuid: state(21)],
            day: F.day0.adding(days: 20))
        #expect(stats.learning == 1)
        #expect(stats.mastered == 1)
        #expect(stats.due == 1)
        #expect(stats.new == 0)
        #expect(SM2.masteredInterval == 21)
    }

    // MARK: - Content refresh

    @Test func progressSurvivesANewVersionOfTheDeck() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let c1 = F.card("c1", deck: "flags", front: "Diver down")
        let c2 = F.card("c2", deck: "flags", front: "Dangerous cargo")
        let c3 = F.card("c3", deck: "flags", front: "Yes")
        let v1 = F.deck("flags", cards: [c1, c2, c3])
        let r1 = try store.review(
            ReviewCard(deckID: "flags", card: c1), grade: .good, at: F.time(F.day0), boundary: F.utc)
        let r2 = try store.review(
            ReviewCard(deckID: "flags", card: c2), grade: .good, at: F.time(F.day0), boundary: F.utc)
        #expect(try store.stats(for: [v1], on: F.day0).total.learning == 2)

        // The new version: c1's text edited (same ID and UUID), c2 removed, c4 added.
        let c1Edited = F.card("c1", deck: "flags", front: "Alpha: diver down, keep clear")
        #expect(c1Edited.uuid == c1.uuid && c1Edited != c1)
        let c4 = F.card("c4", deck: "flags", front: "Man overboard")
        let v2 = F.deck("flags", cards: [c1Edited, c3, c4])

        let stats = try store.stats(for: [v2], on: F.day0.adding(days: 1)).decks[0]
        #expect(
            stats == ReviewStats(deckID: "flags", title: "Flags", due: 1, new: 2, learning: 1, mastered: 0, total: 3))
        let queue = try store.queue(for: [v2], on: F.day0.adding(days: 1))
        #expect(queue.cards.map(\.card) == [c1Edited, c3, c4])
        #expect(queue.dueCount == 1)
        #expect(!queue.cards.contains { $0.key == c2.uuid })
        // The removed card's progress is kept, should it come back.
        #expect(try store.cardStates() == [c1.uuid: r1.next, c2.uuid: r2.next])
        let v3 = F.deck("flags", cards: [c1Edited, c2, c3, c4])
        #expect(try store.stats(for: [v3], on: F.day0.adding(days: 1)).total.learning == 2)
        // And the edited card goes on from its state.
        let next = try store.review(
            ReviewCard(deckID: "flags", card: c1Edited), grade: .good, at: F.time(F.day0.adding(days: 1)),
            boundary: F.utc)
        #expect(next.previous == r1.next)
        #expect(next.next.interval == 6)
    }

    // MARK: - The file

    @Test func integrityCheckIsOK() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        try temp.store.review(
            ReviewCard(deckID: "flags", card: F.card("a", deck: "flags")), grade: .good, at: F.time(F.day0),
            boundary: F.utc)
        #expect(try temp.store.integrityCheck() == ["ok"])
    }

    @Test func aFileThatIsNotADatabaseCannotBeOpenedAndIsLeftAlone() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-kit-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SplitMix64(seed: 1)
        let garbage = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) })
        let path = folder.appendingPathComponent("progress.sqlite").path
        try garbage.write(to: URL(fileURLWithPath: path))

        let error = #expect(throws: ProgressStoreError.self) { try ProgressStore(path: path) }
        guard case .cannotOpen(let reported, _) = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(reported == path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage, "the file must not be changed")
    }

    @Test func aFileWithASQLiteHeaderButGarbageAfterItCannotBeOpened() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-kit-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SplitMix64(seed: 2)
        let garbage =
            Data("SQLite format 3\0".utf8) + Data((0..<4080).map { _ in UInt8.random(in: 0...255, using: &random) })
        let path = folder.appendingPathComponent("progress.sqlite").path
        try garbage.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: ProgressStoreError.self) { try ProgressStore(path: path) }
        if case .cannotOpen = error {} else { Issue.record("expected cannotOpen, got \(String(describing: error))") }
    }

    @Test func aPathInAMissingFolderCannotBeOpened() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-kit-missing-\(UUID().uuidString)/p.sqlite"
        ).path
        let error = #expect(throws: ProgressStoreError.self) { try ProgressStore(path: path) }
        if case .cannotOpen(let reported, _) = error {
            #expect(reported == path)
        } else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
        }
    }

    @Test func reopeningAStoreKeepsEverything() throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let card = ReviewCard(deckID: "flags", card: F.card("a", deck: "flags"))
        let charterID = UUID()
        let checklist = Checklist(
            id: "check-in", uuid: ContentIdentity.uuidString(kind: .checklist, id: "check-in"), locale: "en",
            title: "Check-in", subtitle: nil, checklistType: .checkIn, tags: [], aliases: [], order: nil,
            source: "check-in.md", extra: [:], blocks: [],
            sections: [
                ChecklistSection(
                    id: "deck", uuid: "s", anchor: "deck", title: "Deck", titleSpans: [], note: [],
                    subsections: [
                        ChecklistSubsection(
                            id: "deck", uuid: "ss", anchor: nil, title: nil, titleSpans: nil, note: [],
                            items: [
                                ChecklistItem(
                                    id: "sheets", uuid: "i", title: "Sheets", titleSpans: [], guidance: [],
                                    explicitID: true)
                            ])
                    ])
            ])
        let events: [ReviewEvent]
        let states: [String: CardState]
        let charters: [Charter]
        let records: [String: ItemRecord]
        do {
            let store = try ProgressStore(path: temp.path)
            try store.review(card, grade: .good, at: F.time(F.day0), boundary: F.utc)
            let second = try store.review(card, grade: .good, at: F.time(F.day0.adding(days: 1)), boundary: F.utc)
            try store.undoReview(second.id, at: F.time(F.day0.adding(days: 1)), boundary: F.utc)
            try store.createCharter(
                CharterDraft(name: "Adriatic", startDate: F.day0), at: F.time(F.day0), id: charterID)
            _ = try store.openRun(charterID: charterID, checklist: checklist)
            try store.setItem(
                "sheets", to: .checked, note: "frayed", charterID: charterID, checklistID: "check-in",
                at: F.time(F.day0))
            events = try store.reviewEvents()
            states = try store.cardStates()
            charters = try store.charters()
            records = try store.itemRecords(charterID: charterID, checklistID: "check-in")
        }
        let reopened = try ProgressStore(path: temp.path)
        #expect(events.count == 3)
        #expect(try reopened.reviewEvents() == events)
        #expect(try reopened.cardStates() == states)
        #expect(states.count == 1)
        #expect(try reopened.charters() == charters)
        #expect(charters.count == 1)
        #expect(try reopened.itemRecords(charterID: charterID, checklistID: "check-in") == records)
        #expect(records["sheets"]?.note == "frayed")
        #expect(try reopened.integrityCheck() == ["ok"])
        // Also when the first store is still open (two connections to one file).
        #expect(try temp.store.reviewEvents() == events)
    }

    @Test func manyEasyReviewsStillReadBack() throws {
        // Easy after easy (the store lets a card be reviewed before it is due) grows the interval
        // past 9999-12-31 in 13 reviews; whatever the store saves it must be able to read back.
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let store = temp.store
        let card = ReviewCard(deckID: "flags", card: F.card("a", deck: "flags"))
        var last: ReviewEvent?
        for _ in 0..<13 {
            last = try store.review(card, grade: .easy, at: F.time(F.day0), boundary: F.utc)
        }
        let state = try store.cardState(key: card.key)
        #expect(state == last?.next)
        #expect(try store.reviewEvents().count == 13)
    }
}
