import ArgumentParser
import Foundation
import LockerCore

/// `locker ids`: make the identity of every checklist item and card explicit.
struct IDs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ids",
        abstract: "List, or with --write stamp, the IDs of checklist items and cards that have none written.",
        discussion: """
            An item or card without a '^id' gets an ID derived from its text, and users' progress \
            is keyed by it: editing the text would orphan that progress. 'locker ids --write' writes \
            each derived ID into the note (' ^id' at the end of the item's line, or 'id:' in a card \
            note's frontmatter), so it stays when the text changes. Nothing else in the file changes; \
            notes with errors are left alone; running it again changes nothing.

            Exit codes: 0 done (or nothing to do), 1 some notes were left alone because of errors, \
            2 bad usage or a file that cannot be read or written.

            Examples:
              locker ids
              locker ids content --write
            """)

    @Argument(help: "The vault folder.", completion: .directory)
    var vault: String = "content"

    @Flag(help: "Write the IDs into the notes; without it, only list them.")
    var write = false

    func run() throws {
        let options = try VaultOptions.parse([vault])
        let compilation = try Compiler(
            vault: options.url, environment: ProcessInfo.processInfo.environment, emit: false
        ).compile()
        let prefix = options.displayPrefix.isEmpty ? "" : options.displayPrefix + "/"
        let (edits, refused) = IDWriter.plan(compilation, vault: options.url)
        var out = ""
        for edit in edits {
            for stamp in edit.stamps {
                out +=
                    "\(prefix)\(stamp.file):\(stamp.position.line):\(stamp.position.column): ^\(stamp.id)  \(stamp.label)\n"
            }
        }
        let count = edits.reduce(0) { $0 + $1.stamps.count }
        if write {
            try IDWriter.apply(edits, vault: options.url)
            out += "Wrote \(count) ID\(count == 1 ? "" : "s") into \(edits.count) note\(edits.count == 1 ? "" : "s").\n"
        } else if count > 0 {
            out +=
                "\(count) item\(count == 1 ? "" : "s") and card\(count == 1 ? "" : "s") without a written ID; run 'locker ids --write' to write them.\n"
        } else if refused.isEmpty {
            out += "Every checklist item and card has a written ID.\n"
        }
        FileHandle.standardOutput.write(Data(out.utf8))
        var errors = ""
        for refusal in refused {
            errors += "locker: left \(prefix)\(refusal.file) alone: \(refusal.reason)\n"
        }
        FileHandle.standardError.write(Data(errors.utf8))
        if !refused.isEmpty { throw ExitCode(1) }
    }
}
