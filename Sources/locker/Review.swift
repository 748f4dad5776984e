import ArgumentParser
import Foundation
import LockerCore
import LockerKit

/// `locker review`: today's flashcards from a bundle, with progress in the database.
struct Review: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Review today's flashcards: due cards first, then new ones.",
        discussion: """
            On a terminal: Enter shows the answer, 1–4 grade it (again, hard, good, easy), \
            u undoes the last grade, q quits. Each grade is saved before the next card shows.

            When standard input is not a terminal, it reads one grade per line (again, hard, good, \
            easy, or 1–4 as on the keyboard; u to undo, q to stop) and prints one JSON line per \
            answered card: {"card", "deck", "grade", "phase", "ease", "interval", "due", "event"}, \
            with "step" and "dueTime" while the card is in its learning steps and "stability" and \
            "difficulty" under FSRS, written once the review is saved.

            A new or forgotten card comes back after its steps (1 and 10 minutes by default) in \
            the same sitting; when nothing else is left, one due within 20 minutes comes early. \
            --scheduler, --steps and the FSRS options change what the database keeps: switching \
            replays its review log under the new scheduler.

            Exit codes: 0 done, 1 a line that is not a grade, 2 bad usage or an unreadable file or \
            database, 3 the bundle failed verification.

            Examples:
              locker review sound-signals --progress progress.sqlite
              printf 'good\\neasy\\n' | locker review sound-signals --progress p.sqlite --today 2026-06-01
              locker review --scheduler fsrs --retention 0.9 --steps 1m,10m
            """)

    @Argument(help: "The deck: its ID or title. All decks when left out.")
    var deck: String?

    @OptionGroup var options: RuntimeOptions

    @OptionGroup(title: "Scheduling") var scheduling: SchedulingOptions

    @Option(help: "New cards a day.")
    var newLimit: Int = ReviewQueue.defaultNewLimit

    func validate() throws {
        guard newLimit >= 0 else { throw ValidationError("--new-limit cannot be negative.") }
    }

    func run() throws {
        let decks = try options.decks(named: deck)
        let store = try options.openStore()
        _ = try scheduling.apply(to: store)
        let queue = try store.queue(for: decks, on: options.day, newLimit: newLimit, now: options.now)
        var session = ReviewSession(store: store, options: options, queue: queue)
        if Terminal.inputIsInteractive {
            try InteractiveReview(session: session, decks: decks, queue: queue).run()
        } else {
            try session.runScript()
        }
    }
}

/// The cards of one sitting and what was done to them; shared by both front-ends.
struct ReviewSession {
    let store: ProgressStore
    let options: RuntimeOptions
    /// Cards still to show, in the queue's order.
    var pending: [ReviewCard]
    /// Cards in their steps that come back later in the sitting, soonest first.
    var later: [ReviewQueue.Later]
    /// Reviews saved in this sitting, latest last, with the card they were for.
    var done: [(card: ReviewCard, event: ReviewEvent)] = []

    init(store: ProgressStore, options: RuntimeOptions, queue: ReviewQueue) {
        self.store = store
        self.options = options
        self.pending = queue.cards
        self.later = queue.later
    }

    /// The card to show now: one back from its steps, else the next in the queue, else (when
    /// nothing else is left) one due within ``ReviewQueue/learnAheadLimit``.
    var current: ReviewCard? {
        let now = options.now
        if let back = later.first, back.dueTime <= now { return back.card }
        if let next = pending.first { return next }
        if let soon = later.first, soon.dueTime <= now.addingTimeInterval(ReviewQueue.learnAheadLimit) {
            return soon.card
        }
        return nil
    }

    /// Cards still to show in this sitting, the one coming back included.
    var left: Int { pending.count + later.count }
    var total: Int { left + done.count }

    /// Grades `card`, the one shown (by default the current one: a card back from its steps may
    /// become current while another is on the screen).
    mutating func grade(_ grade: Grade, of shown: ReviewCard? = nil) throws -> ReviewEvent? {
        guard let card = shown ?? current else { return nil }
        let event = try store.review(card, grade: grade, at: options.now, boundary: options.progress.boundary)
        take(card)
        comeBack(card, event.next)
        done.append((card, event))
        return event
    }

    /// Undoes the last review of this sitting and puts its card back in front.
    mutating func undo() throws -> ReviewEvent? {
        guard let last = done.last,
            let undo = try store.undoReview(last.event.id, at: options.now, boundary: options.progress.boundary)
        else { return nil }
        done.removeLast()
        take(last.card)
        pending.insert(last.card, at: 0)
        return undo
    }

    private mutating func take(_ card: ReviewCard) {
        if let index = later.firstIndex(where: { $0.card == card }) {
            later.remove(at: index)
        } else if let index = pending.firstIndex(of: card) {
            pending.remove(at: index)
        }
    }

    /// Puts a card in its steps back in the sitting, if its step ends today.
    private mutating func comeBack(_ card: ReviewCard, _ state: CardState) {
        guard state.isInSteps, let dueTime = state.dueTime, state.isDue(on: options.day) else { return }
        let back = ReviewQueue.Later(card: card, dueTime: dueTime)
        later.insert(back, at: later.firstIndex { $0.dueTime > dueTime } ?? later.endIndex)
    }

    /// One answer per line of standard input, one JSON line per saved review.
    mutating func runScript() throws {
        var lineNumber = 0
        while current != nil || done.last != nil, let line = readLine() {
            lineNumber += 1
            let answer = line.trimmingCharacters(in: .whitespaces).lowercased()
            if answer.isEmpty { continue }
            if answer == "q" || answer == "quit" { break }
            if answer == "u" || answer == "undo" {
                if let event = try undo() {
                    try JSONLines.write(ScriptLine(undo: event))
                } else {
                    printError("locker: stdin:\(lineNumber): nothing to undo")
                }
                continue
            }
            // Only an undo can follow the last card.
            guard current != nil else { break }
            guard let grade = Self.grade(answer) else {
                printError(
                    "locker: stdin:\(lineNumber): '\(line)' is not a grade: again, hard, good, easy, 1–4, u (undo) or q (quit)"
                )
                throw ExitCode(1)
            }
            if let event = try self.grade(grade) { try JSONLines.write(ScriptLine(review: event)) }
        }
    }

    /// A grade by name or by its key (1 again … 4 easy).
    static func grade(_ answer: String) -> Grade? {
        if let key = Int(answer), (1...4).contains(key) { return Grade(rawValue: key - 1) }
        return Grade(name: answer)
    }
}

/// One line of `locker review`'s scripted output.
struct ScriptLine: Encodable {
    var card: String
    var deck: String
    var grade: String
    var phase: String
    var ease: Int
    var interval: Int
    var due: String?
    var step: Int?
    var dueTime: String?
    var stability: Double?
    var difficulty: Double?
    var event: String
    var undo: Bool?

    init(review event: ReviewEvent) {
        card = event.cardID
        deck = event.deckID
        grade = event.grade.name
        phase = event.next.phase.rawValue
        ease = event.next.ease
        interval = event.next.interval
        due = event.next.due?.description
        step = event.next.step
        dueTime = event.next.dueTime.map(Self.timestamp)
        stability = event.next.stability
        difficulty = event.next.difficulty
        self.event = event.id.uuidString.lowercased()
    }

    /// The state the card went back to, and `"undo": true`.
    init(undo event: ReviewEvent) {
        self.init(review: event)
        undo = true
    }

    /// `2026-06-01T12:10:00.000Z`.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
