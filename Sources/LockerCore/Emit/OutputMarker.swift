import Foundation
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The marker of an output folder, `.locker-build`: it marks the folder as Locker's, so a later
/// build may replace it, and lists every file the build wrote, for the next build to keep what
/// is unchanged; it also holds the build's ``BuildRecord``, for ``OutputWriter/upToDate(_:fingerprint:)``.
///
/// Its text is a heading, ``formatLine``, the record on one line (``recordPrefix``) when there is
/// one, then a line per file in byte order of the paths: `<sha256> <stamp> <inputs> <path>`,
/// `-` for a missing field.
struct OutputMarker: Sendable {
    /// A file of a build, as the marker lists it.
    struct Entry: Sendable, Equatable {
        /// The SHA-256 of the file's bytes, or ``unhashed``.
        var sha256: String
        /// Size, inode and modification time when written (``FileStamp/contentText``): whether
        /// the file is still the one written.
        var stamp: String?
        /// What the file was made from, when the build worked it out (``PageInputs``).
        var inputs: String?

        /// The SHA-256 of a file written without one (``OutputSink/writeUnhashed(_:)``), or of
        /// one the marker knows nothing of: no hash is `-`, so such a file is never kept for its
        /// bytes.
        static let unhashed = "-"
    }

    /// The files, by path relative to the output folder.
    var files: [String: Entry] = [:]
    /// The record of the build that wrote the folder, when it was one `locker build` made.
    var record: BuildRecord?

    /// The marker's second line: a marker without it lists nothing.
    static let formatLine = "format 2"
    /// The start of the line after ``formatLine`` that holds the record, as JSON.
    static let recordPrefix = "record "
    private static let heading = "This folder is written by locker build and updated by the next build.\n"

    init(files: [String: Entry] = [:], record: BuildRecord? = nil) {
        self.files = files
        self.record = record
    }

    /// Reads a marker's text; with `recordOnly`, its record alone. Blank lines and lines with
    /// too few fields are passed over; a later line of a path wins.
    init(bytes: [UInt8], recordOnly: Bool = false) {
        var fields: [String?] = []
        var (start, number) = (0, 0)
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let line = bytes[start..<end]
            start = end + 1
            if line.isEmpty { continue }
            number += 1
            switch number {
            case 1: continue
            case 2:
                guard line.elementsEqual(Self.formatLine.utf8) else { return }
                if !recordOnly { files.reserveCapacity(bytes.count / 150) }
                continue
            case 3 where line.starts(with: Self.recordPrefix.utf8):
                record = try? JSONDecoder().decode(
                    BuildRecord.self, from: Data(line.dropFirst(Self.recordPrefix.utf8.count)))
                continue
            default: if recordOnly { return }
            }
            // Three fields, each ended by a space; the path is the rest.
            fields.removeAll(keepingCapacity: true)
            var field = line.startIndex
            while fields.count < 3, let space = line[field...].firstIndex(of: UInt8(ascii: " ")) {
                let text = line[field..<space]
                fields.append(text.elementsEqual("-".utf8) ? nil : String(decoding: text, as: UTF8.self))
                field = space + 1
            }
            let path = String(decoding: line[field...], as: UTF8.self)
            guard fields.count == 3, Self.isInside(path) else { continue }
            files[path] = Entry(sha256: fields[0] ?? Entry.unhashed, stamp: fields[1], inputs: fields[2])
        }
    }

    init(_ data: Data) { self.init(bytes: [UInt8](data)) }

    /// Whether `path`, read from a marker or a journal, names a file of the build inside the
    /// output folder: relative, without a NUL, an empty, `.` or `..` component, and not the
    /// marker or a scratch folder. Any other is damage, or someone else's, and never touched.
    ///
    /// Looked at as bytes, part by part: a marker's every line is, on every build.
    static func isInside(_ path: String) -> Bool {
        let bytes = path.utf8
        guard !bytes.isEmpty, !bytes.elementsEqual(OutputWriter.marker.utf8),
            !bytes.starts(with: OutputWriter.Journal.scratchPrefix.utf8)
        else { return false }
        let (slash, dot) = (UInt8(ascii: "/"), UInt8(ascii: "."))
        // The current part's length, and how many of its bytes are dots.
        var (length, dots) = (0, 0)
        for byte in bytes {
            if byte == 0 { return false }
            if byte == slash {
                guard length > 0, !(dots == length && length <= 2) else { return false }
                (length, dots) = (0, 0)
            } else {
                length += 1
                if byte == dot { dots += 1 }
            }
        }
        return length > 0 && !(dots == length && length <= 2)
    }

    /// The marker in the output folder `output` (see ``init(bytes:recordOnly:)``); nil when there
    /// is none that can be read. For its record alone, its first 64 KiB are read, and the rest
    /// only when the record runs on.
    init?(in output: URL, recordOnly: Bool = false) {
        let path = output.appendingPathComponent(OutputWriter.marker).path
        if recordOnly, let handle = FileHandle(forReadingAtPath: path),
            let head = try? handle.read(upToCount: 1 << 16), head.count < 1 << 16 || head.count { $0 == 10 } > 2
        {
            self.init(bytes: [UInt8](head), recordOnly: true)
            return
        }
        guard let bytes = try? FileBytes.contents(of: path) else { return nil }
        self.init(bytes: bytes, recordOnly: recordOnly)
    }

    /// The marker's text.
    var text: Data {
        var text = Array((Self.heading + Self.formatLine + "\n").utf8)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if let record, let json = try? encoder.encode(record) {
            text += Self.recordPrefix.utf8
            text += json
            text.append(UInt8(ascii: "\n"))
        }
        // Laid out as bytes, each line's fields appended where they stand: tens of thousands of
        // lines built as strings took a measurable part of a one-note rebuild.
        let entries = Array(files)
        text.reserveCapacity(text.count + entries.count * 200)
        func append(_ field: String?, then end: UInt8) {
            if let field { text += field.utf8 } else { text.append(UInt8(ascii: "-")) }
            text.append(end)
        }
        for offset in entries.map(\.key).utf8SortedOffsets() {
            let (path, entry) = entries[offset]
            append(entry.sha256, then: UInt8(ascii: " "))
            append(entry.stamp, then: UInt8(ascii: " "))
            append(entry.inputs, then: UInt8(ascii: " "))
            append(path, then: UInt8(ascii: "\n"))
        }
        return Data(text)
    }

    /// The files that are no longer the ones the marker lists, by their stamps (size, inode,
    /// modification time), in the output folder `output`: looked at on every core.
    func changedFiles(in output: URL) -> [String] {
        let files = Array(self.files)
        let folder = open(output.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return files.map(\.key) }
        defer { close(folder) }
        return Compiler.parallelMap(Compiler.runs(of: files.count, length: 1024)) { run in
            run.filter { !Self.isIntact(files[$0].key, files[$0].value, in: folder) }.map { files[$0].key }
        }.flatMap { $0 }
    }

    /// Whether the file at `path`, relative to the folder open as `folder` (or absolute, with
    /// `AT_FDCWD`), is the regular file with the stamp `entry` lists.
    static func isIntact(_ path: String, _ entry: Entry, in folder: Int32) -> Bool {
        // A zero byte would end the path early, at another file.
        guard let stamp = entry.stamp, !path.utf8.contains(0) else { return false }
        var status = stat()
        guard fstatat(folder, path, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return false
        }
        return FileStamp(status).hasContentText(stamp)
    }
}
