import ArgumentParser
import Foundation
import LockerKit

/// `locker stats`: where each deck stands today.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show, for each deck and in total, the cards due today, new, learning and mastered.",
        discussion: """
            Due: reviewed before and due today or earlier. New: never reviewed. Learning: an \
            interval under 21 days. Mastered: 21 days or more. Cards removed from the content keep \
            their progress in the database but are not counted.
            """)

    @Argument(help: "Only this deck (ID or title).")
    var deck: String?

    @OptionGroup var options: RuntimeOptions

    @Option(help: "text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let decks = try options.decks(named: deck)
        let store = try options.openStore()
        let (perDeck, total) = try store.stats(for: decks, on: options.day)
        switch format {
        case .json:
            struct Report: Encodable {
                var day: String
                var decks: [ReviewStats]
                var total: ReviewStats
            }
            try JSONLines.write(Report(day: options.day.description, decks: perDeck, total: total))
        case .text:
            let rows = perDeck.map { ($0.title ?? $0.deckID ?? "", $0) } + [("Total", total)]
            let width = max(4, rows.map(\.0.count).max() ?? 0)
            func pad(_ text: String, _ count: Int) -> String {
                text + String(repeating: " ", count: max(0, count - text.count))
            }
            func right(_ text: String) -> String { String(repeating: " ", count: max(0, 9 - text.count)) + text }
            func number(_ value: Int) -> String { right(String(value)) }
            var out =
                pad("Deck", width) + "  " + ["Due", "New", "Learning", "Mastered", "Total"].map(right).joined() + "\n"
            for (offset, (title, stats)) in rows.enumerated() {
                if offset == rows.count - 1 { out += String(repeating: "─", count: width + 2 + 45) + "\n" }
                out +=
                    pad(title, width) + "  "
                    + [stats.due, stats.new, stats.learning, stats.mastered, stats.total].map(number).joined() + "\n"
            }
            out +=
                "Day: \(options.day) (starts at \(options.progress.dayStartsAt):00). Progress: \(options.progress.progressPath)\n"
            FileHandle.standardOutput.write(Data(out.utf8))
        }
    }
}

/// How a command prints what it reports.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
