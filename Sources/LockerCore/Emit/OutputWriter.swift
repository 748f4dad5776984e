import Foundation
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes the build output so that no file is ever half written and the output folder is the
/// previous build until the build commits (``Transaction``). A folder that holds anything but a
/// previous Locker build is never replaced.
///
/// Files are written with plain `write(2)` calls and no per-file sync; the file system is synced
/// once, before the first build's rename or the journal, so a crash never leaves a committed
/// build of unwritten files.
public enum OutputWriter {
    /// The marker's name in the output folder (``OutputMarker``).
    public static let marker = ".locker-build"

    /// Folders that another program makes in the output from the build's files, which no build
    /// writes or lists: the site's search index, which Pagefind makes from the pages
    /// (`python3 -m pagefind --site <out>/site`). A commit that writes or removes a file of the
    /// folder's parent (`site/`) removes the folder with its journal, for it describes the
    /// previous files; a commit that changes nothing there, or a build that is up to date,
    /// leaves it. So the index in an output folder is either made from the pages beside it or
    /// gone, never older than they are; `locker build` says when it removed one.
    public static let derivedFolders = [SiteBuilder.folder + "/" + SiteBuilder.searchFolder]

    /// The derived folders (``derivedFolders``) in `output` that a commit writing `written` and
    /// removing `removals` makes stale.
    static func staleFolders(in output: String, written: [String], removals: [String]) -> [String] {
        derivedFolders.filter { folder in
            let parent = VaultPath.folder(of: folder) + "/"
            let changes = { (path: String) in path.hasPrefix(parent) && !path.hasPrefix(folder + "/") }
            var status = stat()
            return lstat(output + "/" + folder, &status) == 0
                && (written.contains(where: changes) || removals.contains(where: changes))
        }
    }

    /// The record of the build in `output`, from its marker, when it was made from inputs with
    /// this fingerprint and every file it wrote is still there; nil otherwise, and while another
    /// build writes into the folder (whose marker may be about to change).
    public static func upToDate(_ output: URL, fingerprint: BuildFingerprint) -> BuildRecord? {
        let output = output.standardizedFileURL
        // Held, shared, while the folder is read, so no build commits meanwhile; a build that
        // is about to write waits for it. A build that holds it is writing: not up to date.
        let lock: OutputLock?
        do {
            lock = try OutputLock(for: output, shared: true)
        } catch {
            return nil
        }
        defer { withExtendedLifetime(lock) {} }
        // A commit that did not finish is finished by the next build, not taken as up to date.
        // Its record first: the files are read and looked at only when it holds.
        guard Journal.saved(in: output) == nil,
            let record = OutputMarker(in: output, recordOnly: true)?.record, record.fingerprint == fingerprint,
            let marker = OutputMarker(in: output), !marker.files.isEmpty, marker.changedFiles(in: output).isEmpty
        else { return nil }
        return record
    }

    /// Starts writing a build into `output`, after finishing what a build that stopped during
    /// its commit left in its journal. The folder stays locked until the transaction is released
    /// (``OutputLock``): a second build into it throws rather than interleave its files.
    public static func begin(replacing output: URL) throws -> any OutputTransaction {
        let output = output.standardizedFileURL
        let lock = try OutputLock(for: output)
        // With the lock held, a staging folder beside the output was left by a killed build.
        if lock != nil {
            let parent = output.deletingLastPathComponent()
            let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
            for name in names where name.hasPrefix(".\(output.lastPathComponent).staging-") {
                try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
            }
        }
        // The folder is Locker's before anything in it is applied or removed.
        var previous = try previousFiles(of: output)
        if previous != nil, try Journal.recover(output) { previous = try previousFiles(of: output) }
        return try Transaction(output: output, previous: previous, lock: lock)
    }

    /// The files of the previous build in `output`; nil when there is no folder. Throws when
    /// `output` must not be replaced: a symbolic link, a file, or a folder of files no build
    /// wrote. A folder whose marker lists nothing (an earlier `locker`'s) lists every file in
    /// it, unknown: each is written again or removed.
    static func previousFiles(of output: URL) throws -> OutputMarker? {
        var status = stat()
        guard lstat(output.path, &status) == 0 else { return nil }
        if status.st_mode & S_IFMT == S_IFLNK {
            throw LockerError.usage(
                "\(output.path) is a symbolic link; give the folder it leads to as --out, so the build replaces that folder and not the link"
            )
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw LockerError.usage("\(output.path) exists and is not a folder; refusing to replace it")
        }
        let fileManager = FileManager.default
        let names = (try? fileManager.contentsOfDirectory(atPath: output.path)) ?? []
        if !names.isEmpty, !names.contains(marker) {
            throw LockerError.usage(
                "\(output.path) holds files that locker build did not write; refusing to replace it (choose another --out, or empty it)"
            )
        }
        var previous = OutputMarker(in: output) ?? OutputMarker()
        if previous.files.isEmpty {
            for path in (try? fileManager.subpathsOfDirectory(atPath: output.path)) ?? []
            where OutputMarker.isInside(path) {
                var status = stat()
                if lstat(output.path + "/" + path, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
                    previous.files[path] = OutputMarker.Entry(sha256: OutputMarker.Entry.unhashed)
                }
            }
        }
        return previous
    }

    /// Replaces the output folder with these files.
    public static func replace(_ output: URL, with files: [OutputFile]) throws {
        let transaction = try begin(replacing: output)
        do {
            for file in files { try transaction.write(file) }
            try transaction.commit()
        } catch {
            transaction.discard()
            throw error
        }
    }

    /// Creates a file that must not exist yet and writes `file`'s bytes into it, piece by piece;
    /// returns its stamp (``FileStamp/contentText``) once written.
    @discardableResult
    static func writeFile(_ file: OutputFile, to path: String, sync: Bool = false) throws -> String {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("cannot create \(path)") }
        defer { close(descriptor) }
        try file.forEachPiece { piece in
            var offset = 0
            while offset < piece.count, let base = piece.baseAddress {
                let written = write(descriptor, base + offset, piece.count - offset)
                if written < 0, errno != EINTR { throw failure("cannot write \(path)") }
                offset += max(written, 0)
            }
        }
        var status = stat()
        guard !sync || fsync(descriptor) == 0, fstat(descriptor, &status) == 0 else {
            throw failure("cannot write \(path)")
        }
        return FileStamp(status).contentText
    }

    /// Replaces the file at `path` with `data` in one step: a temporary file beside it, renamed.
    static func replaceFile(_ data: Data, at path: String, sync: Bool = false) throws {
        let temporary = path + ".locker-new"
        unlink(temporary)
        do {
            try writeFile(OutputFile(path: path, data: data), to: temporary, sync: sync)
            guard rename(temporary, path) == 0 else { throw failure("cannot write \(path)") }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// An I/O error: `what`, and why, from `errno`.
    static func failure(_ what: String) -> LockerError {
        LockerError.io("\(what): \(String(cString: strerror(errno)))")
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
}
