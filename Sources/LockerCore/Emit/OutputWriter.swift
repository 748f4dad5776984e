import Foundation
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes the build output so that no file is ever half written and the output folder is the
/// previous build until the build commits.
///
/// A first build is written into a staging folder beside the output folder as the build makes
/// its files (``Staging``), then renamed into place. A build over a previous one is written in
/// place, touching only what changed (``Update``). A folder that holds anything but a previous
/// Locker build is never replaced.
///
/// Files are written on every core with plain `write(2)` calls and no per-file sync; the file
/// system is synced once, before the swap or the journal, so a crash never leaves a committed
/// build of unwritten files. The marker file lists every file with its SHA-256, its size, inode
/// and modification time, and for a page the digest of its inputs (``PageInputs``): a file the
/// previous build wrote with the same bytes (or a page made from the same inputs), and that is
/// still the file it wrote, is left in place instead of written again.
public enum OutputWriter {
    /// Marks a folder as Locker's output, so a later build may replace it, and records its files
    /// and the build's ``BuildRecord``.
    public static let marker = ".locker-build"

    /// The record of the build in `output`, from its marker, when it was made from inputs with
    /// this fingerprint and every file it wrote is still there; nil otherwise, and while another
    /// build writes into the folder (whose marker may be about to change).
    public static func upToDate(
        _ output: URL, fingerprint: BuildFingerprint, prefetched: OutputPrefetch? = nil
    ) -> BuildRecord? {
        let output = output.standardizedFileURL
        // Held, shared, while the folder is read: a build that commits meanwhile could leave
        // files of the new build beside the previous build's marker. A build that holds it is
        // writing: this one is not up to date, and stops when it takes the lock to write
        // (``begin(replacing:)``). Checks by other builds hold it too, and do not stop this one; a
        // build that is about to write waits for them.
        let lock: OutputLock?
        do {
            lock = try OutputLock(for: output, shared: true)
        } catch {
            return nil
        }
        defer { withExtendedLifetime(lock) {} }
        // A commit that did not finish is finished by the next build, not taken as up to date.
        guard !FileManager.default.fileExists(atPath: output.appendingPathComponent(Journal.file).path),
            let files = prefetched?.marker() ?? Self.readMarker(in: output),
            let record = files.record, record.fingerprint == fingerprint
        else { return nil }
        let folder = open(output.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return nil }
        defer { close(folder) }
        let intact = Compiler.parallelMap(Compiler.runs(of: files.count, length: 512)) {
            !files.stamps(of: $0, in: folder).contains(false)
        }
        guard files.count > 0, !intact.contains(false) else { return nil }
        return record
    }

    private static let markerHeading = "This folder is written by locker build and updated by the next build.\n"

    /// Starts writing a build into `output`: in place over a previous build (``Update``), else
    /// into a staging folder swapped in whole (``Staging``). Finishes first what a build that
    /// stopped during its commit left in its journal.
    ///
    /// The output folder stays locked until the transaction is released (``OutputLock``): a
    /// second build into it throws rather than interleave its files with this one's.
    public static func begin(
        replacing output: URL, prefetched: OutputPrefetch? = nil
    ) throws -> any OutputTransaction {
        let output = output.standardizedFileURL
        let lock = try OutputLock(for: output)
        // With the lock held no other build writes beside the folder: what is there was left by
        // one that was killed.
        if lock != nil { try recoverSwap(of: output) }
        try Journal.recover(output)
        guard let previous = try previousFiles(of: output, prefetched: prefetched), previous.count > 0 else {
            let staging = try Staging(replacing: output)
            staging.lock = lock
            return staging
        }
        return Update(output: output, previous: previous, lock: lock, prefetched: prefetched)
    }

    /// Cleans up after a first build, or a swap, that was killed (SIGKILL, a power cut) beside
    /// `output`: its staging folders are removed; a previous build moved aside is removed when
    /// the swap finished, and moved back when it did not (the output folder is missing), so the
    /// folder is the previous build again.
    static func recoverSwap(of output: URL) throws {
        let fileManager = FileManager.default
        let parent = output.deletingLastPathComponent()
        let name = output.lastPathComponent
        let names = ((try? fileManager.contentsOfDirectory(atPath: parent.path)) ?? []).sorted()
        for previous in names where previous.hasPrefix(".\(name).previous-") {
            let url = parent.appendingPathComponent(previous)
            var status = stat()
            if lstat(output.path, &status) != 0, errno == ENOENT {
                try fileManager.moveItem(at: url, to: output)
            } else {
                try? fileManager.removeItem(at: url)
            }
        }
        for staging in names where staging.hasPrefix(".\(name).staging-") {
            try? fileManager.removeItem(at: parent.appendingPathComponent(staging))
        }
    }

    /// The files the previous build in `output` lists, from its marker; nil when there is no
    /// folder. Throws when `output` must not be replaced: a symbolic link, a file, or a folder of
    /// files that no build wrote.
    static func previousFiles(of output: URL, prefetched: OutputPrefetch? = nil) throws -> OutputMarker? {
        let fileManager = FileManager.default
        var link = stat()
        if lstat(output.path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
            throw LockerError.usage(
                "\(output.path) is a symbolic link; give the folder it leads to as --out, so the build replaces that folder and not the link"
            )
        }
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: output.path, isDirectory: &isDirectory) else { return nil }
        guard isDirectory.boolValue else {
            throw LockerError.usage("\(output.path) exists and is not a folder; refusing to replace it")
        }
        let contents = (try? fileManager.contentsOfDirectory(atPath: output.path)) ?? []
        let markerPath = output.appendingPathComponent(marker).path
        if !contents.isEmpty, !fileManager.fileExists(atPath: markerPath) {
            throw LockerError.usage(
                "\(output.path) holds files that locker build did not write; refusing to replace it (choose another --out, or empty it)"
            )
        }
        return prefetched?.marker() ?? readMarker(in: output) ?? .empty
    }

    /// The marker of the build in `output`, read now; nil when it cannot be read.
    static func readMarker(in output: URL) -> OutputMarker? {
        readMarker(inFolder: output.path + "/")?.marker
    }

    /// The marker in the output folder `folder` (its path and a `/`), read now, and its file's
    /// stamp; nil when it cannot be read, or changed while it was.
    static func readMarker(inFolder folder: String) -> (marker: OutputMarker, stamp: FileStamp)? {
        let path = folder + marker
        guard let before = FileStamp(regularFileAt: path), let bytes = try? FileBytes.contents(of: path),
            FileStamp(regularFileAt: path) == before
        else { return nil }
        return (OutputMarker(bytes: bytes), before)
    }

    /// Replaces the output folder with these files.
    public static func replace(_ output: URL, with files: [OutputFile]) throws {
        let staging = try begin(replacing: output)
        do {
            let failures = Compiler.parallelMap(files) { file -> String? in
                do {
                    try staging.write(file)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            if let failure = failures.compactMap({ $0 }).first { throw LockerError.io(failure) }
            try staging.commit()
        } catch {
            staging.discard()
            throw error
        }
    }

    /// A build being written beside its output folder: ``write(_:)`` from any thread, then
    /// ``commit()`` to swap it in, or ``discard()``.
    public final class Staging: OutputTransaction, @unchecked Sendable {
        /// The output folder this build replaces.
        public let output: URL
        /// Where the files are written until the swap.
        public let folder: URL
        private let previous: URL
        private let folders: FolderMaker
        private let ledger: OutputLedger
        private let gate = WriteGate()
        /// The lock on the output folder being replaced, when there is one (``OutputLock``).
        var lock: OutputLock?

        /// How many files ``keep(_:if:)`` took from the previous build for their inputs.
        public var reusedCount: Int { ledger.reused }

        /// Creates the staging folder beside `output`, which ``OutputWriter/begin(replacing:prefetched:)``
        /// found may be replaced.
        init(replacing output: URL) throws {
            let output = output.standardizedFileURL
            let parent = output.deletingLastPathComponent()
            try OutputWriter.create(parent)
            let token = UUID().uuidString.prefix(8)
            self.output = output
            ledger = OutputLedger(previous: .empty)
            folder = parent.appendingPathComponent(".\(output.lastPathComponent).staging-\(token)")
            previous = parent.appendingPathComponent(".\(output.lastPathComponent).previous-\(token)")
            folders = FolderMaker(root: folder.path)
            try OutputWriter.create(folder)
        }

        public var recordsInputs: Bool { true }

        public func write(_ file: OutputFile, sha256: String?, inputs: String?) throws {
            try gate.pass { try put(file, sha256: sha256, inputs: inputs) }
        }

        public func writeUnhashed(_ file: OutputFile) throws {
            try gate.pass {
                try folders.ensure(VaultPath.folder(of: file.path))
                let stamp = try OutputWriter.writeFile(file, to: folder.path + "/" + file.path)
                ledger.wrote(file.path, RecordedFile(sha256: RecordedFile.unhashed, stamp: stamp))
            }
        }

        private func put(_ file: OutputFile, sha256: String?, inputs: String?) throws {
            try folders.ensure(VaultPath.folder(of: file.path))
            let hash = sha256 ?? file.sha256Hex
            let target = folder.path + "/" + file.path
            let stamp = try OutputWriter.writeFile(file, to: target)
            ledger.wrote(file.path, RecordedFile(sha256: hash, stamp: stamp, inputs: inputs))
        }

        /// Writes the marker (with the record, for the next build to compare with), syncs, and
        /// swaps the staging folder in for the output folder; then removes the previous build.
        public func commit(record: BuildRecord? = nil) throws {
            let fileManager = FileManager.default
            do {
                try OutputWriter.writeFile(ledger.closing(record: record).marker, to: folder.path + "/" + marker)
                OutputWriter.flush(folder.path)
                if fileManager.fileExists(atPath: output.path) {
                    try fileManager.moveItem(at: output, to: previous)
                    do {
                        try fileManager.moveItem(at: folder, to: output)
                    } catch {
                        try? fileManager.moveItem(at: previous, to: output)
                        throw error
                    }
                    OutputWriter.remove(previous, listing: [])
                } else {
                    try fileManager.moveItem(at: folder, to: output)
                }
            } catch let error as LockerError {
                discard()
                throw error
            } catch {
                discard()
                throw LockerError.io("cannot write \(output.path): \(error.localizedDescription)")
            }
        }

        /// Removes the staging folder; the output folder stays as it was.
        public func discard() {
            gate.close()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// A file of a build, as its marker records it.
    struct RecordedFile: Sendable, Equatable {
        /// The SHA-256 of the file's bytes, or ``unhashed``.
        var sha256: String
        /// Size, inode and modification time when written (``VaultScanner/contentStamp(of:)``).
        var stamp: String?
        /// What the file was made from, when the build worked it out (``PageInputs``).
        var inputs: String?

        /// The SHA-256 of a file written without one (``OutputSink/writeUnhashed(_:)``): no hash
        /// is ever `-`, so such a file is never kept for its bytes.
        static let unhashed = "-"
    }

    /// The bytes of the file of the line `line` of `marker`, in the output folder `output`, when
    /// it is still the file the marker lists: with the marker's SHA-256, or, for a file written
    /// without one, read between two looks at its stamp that both find the marker's.
    static func previousFile(at line: Int, of marker: OutputMarker, in output: URL) -> [UInt8]? {
        let path = output.path + "/" + marker.path(at: line)
        guard marker.hasSHA256(RecordedFile.unhashed, at: line) else {
            guard let bytes = try? FileBytes.contents(of: path),
                marker.hasSHA256(ContentHash.sha256Hex(bytes), at: line)
            else { return nil }
            return bytes
        }
        guard marker.isIntact(at: line, in: output), let bytes = try? FileBytes.contents(of: path),
            marker.isIntact(at: line, in: output)
        else { return nil }
        return bytes
    }

    /// The marker of a build of these files: its lines are written on every core, a run of
    /// files each, one after the other.
    static func markerText(_ files: [String: RecordedFile], record: BuildRecord? = nil) -> Data {
        let entries = Array(files)
        let order = entries.map(\.key).utf8SortedOffsets()
        var data = Data(markerStart(record: record))
        let parts = Compiler.parallelMap(Compiler.runs(of: order.count, length: 2048)) { run in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(run.count * 200)
            for offset in order[run] {
                let (path, entry) = entries[offset]
                appendLine(path: path, entry: entry, to: &bytes)
            }
            return bytes
        }
        for part in parts { data.append(contentsOf: part) }
        return data
    }

    /// What a marker starts with: its heading, its format (``OutputMarker/formatLine``) and, when
    /// given, the build's record on one line (``OutputMarker/recordPrefix``).
    static func markerStart(record: BuildRecord?) -> [UInt8] {
        var start = Array((markerHeading + OutputMarker.formatLine + "\n").utf8)
        if let record, let json = try? OutputWriter.encoded(record) {
            start += OutputMarker.recordPrefix.utf8
            start += json
            start.append(UInt8(ascii: "\n"))
        }
        return start
    }

    /// Appends the marker's line for `path`: `<sha256> <stamp> <inputs> <path>`, `-` for a
    /// missing field.
    static func appendLine(path: String, entry: RecordedFile, to bytes: inout [UInt8]) {
        bytes += entry.sha256.utf8
        bytes.append(UInt8(ascii: " "))
        bytes += (entry.stamp ?? "-").utf8
        bytes.append(UInt8(ascii: " "))
        bytes += (entry.inputs ?? "-").utf8
        bytes.append(UInt8(ascii: " "))
        bytes += path.utf8
        bytes.append(UInt8(ascii: "\n"))
    }

    /// A build record as the marker holds it: JSON on one line.
    static func encoded(_ record: BuildRecord) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(record)
    }

    /// Every folder that holds one of `paths`, at any depth (not the root).
    static func folders(of paths: [String]) -> Set<String> {
        var folders: Set<String> = []
        for path in paths {
            var current = VaultPath.folder(of: path)
            while !current.isEmpty, folders.insert(current).inserted { current = VaultPath.folder(of: current) }
        }
        return folders
    }

    /// Removes a previous build: the files its marker lists on every core, then its folders
    /// deepest first, then whatever else is left.
    static func remove(_ folder: URL, listing files: [String]) {
        let root = folder.path
        _ = Compiler.parallelMap(files) { path in unlink(root + "/" + path) }
        let byDepth = Dictionary(grouping: folders(of: files)) { $0.utf8.count(where: { $0 == UInt8(ascii: "/") }) }
        for depth in byDepth.keys.sorted(by: >) {
            _ = Compiler.parallelMap(byDepth[depth] ?? []) { path in rmdir(root + "/" + path) }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Creates a file that must not exist yet and writes all of `data` into it; returns its
    /// ``VaultScanner/contentStamp(of:)`` once written.
    @discardableResult
    static func writeFile(_ data: Data, to path: String, sync: Bool = false) throws -> String? {
        try writeFile(OutputFile(path: path, data: data), to: path, sync: sync)
    }

    /// Writes `file` at `path` as ``writeFile(_:to:sync:)`` does, its SHA-256 taken meanwhile on
    /// another core: for a file of megabytes whose hash is not known yet.
    static func writeFileHashing(_ file: OutputFile, to path: String) throws -> (sha256: String, stamp: String?) {
        try Compiler.concurrently {
            file.sha256Hex
        } and: {
            try writeFile(file, to: path)
        }
    }

    /// How many bytes of small pieces ``writeFile(_:to:sync:)`` gathers before it writes them.
    static let gatheredPieces = 64 << 10

    /// Creates a file that must not exist yet and writes `file`'s bytes into it, piece by piece;
    /// returns its ``VaultScanner/contentStamp(of:)`` once written.
    @discardableResult
    static func writeFile(_ file: OutputFile, to path: String, sync: Bool = false) throws -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw LockerError.io("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        /// Writes all of `buffer`.
        func put(_ buffer: UnsafeRawBufferPointer) throws {
            var offset = 0
            while offset < buffer.count {
                guard let base = buffer.baseAddress else { return }
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw LockerError.io("cannot write \(path): \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
        // Small pieces are gathered and written together: a marker rebuilt after a template
        // changed alternates kept and new lines, thousands of pieces of a line or two each.
        var gathered: [UInt8] = []
        try file.forEachPiece { piece in
            if piece.count >= Self.gatheredPieces {
                try gathered.withUnsafeBytes(put)
                gathered.removeAll(keepingCapacity: true)
                try put(piece)
                return
            }
            if gathered.count + piece.count > Self.gatheredPieces {
                try gathered.withUnsafeBytes(put)
                gathered.removeAll(keepingCapacity: true)
            }
            if gathered.capacity == 0 { gathered.reserveCapacity(Self.gatheredPieces) }
            gathered.append(contentsOf: piece)
        }
        try gathered.withUnsafeBytes(put)
        if sync, fsync(descriptor) != 0 {
            throw LockerError.io("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        return fstat(descriptor, &status) == 0 ? VaultScanner.contentStamp(of: status) : nil
    }

    #if os(Linux)
        /// `syncfs(2)`, which Glibc's module map leaves out (it needs `_GNU_SOURCE`).
        @_silgen_name("syncfs") private static func syncfs(_ descriptor: Int32) -> Int32
    #endif

    /// Flushes the file system that holds `path` to the disk: once for the whole output.
    static func flush(_ path: String) {
        #if os(Linux)
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { return sync() }
            _ = syncfs(descriptor)
            close(descriptor)
        #else
            sync()
        #endif
    }

    static func create(_ folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw LockerError.io("cannot create \(folder.path): \(error.localizedDescription)")
        }
    }
}
