import Foundation

/// A checklist run as a Markdown document: the record a captain keeps of a yacht's check-in,
/// for the deposit.
///
/// It opens with the charter (name, yacht, company, location, dates) and the progress, then lists
/// the open items and the items with notes, then every section with each item's state, time and
/// note. Items no longer in the checklist but with a stored state close the report. Labels are in
/// the checklist's language (English or Russian).
public struct ChecklistReport: Sendable {
    public var run: ChecklistRun
    /// The zone times are written in.
    public var timeZone: TimeZone
    /// When the report was made, written under the heading; left out when `nil`.
    public var exportedAt: Date?

    public init(run: ChecklistRun, timeZone: TimeZone = .current, exportedAt: Date? = nil) {
        self.run = run
        self.timeZone = timeZone
        self.exportedAt = exportedAt
    }

    /// The report.
    public var markdown: String {
        let strings = ReportStrings(locale: run.checklist.locale)
        let charter = run.charter
        let checklist = run.checklist
        let progress = run.progress
        var lines: [String] = []
        lines.append("# \(Self.escape(checklist.title)) — \(Self.escape(charter.name))")
        lines.append("")
        if let exportedAt { lines += ["\(strings.exported) \(format(exportedAt))", ""] }
        lines.append("| | |")
        lines.append("|---|---|")
        func row(_ label: String, _ value: String?) {
            guard let value else { return }
            lines.append("| \(label) | \(Self.escape(value, inTable: true)) |")
        }
        row(strings.charter, charter.name)
        row(strings.yacht, charter.yachtName)
        row(strings.company, charter.charterCompany)
        row(strings.location, charter.location)
        row(strings.dates, charter.endDate.map { "\(charter.startDate) – \($0)" } ?? "\(charter.startDate)")
        row(strings.progress, strings.summary(progress))
        if let notes = charter.notes { row(strings.charterNotes, notes) }

        let open = checklist.sections.flatMap { section in
            section.subsections.flatMap { subsection in
                subsection.items.filter { !run.state(of: $0.id).isDone }.map { (section, subsection, $0) }
            }
        }
        let noted = checklist.sections.flatMap { section in
            section.subsections.flatMap { subsection in
                subsection.items.filter { run.record(of: $0.id).note != nil }.map { (section, subsection, $0) }
            }
        }
        lines += ["", "## \(strings.openItems) (\(open.count))", ""]
        if open.isEmpty { lines.append(strings.noneOpen) }
        for (section, subsection, item) in open {
            lines += itemLines(item, path: Self.path(section, subsection), strings: strings)
        }
        lines += ["", "## \(strings.notes) (\(noted.count))", ""]
        if noted.isEmpty { lines.append(strings.noNotes) }
        for (section, subsection, item) in noted {
            lines += itemLines(item, path: Self.path(section, subsection), strings: strings)
        }
        for section in checklist.sections {
            lines += ["", "## \(Self.escape(section.title)) — \(strings.count(run.progress(of: section)))"]
            for subsection in section.subsections {
                if let title = subsection.title {
                    lines += ["", "### \(Self.escape(title)) — \(strings.count(run.progress(of: subsection)))"]
                }
                lines.append("")
                for item in subsection.items { lines += itemLines(item, path: nil, strings: strings) }
            }
        }
        let orphans = run.orphans.filter { $0.value.state.isDone || $0.value.note != nil }.sorted { $0.key < $1.key }
        if !orphans.isEmpty {
            lines += ["", "## \(strings.removed) (\(orphans.count))", ""]
            for (id, record) in orphans {
                lines += recordLines(title: "`\(id)`", record: record, strings: strings)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func itemLines(_ item: ChecklistItem, path: String?, strings: ReportStrings) -> [String] {
        let title = path.map { "\($0) › \(Self.escape(item.title))" } ?? Self.escape(item.title)
        return recordLines(title: title, record: run.record(of: item.id), strings: strings)
    }

    private func recordLines(title: String, record: ItemRecord, strings: ReportStrings) -> [String] {
        let box =
            switch record.state {
            case .unchecked: "[ ]"
            case .checked: "[x]"
            case .notApplicable: "[-]"
            }
        var line = "- \(box) \(title)"
        if record.state == .notApplicable { line += " — \(strings.notApplicable)" }
        if record.state.isDone, let changedAt = record.changedAt { line += " — \(format(changedAt))" }
        var lines = [line]
        if let note = record.note {
            let noteLines = note.split(separator: "\n", omittingEmptySubsequences: false).map {
                Self.escape(String($0))
            }
            lines.append("  \(strings.note): \(noteLines.joined(separator: "  \n  "))")
        }
        return lines
    }

    /// `YYYY-MM-DD HH:mm` in `timeZone`.
    private func format(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        guard let year = parts.year, let month = parts.month, let day = parts.day,
            let local = LocalDay(year: year, month: month, day: day)
        else { return ISO8601DateFormatter().string(from: date) }
        func two(_ value: Int?) -> String { (value ?? 0) < 10 ? "0\(value ?? 0)" : "\(value ?? 0)" }
        return "\(local) \(two(parts.hour)):\(two(parts.minute))"
    }

    private static func path(_ section: ChecklistSection, _ subsection: ChecklistSubsection) -> String {
        [section.title, subsection.title].compactMap { $0 }.map { escape($0) }.joined(separator: " › ")
    }

    /// Escapes what Markdown would read as markup in text written by people: inline markup
    /// anywhere, and a list marker (`- `, `+ `, `1. `) at the start.
    static func escape(_ text: String, inTable: Bool = false) -> String {
        var out = ""
        var text = Substring(text)
        if text.hasPrefix("- ") || text.hasPrefix("+ ") {
            out = "\\"
        } else if let end = text.firstIndex(where: { !$0.isASCII || !$0.isNumber }), end != text.startIndex,
            text[end] == "." || text[end] == ")"
        {
            out = String(text[..<end]) + "\\"
            text = text[end...]
        }
        for character in text {
            switch character {
            case "\\", "*", "_", "[", "]", "<", ">", "`", "#", "~": out += "\\\(character)"
            case "|" where inTable: out += "\\|"
            case "\n" where inTable: out += " "
            default: out.append(character)
            }
        }
        return out
    }
}

/// The report's labels in one language.
struct ReportStrings {
    var charter = "Charter"
    var yacht = "Yacht"
    var company = "Charter company"
    var location = "Location"
    var dates = "Dates"
    var progress = "Progress"
    var charterNotes = "Notes"
    var exported = "Exported"
    var openItems = "Open items"
    var noneOpen = "None: every item is checked or not applicable."
    var notes = "Notes"
    var noNotes = "No notes."
    var note = "Note"
    var notApplicable = "not applicable"
    var removed = "No longer in the checklist"
    var summaryFormat: (ChecklistProgress) -> String = {
        "\($0.done) of \($0.total) done (\($0.checked) checked, \($0.notApplicable) not applicable), \($0.open) open"
    }

    init(locale: String) {
        guard locale.lowercased().hasPrefix("ru") else { return }
        charter = "Чартер"
        yacht = "Яхта"
        company = "Чартерная компания"
        location = "Место"
        dates = "Даты"
        progress = "Прогресс"
        charterNotes = "Заметки"
        exported = "Выгружено"
        openItems = "Открытые пункты"
        noneOpen = "Нет: все пункты отмечены или неприменимы."
        notes = "Заметки"
        noNotes = "Заметок нет."
        note = "Заметка"
        notApplicable = "неприменимо"
        removed = "Больше нет в чек-листе"
        summaryFormat = {
            "выполнено \($0.done) из \($0.total) (отмечено \($0.checked), неприменимо \($0.notApplicable)), открыто \($0.open)"
        }
    }

    func summary(_ progress: ChecklistProgress) -> String { summaryFormat(progress) }

    func count(_ progress: ChecklistProgress) -> String { "\(progress.done)/\(progress.total)" }
}
