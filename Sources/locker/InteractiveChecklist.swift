import Foundation
import LockerKit

/// `locker checklist` on a terminal: one item at a time, with its place, guidance and note.
struct InteractiveChecklist {
    var session: ChecklistSession
    let terminal = Terminal()

    /// Every item with the section and subsection it is in.
    private var entries: [(section: ChecklistSection, subsection: ChecklistSubsection, item: ChecklistItem)] {
        session.run.checklist.sections.flatMap { section in
            section.subsections.flatMap { subsection in subsection.items.map { (section, subsection, $0) } }
        }
    }

    func run() throws {
        var session = session
        let entries = entries
        guard !entries.isEmpty else {
            terminal.write("The checklist has no items.\n")
            return
        }
        var index = entries.firstIndex { !session.run.state(of: $0.item.id).isDone } ?? 0
        terminal.enterRawMode()
        defer { terminal.leaveRawMode() }
        walk: while true {
            let (section, subsection, item) = entries[index]
            let record = session.run.record(of: item.id)
            let overall = session.run.progress
            terminal.clear()
            terminal.write(Style.dim("\(session.run.checklist.title) · \(session.run.charter.name)") + "\n")
            terminal.write(
                Style.dim(
                    "Item \(index + 1) of \(entries.count) · \(overall.done)/\(overall.total) done (\(overall.percent)%)"
                ) + "\n\n")
            let sectionProgress = session.run.progress(of: section)
            terminal.write(
                Style.bold(section.title) + Style.dim("  \(sectionProgress.done)/\(sectionProgress.total)") + "\n")
            if let title = subsection.title {
                let progress = session.run.progress(of: subsection)
                terminal.write("  " + title + Style.dim("  \(progress.done)/\(progress.total)") + "\n")
            }
            terminal.write("\n  \(Self.box(record.state)) \(Style.bold(item.title))\n")
            let guidance = item.guidance.plainText
            if !guidance.isEmpty { terminal.write(InteractiveReview.indent(InteractiveReview.indent(guidance)) + "\n") }
            if let note = record.note { terminal.write("\n    Note: \(note)\n") }
            terminal.write(
                "\n"
                    + Style.dim(
                        "x/Enter check · n not applicable · o open · e note · ↑↓ j k move · s next section · q quit")
                    + "\n")
            switch terminal.readKey() {
            case .enter, .character("x"), .character(" "):
                try session.set(item.id, to: .checked)
                index = min(entries.count - 1, index + 1)
            case .character("n"):
                try session.set(item.id, to: .notApplicable)
                index = min(entries.count - 1, index + 1)
            case .character("o"):
                try session.set(item.id, to: .unchecked)
            case .character("e"):
                if let note = terminal.readLine(prompt: "Note (empty to remove): ") {
                    try session.setNote(note, on: item.id)
                }
            case .down, .character("j"): index = min(entries.count - 1, index + 1)
            case .up, .character("k"): index = max(0, index - 1)
            case .character("s"):
                index = entries.indices.first { $0 > index && entries[$0].section.id != section.id } ?? index
            case .character("q"), .interrupt: break walk
            default: continue
            }
        }
        terminal.leaveRawMode()
        let progress = session.run.progress
        terminal.write(
            "\n\(progress.done) of \(progress.total) done (\(progress.checked) checked, \(progress.notApplicable) not applicable), \(progress.open) open. Saved.\n"
        )
    }

    static func box(_ state: ItemState) -> String {
        switch state {
        case .unchecked: "[ ]"
        case .checked: Style.green("[x]")
        case .notApplicable: Style.dim("[–]")
        }
    }
}
