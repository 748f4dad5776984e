import ArgumentParser
import Foundation
import LockerCore
import LockerKit

/// `locker checklist`: work through a checklist for a charter.
struct ChecklistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checklist",
        abstract: "Tick a checklist for a charter, and export it as a Markdown report.",
        discussion: """
            On a terminal it walks through the items, starting at the first open one: x or Enter \
            checks an item, n marks it not applicable, o opens it again, e edits its note, ↑/↓ or \
            j/k move, s jumps to the next section, q quits. Every change is saved at once.

            When standard input is not a terminal it reads one command per line and prints one \
            JSON line per change: 'check ID', 'na ID', 'uncheck ID', 'note ID TEXT' (an empty \
            TEXT removes the note).

            When the bundle brings a new version of the checklist, states follow item IDs: new \
            items start unchecked, removed items keep their state out of the count; the change is \
            reported on standard error.

            --export FILE writes the run as a Markdown report (open items and notes first); '-' \
            writes it to standard output. With --export, a terminal session is skipped: piped \
            commands are applied, then the report is written.

            Examples:
              locker checklist check-in --charter 'Split, June'
              locker checklist check-in --charter 'Split, June' --export check-in.md
              echo 'check docs-registration' | locker checklist check-in --charter 'Split, June'
            """)

    @Argument(help: "The checklist: its ID or title.")
    var checklist: String

    @Option(help: "The charter: name or ID. The active charter when left out.")
    var charter: String?

    @Option(help: "Write the run as a Markdown report to this file ('-' for standard output).", completion: .file())
    var export: String?

    @OptionGroup var options: RuntimeOptions

    func run() throws {
        let bundle = try options.openBundle()
        let locale = try options.locale(in: bundle)
        let checklist = try DocumentLookup.checklist(self.checklist, in: bundle, locale: locale)
        let store = try options.openStore()
        let charter = try CharterCommand.find(self.charter, in: store, options: options.progress)
        let (run, changes) = try store.openRun(charterID: charter.id, checklist: checklist)
        if !changes.isEmpty { printError(Self.describe(changes)) }
        var session = ChecklistSession(store: store, run: run, options: options)
        if Terminal.inputIsInteractive {
            if export == nil { try InteractiveChecklist(session: session).run() }
        } else {
            try session.runScript()
        }
        if let export {
            let report = ChecklistReport(run: session.run, timeZone: .current, exportedAt: options.now).markdown
            if export == "-" {
                FileHandle.standardOutput.write(Data(report.utf8))
            } else {
                do {
                    try Data(report.utf8).write(to: URL(fileURLWithPath: export), options: .atomic)
                } catch {
                    throw LockerError.io("\(export): cannot write the report: \(error.localizedDescription)")
                }
                let progress = session.run.progress
                printError("Wrote \(export): \(progress.done) of \(progress.total) done, \(progress.open) open.")
            }
        }
    }

    static func describe(_ changes: ChecklistMigration) -> String {
        var parts: [String] = []
        if !changes.added.isEmpty {
            parts.append(
                "\(changes.added.count) new item\(changes.added.count == 1 ? "" : "s"), unchecked (\(changes.added.joined(separator: ", ")))"
            )
        }
        if !changes.removed.isEmpty {
            var text =
                "\(changes.removed.count) item\(changes.removed.count == 1 ? "" : "s") removed (\(changes.removed.joined(separator: ", ")))"
            if !changes.removedWithProgress.isEmpty {
                text +=
                    "; the state of \(changes.removedWithProgress.joined(separator: ", ")) is kept but no longer counted"
            }
            parts.append(text)
        }
        return "locker: the checklist changed since this run was last opened: " + parts.joined(separator: "; ") + "."
    }
}

/// A run being worked on; shared by both front-ends.
struct ChecklistSession {
    let store: ProgressStore
    var run: ChecklistRun
    let options: RuntimeOptions

    mutating func set(_ itemID: String, to state: ItemState) throws {
        run.records[itemID] = try store.setItem(
            itemID, to: state, charterID: run.charter.id, checklistID: run.checklist.id, at: options.now)
    }

    mutating func setNote(_ note: String?, on itemID: String) throws {
        run.records[itemID] = try store.setNote(
            note, on: itemID, charterID: run.charter.id, checklistID: run.checklist.id, at: options.now)
    }

    /// One command per line, one JSON line per change.
    mutating func runScript() throws {
        struct Line: Encodable {
            var item: String
            var state: ItemState
            var note: String?
            var done: Int
            var total: Int
        }
        let ids = Set(run.checklist.items.map(\.id))
        var lineNumber = 0
        while let line = readLine() {
            lineNumber += 1
            let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 2).map(String.init)
            guard let verb = words.first?.lowercased() else { continue }
            if verb.hasPrefix("#") { continue }
            guard words.count >= 2, ids.contains(words[1]) else {
                let problem = words.count < 2 ? "an item ID is missing" : "no item '\(words[1])' in \(run.checklist.id)"
                printError("locker: stdin:\(lineNumber): \(problem)")
                throw ExitCode(1)
            }
            let item = words[1]
            switch verb {
            case "check", "x": try set(item, to: .checked)
            case "na", "n/a": try set(item, to: .notApplicable)
            case "uncheck", "open": try set(item, to: .unchecked)
            case "note": try setNote(words.count > 2 ? words[2] : nil, on: item)
            default:
                printError("locker: stdin:\(lineNumber): '\(verb)' is not a command: check, na, uncheck or note")
                throw ExitCode(1)
            }
            let record = run.record(of: item)
            let progress = run.progress
            try JSONLines.write(
                Line(item: item, state: record.state, note: record.note, done: progress.done, total: progress.total))
        }
    }
}
