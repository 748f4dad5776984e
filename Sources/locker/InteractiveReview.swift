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
            let state = try session.store.cardState(key: card.key)
            let choices = Grade.allCases.map { grade -> String in
                let next = Scheduler.review(state, grade: grade, on: session.options.day)
                return "\(Style.bold(String(grade.rawValue + 1))) \(grade.name) (\(Self.days(next.interval)))"
            }
            terminal.write(choices.joined(separator: "   ") + Style.dim("   · u: undo · q: quit") + "\n")
            grading: while true {
                switch terminal.readKey() {
                case .character(let key) where ("1"..."4").contains(key):
                    if let grade = ReviewSession.grade(String(key)) { _ = try session.grade(grade) }
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
        var text = "Reviewed \(session.done.count) of \(session.total) card\(session.total == 1 ? "" : "s")"
        if !session.done.isEmpty {
            text += ": " + Grade.allCases.map { "\($0.name) \(counts[$0] ?? 0)" }.joined(separator: ", ")
        }
        text += ".\n"
        if !session.pending.isEmpty { text += "\(session.pending.count) left for today.\n" }
        return text + (try upcoming())
    }

    private func nothingToday() throws -> String {
        var text = "Nothing to review today (\(session.options.day))."
        if queue.newHeldBack > 0 { text += " \(queue.newHeldBack) new cards wait for the next days (--new-limit)." }
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

    static func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }
}

extension ProgressStore {
    /// Whether the card has never been reviewed.
    func cardStateIsNew(_ card: ReviewCard) -> Bool { (try? cardState(key: card.key).isNew) ?? true }
}
