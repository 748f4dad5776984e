import ArgumentParser
import Foundation
import LockerCore
import LockerKit

/// `locker progress`: a progress file's events out, another device's in.
struct ProgressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "progress",
        abstract: "Carry progress between devices: export a progress file's events, merge another's.",
        discussion: """
            Reviews, undos, checklist ticks and notes, and charters merge: two files that have \
            exchanged their events hold the same progress, whatever the order of the exchange. \
            Events are JSON lines, the format an app carries over any transport (docs/runtime.md, \
            "Merging across devices").

            Examples:
              locker progress export --progress phone.sqlite --cursor phone.cursor > new.jsonl
              locker progress merge new.jsonl --progress tablet.sqlite
            """,
        subcommands: [Export.self, Merge.self])

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the progress file's events as JSON lines.",
            discussion: """
                With --cursor, only the events after the ones the last export with that cursor \
                wrote, and the cursor file is updated once they are written.
                """)

        @OptionGroup var progress: ProgressOptions

        @Option(help: "A file keeping where the last export ended.", completion: .file())
        var cursor: String?

        @Option(help: "Write to this file instead of standard output.", completion: .file())
        var out: String?

        func run() throws {
            let store = try progress.openStore()
            let since = try cursor.flatMap(Self.readCursor) ?? .start
            let (events, next) = try store.events(since: since)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var data = Data()
            for event in events {
                data += try encoder.encode(event)
                data.append(UInt8(ascii: "\n"))
            }
            if let out {
                try Self.write(data, to: out)
            } else {
                FileHandle.standardOutput.write(data)
            }
            if let cursor { try Self.write(try encoder.encode(next), to: cursor) }
            printError("locker: \(events.count) event\(events.count == 1 ? "" : "s")")
        }

        static func readCursor(_ path: String) throws -> ProgressCursor? {
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            do {
                return try JSONDecoder().decode(ProgressCursor.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw LockerError.io("\(path): not a cursor written by locker progress export")
            }
        }

        static func write(_ data: Data, to path: String) throws {
            do {
                try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw LockerError.io("\(path): cannot write: \(error.localizedDescription)")
            }
        }
    }

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge events (JSON lines) from other devices into the progress file.",
            discussion: """
                Events already in the file are skipped. A line that is not an event, or an event \
                that cannot be right, stops with its file and line and exit 1; nothing is merged.
                """)

        @Argument(help: "Files of events; - for standard input.", completion: .file())
        var files: [String]

        @OptionGroup var progress: ProgressOptions

        func run() throws {
            var events: [ProgressEvent] = []
            var origins: [UUID: String] = [:]
            let decoder = JSONDecoder()
            for file in files {
                let data: Data
                do {
                    data =
                        file == "-"
                        ? FileHandle.standardInput.readDataToEndOfFile()
                        : try Data(contentsOf: URL(fileURLWithPath: file))
                } catch {
                    throw LockerError.io("\(file): cannot read: \(error.localizedDescription)")
                }
                let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                for (index, line) in lines.enumerated() {
                    if Self.isBlank(line) { continue }
                    guard let event = try? decoder.decode(ProgressEvent.self, from: Data(line)) else {
                        printError("locker: \(file):\(index + 1): not a progress event")
                        throw ExitCode(1)
                    }
                    events.append(event)
                    origins[event.id] = origins[event.id] ?? "\(file):\(index + 1)"
                }
            }
            let store = try progress.openStore()
            switch Self.merge(events, into: store) {
            case .success(let report):
                print("Merged \(report.added) new event\(report.added == 1 ? "" : "s") (\(report.known) known).")
            case .failure(.invalidEvent(let id, let reason)):
                let place = UUID(uuidString: id).flatMap { origins[$0] } ?? "event \(id)"
                printError("locker: \(place): \(reason); nothing was merged")
                throw ExitCode(1)
            case .failure(let error):
                throw error
            }
        }

        static func merge(_ events: [ProgressEvent], into store: ProgressStore) -> Result<
            MergeReport, ProgressStoreError
        > {
            do throws(ProgressStoreError) {
                return .success(try store.merge(events))
            } catch {
                return .failure(error)
            }
        }

        static func isBlank(_ line: some Collection<UInt8>) -> Bool {
            line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }
        }
    }
}
