import ArgumentParser
import Foundation
import LockerCore
import LockerKit

/// `locker charter`: the charters progress is kept for.
struct CharterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "charter",
        abstract: "Create, list, show, edit and archive charters.",
        discussion: """
            A charter is a trip on one yacht; its checklists (check-in, daily, check-out) are run \
            per charter. The active charter is the one whose dates include today (the earliest \
            start wins); a charter without an end date covers its start day.

            A charter is named on the command line by its name, its ID, or the first 4+ characters of its ID.
            """,
        subcommands: [Create.self, List.self, Show.self, Edit.self, Archive.self])

    /// The fields of `create` and `edit`.
    struct Fields: ParsableArguments {
        @Option(help: "The first day (YYYY-MM-DD).")
        var start: LocalDay?
        @Option(help: "The last day (YYYY-MM-DD), on or after the start.")
        var end: LocalDay?
        @Option(help: "Where: marina, town or area.")
        var location: String?
        @Option(help: "The yacht's name.")
        var yacht: String?
        @Option(help: "The charter company.")
        var company: String?
        @Option(help: "Anything else worth keeping.")
        var notes: String?

        func apply(to draft: inout CharterDraft) {
            if let start { draft.startDate = start }
            if let end { draft.endDate = end }
            if let location { draft.location = location }
            if let yacht { draft.yachtName = yacht }
            if let company { draft.charterCompany = company }
            if let notes { draft.notes = notes }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a charter.",
            discussion: "Example: locker charter create 'Split, June' --start 2027-06-05 --end 2027-06-12 --yacht Lara")

        @Argument(help: "The charter's name.")
        var name: String
        @OptionGroup var fields: Fields
        @OptionGroup var options: ProgressOptions
        @Option(help: "text or json.")
        var format: OutputFormat = .text

        func run() throws {
            var draft = CharterDraft(name: name, startDate: nil)
            fields.apply(to: &draft)
            let database = try options.openStore()
            let charter = try checked { try database.createCharter(draft, at: options.now) }
            try CharterCommand.print(charter, in: database, format: format, day: options.day, verb: "Created")
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a charter's fields.")

        @Argument(help: "The charter: name or ID.")
        var charter: String
        @Option(help: "A new name.")
        var name: String?
        @Flag(help: "Remove the end date (the charter then covers its start day).")
        var noEnd = false
        @OptionGroup var fields: Fields
        @OptionGroup var options: ProgressOptions
        @Option(help: "text or json.")
        var format: OutputFormat = .text

        func run() throws {
            let database = try options.openStore()
            let stored = try DocumentLookup.charter(charter, in: database, on: options.day)
            var draft = stored.draft
            if let name { draft.name = name }
            fields.apply(to: &draft)
            if noEnd { draft.endDate = nil }
            let updated = try checked { try database.updateCharter(id: stored.id, with: draft) }
            try CharterCommand.print(updated, in: database, format: format, day: options.day, verb: "Updated")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List charters, by start date.")

        @Flag(help: "Include archived charters.")
        var all = false
        @OptionGroup var options: ProgressOptions
        @Option(help: "text or json.")
        var format: OutputFormat = .text

        func run() throws {
            let charters = try options.openStore().charters(includingArchived: all)
            let active = Charter.active(among: charters, on: options.day)
            switch format {
            case .json:
                try JSONLines.write(charters.map { CharterJSON($0, active: $0.id == active?.id) })
            case .text:
                var out = ""
                for charter in charters {
                    let marker = charter.id == active?.id ? "*" : charter.isArchived ? "a" : " "
                    let dates = charter.endDate.map { "\(charter.startDate) – \($0)" } ?? "\(charter.startDate)"
                    let extra = [charter.yachtName, charter.location].compactMap { $0 }.joined(separator: ", ")
                    out += "\(marker) \(charter.id.uuidString.prefix(8).lowercased())  \(dates)  \(charter.name)"
                    out += extra.isEmpty ? "\n" : "  (\(extra))\n"
                }
                if charters.isEmpty {
                    out = "No charters yet. Create one: locker charter create NAME --start YYYY-MM-DD\n"
                } else {
                    out += "* active today (\(options.day))" + (all ? ", a archived" : "") + "\n"
                }
                FileHandle.standardOutput.write(Data(out.utf8))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a charter and the progress of its checklist runs.")

        @Argument(help: "The charter: name or ID. The active charter when left out.")
        var charter: String?
        @OptionGroup var options: RuntimeOptions
        @Option(help: "text or json.")
        var format: OutputFormat = .text

        func run() throws {
            let database = try options.openStore()
            let found = try CharterCommand.find(charter, in: database, options: options.progress)
            // Progress needs the checklists; without a bundle the charter is still shown, but a
            // bundle that fails verification is an error.
            var runs: [(Checklist, ChecklistProgress)] = []
            if options.hasBundle {
                let bundle = try options.openBundle()
                let locale = try options.locale(in: bundle)
                for checklist in try bundle.checklists(locale: locale) where checklist.checklistType.isCharterScoped {
                    let records = try database.itemRecords(charterID: found.id, checklistID: checklist.id)
                    let run = ChecklistRun(charter: found, checklist: checklist, records: records)
                    runs.append((checklist, run.progress))
                }
            }
            let active = try database.activeCharter(on: options.day)?.id == found.id
            switch format {
            case .json:
                var json = CharterJSON(found, active: active)
                json.checklists = runs.map { .init(id: $0.0.id, title: $0.0.title, progress: $0.1) }
                try JSONLines.write(json)
            case .text:
                var out = CharterCommand.describe(found, active: active)
                if !runs.isEmpty { out += "Checklists:\n" }
                for (checklist, progress) in runs {
                    out +=
                        "  \(checklist.id): \(progress.done)/\(progress.total) (\(progress.percent)%)  \(checklist.title)\n"
                }
                FileHandle.standardOutput.write(Data(out.utf8))
            }
        }
    }

    struct Archive: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "archive",
            abstract: "Archive a charter: it is kept with its checklists, but no longer listed or active.")

        @Argument(help: "The charter: name or ID.")
        var charter: String
        @Flag(help: "Bring an archived charter back instead.")
        var undo = false
        @OptionGroup var options: ProgressOptions

        func run() throws {
            let database = try options.openStore()
            let found = try DocumentLookup.charter(charter, in: database, on: options.day)
            let changed =
                undo
                ? try database.unarchiveCharter(id: found.id)
                : try database.archiveCharter(id: found.id, at: options.now)
            FileHandle.standardOutput.write(
                Data(
                    "\(undo ? "Restored" : "Archived") \(changed.name) (\(changed.id.uuidString.prefix(8).lowercased())).\n"
                        .utf8))
        }
    }

    /// A charter by name, or the active one.
    static func find(_ name: String?, in store: ProgressStore, options: ProgressOptions) throws -> Charter {
        if let name { return try DocumentLookup.charter(name, in: store, on: options.day) }
        guard let active = try store.activeCharter(on: options.day) else {
            throw LockerError.usage("no charter is active on \(options.day): name one (see 'locker charter list').")
        }
        return active
    }

    static func print(_ charter: Charter, in store: ProgressStore, format: OutputFormat, day: LocalDay, verb: String)
        throws
    {
        let active = try store.activeCharter(on: day)?.id == charter.id
        switch format {
        case .json: try JSONLines.write(CharterJSON(charter, active: active))
        case .text: FileHandle.standardOutput.write(Data("\(verb) charter:\n\(describe(charter, active: active))".utf8))
        }
    }

    static func describe(_ charter: Charter, active: Bool) -> String {
        var lines = [
            "  Name:     \(charter.name)",
            "  ID:       \(charter.id.uuidString.lowercased())",
            "  Dates:    " + (charter.endDate.map { "\(charter.startDate) – \($0)" } ?? "\(charter.startDate)"),
        ]
        if let yacht = charter.yachtName { lines.append("  Yacht:    \(yacht)") }
        if let company = charter.charterCompany { lines.append("  Company:  \(company)") }
        if let location = charter.location { lines.append("  Location: \(location)") }
        if let notes = charter.notes { lines.append("  Notes:    \(notes)") }
        if charter.isArchived { lines.append("  Archived") } else if active { lines.append("  Active today") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Maps charter validation problems to the options that set each field.
func checked<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let errors as CharterValidationErrors {
        let option: [CharterValidationError.Field: String] = [
            .name: "<name>", .startDate: "--start", .endDate: "--end", .location: "--location",
            .yachtName: "--yacht", .charterCompany: "--company", .notes: "--notes",
        ]
        for problem in errors.problems {
            printError("locker: \(option[problem.field] ?? problem.field.rawValue): \(problem.message)")
        }
        throw ExitCode(1)
    }
}

/// A charter as `--format json` prints it.
struct CharterJSON: Encodable {
    var id: String
    var name: String
    var startDate: String
    var endDate: String?
    var location: String?
    var yachtName: String?
    var charterCompany: String?
    var notes: String?
    var createdAt: String
    var archivedAt: String?
    var active: Bool
    var checklists: [Run]?

    struct Run: Encodable {
        var id: String
        var title: String
        var progress: ChecklistProgress
    }

    init(_ charter: Charter, active: Bool) {
        let format = ISO8601DateFormatter()
        id = charter.id.uuidString.lowercased()
        name = charter.name
        startDate = charter.startDate.description
        endDate = charter.endDate?.description
        location = charter.location
        yachtName = charter.yachtName
        charterCompany = charter.charterCompany
        notes = charter.notes
        createdAt = format.string(from: charter.createdAt)
        archivedAt = charter.archivedAt.map { format.string(from: $0) }
        self.active = active
    }
}
