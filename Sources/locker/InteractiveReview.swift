import Foundation
import LockerKit

/// `locker review` on a terminal: front, Enter, back, a key for the grade.
struct InteractiveReview {
    var session: ReviewSession
    let decks: [Deck]
    let queue: ReviewQueue
    let terminal = Terminal()

    func run() throws {
        var session = session
        guard session.current != nil else {
            terminal.write(try nothingToday())
            return
        }
        terminal.enterRawMode()
        defer { terminal.leaveRawMode() }
        var message = ""
        sitting: while let card = session.current {
            terminal.clear()
            let position = session.done.count + 1
            let title = decks.first { $0.id == card.deckID }?.title ?? card.deckID
            var header = "\(title) · \(position) of \(session.total)"
            if session.store.cardStateIsNew(card) { header += " · " + Style.green("new") }
            terminal.write(Style.dim(header) + "\n\n")
            terminal.write(
                Self.indent(card.card.front.plainText.isEmpty ? card.card.frontText : card.card.front.plainText)
                    + "\n\n")
            if !message.isEmpty { terminal.write(Style.dim(message) + "\n") }
            terminal.write(Style.dim("Enter: show the answer · u: undo · q: quit") + "\n")
            message = ""
            reveal: while true {
                switch terminal.readKey() {
                case .enter, .character(" "): break reveal
                case .character("u"):
                    if try session.undo() != nil { continue sitting }
                    message = "Nothing to undo in this sitting."
                    continue sitting
                case .character("q"), .interrupt: break sitting
                default: continue
                }
            }
            terminal.write(Style.dim(String(repeating: "─", count: min(Terminal.width, 60))) + "\n\n")
            terminal.write(Self.indent(card.card.back.plainText) + "\n\n")
            let previews = try session.store.previews(
                for: card, at: session.options.now, boundary: session.options.progress.boundary)
            terminal.write(Self.choices(previews) + Style.dim("   · u: undo · q: quit") + "\n")
            grading: while true {
                switch terminal.readKey() {
                case .character(let key) where ("1"..."4").contains(key):
                    if let grade = ReviewSession.grade(String(key)) { _ = try session.grade(grade, of: card) }
                    break grading
                case .character("u"):
                    if try session.undo() == nil { message = "Nothing to undo in this sitting." }
                    break grading
                case .character("q"), .interrupt: break sitting
                default: continue
                }
            }
        }
        terminal.leaveRawMode()
        terminal.clear()
        terminal.write(try summary(of: session))
    }

    private func summary(of session: ReviewSession) throws -> String {
        var counts: [Grade: Int] = [:]
        for (_, event) in session.done { counts[event.grade, default: 0] += 1 }
        let cards = Set(session.done.map(\.card.key)).count
        var text = "Reviewed \(cards) card\(cards == 1 ? "" : "s")"
        if session.done.count != cards { text += " (\(session.done.count) answers)" }
        if !session.done.isEmpty {
            text += ": " + Grade.allCases.map { "\($0.name) \(counts[$0] ?? 0)" }.joined(separator: ", ")
        }
        text += ".\n"
        if !session.pending.isEmpty { text += "\(session.pending.count) left for today.\n" }
        if let next = session.later.first {
            let count = session.later.count
            text +=
                "\(count) card\(count == 1 ? "" : "s") in learning come\(count == 1 ? "s" : "") back from "
                + "\(Self.clock(next.dueTime)): review again then.\n"
        }
        return text + (try upcoming())
    }

    private func nothingToday() throws -> String {
        var text = "Nothing to review now (\(session.options.day))."
        if queue.newHeldBack > 0 { text += " \(queue.newHeldBack) new cards wait for the next days (--new-limit)." }
        if let next = queue.later.first {
            text +=
                " \(queue.later.count) card\(queue.later.count == 1 ? "" : "s") in learning come back from \(Self.clock(next.dueTime))."
        }
        return text + "\n" + (try upcoming())
    }

    /// When the next cards are due.
    private func upcoming() throws -> String {
        let states = try session.store.cardStates()
        let today = session.options.day
        let dues = ReviewCard.all(in: decks).compactMap { states[$0.key]?.due }.filter { $0 > today }
        guard let next = dues.min() else { return "" }
        let count = dues.filter { $0 == next }.count
        return "Next: \(count) card\(count == 1 ? "" : "s") on \(next) (in \(Self.days(today.days(until: next)))).\n"
    }

    static func days(_ count: Int) -> String { count == 1 ? "1 day" : "\(count) days" }

    /// The answer keys with the wait each grade gives: `1 again 1m · 2 hard 6m · 3 good 10m · 4 easy 4d`.
    static func choices(_ previews: [IntervalPreview]) -> String {
        previews.map { "\(Style.bold(String($0.grade.rawValue + 1))) \($0.grade.name) \($0.label)" }
            .joined(separator: Style.dim(" · "))
    }

    /// `14:05`, local time.
    static func clock(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "HH:mm"
        return formatter.string(from: date)
    }

    static func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }
}

extension ProgressStore {
    /// Whether the card has never been reviewed.
    func cardStateIsNew(_ card: ReviewCard) -> Bool { (try? cardState(key: card.key).isNew) ?? true }
}
