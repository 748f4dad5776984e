// What an app does with LockerKit, through its public API only: update a store from a server,
// open the active set, read a deck. `make kit-consumer` builds it; it is not run.
import Foundation
import LockerKit

@main
struct KitConsumer {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let manifestURL = URL(string: arguments[2]) else {
            print("usage: KitConsumer STORE MANIFEST-URL PUBLIC-KEY")
            return
        }
        let updater = ContentUpdater(
            store: URL(fileURLWithPath: arguments[1], isDirectory: true), manifestURL: manifestURL,
            trustedKeys: [try TrustedKey(text: arguments[3])], locales: ["en"])
        switch try await updater.update(progress: { print("\($0.files)/\($0.totalFiles) files") }) {
        case .upToDate: print("up to date")
        case .updated(let from, let to, let files, let bytes):
            print("\(from ?? 0) → \(to ?? 0): \(files) files, \(bytes) bytes")
        }
        guard let bundle = try updater.activeBundle() else { return }
        for deck in try bundle.decks(locale: "en") { print(deck.title, deck.cards.count) }
        print(ContentBundle.isSafe("deck/en/index.json"))

        // The study engine: FSRS, the day's queue with steps, previews, a review, and events
        // carried to another device's store.
        let store = try ProgressStore.inMemory()
        try store.setScheduling(Scheduling(algorithm: .fsrs, fsrs: FSRS(desiredRetention: 0.9)))
        let boundary = DayBoundary()
        let queue = try store.queue(for: try bundle.decks(locale: "en"), on: boundary.day(of: Date()), now: Date())
        if let card = queue.cards.first {
            print(try store.previews(for: card, at: Date(), boundary: boundary).map(\.label))
            let review = try store.review(card, grade: .good, at: Date(), boundary: boundary)
            print(review.next.phase, review.next.dueTime ?? Date(), review.next.stability ?? 0)
        }
        let (events, cursor): ([ProgressEvent], ProgressCursor) = try store.events(since: .start, limit: 100)
        let other = try ProgressStore.inMemory()
        let report: MergeReport = try other.merge(
            try JSONDecoder().decode([ProgressEvent].self, from: JSONEncoder().encode(events)))
        print(report.added, try JSONEncoder().encode(cursor).count, queue.later.map(\.dueTime))
    }
}
