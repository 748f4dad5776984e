import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes the build output so that the output folder is always either the previous build or
/// the new one, never a mix.
///
/// Everything is written into a staging folder beside the output folder, then swapped in with
/// two renames on the same file system. A folder that holds anything but a previous Locker build
/// is never replaced.
///
/// Files are written on every core with plain `write(2)` calls and no per-file sync; the file
/// system is synced once, before the swap, so a crash never leaves a swapped-in folder of
/// unwritten files.
public enum OutputWriter {
    /// Marks a folder as Locker's output, so a later build may replace it.
    public static let marker = ".locker-build"

    public static func replace(_ output: URL, with files: [OutputFile]) throws {
        let fileManager = FileManager.default
        let output = output.standardizedFileURL
        let parent = output.deletingLastPathComponent()
        try create(parent)
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: output.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw LockerError.usage("\(output.path) exists and is not a folder; refusing to replace it")
            }
            let contents = (try? fileManager.contentsOfDirectory(atPath: output.path)) ?? []
            if !contents.isEmpty, !fileManager.fileExists(atPath: output.appendingPathComponent(marker).path) {
                throw LockerError.usage(
                    "\(output.path) holds files that locker build did not write; refusing to replace it (choose another --out, or empty it)")
            }
        }
        let token = UUID().uuidString.prefix(8)
        let staging = parent.appendingPathComponent(".\(output.lastPathComponent).staging-\(token)")
        let previous = parent.appendingPathComponent(".\(output.lastPathComponent).previous-\(token)")
        do {
            try create(staging)
            let folders = Set(files.map { VaultPath.folder(of: $0.path) }).subtracting([""])
            for folder in folders.sorted() {
                try create(staging.appendingPathComponent(folder, isDirectory: true))
            }
            let failures = Compiler.parallelMap(Array(files.indices)) { index -> String? in
                let file = files[index]
                do {
                    try writeFile(file.data, to: staging.path + "/" + file.path)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            if let failure = failures.compactMap({ $0 }).first { throw LockerError.io(failure) }
            try writeFile(
                Data("This folder is written by locker build and replaced whole by the next build.\n".utf8),
                to: staging.path + "/" + marker)
            flush(staging.path)
            if fileManager.fileExists(atPath: output.path) {
                try fileManager.moveItem(at: output, to: previous)
                do {
                    try fileManager.moveItem(at: staging, to: output)
                } catch {
                    try? fileManager.moveItem(at: previous, to: output)
                    throw error
                }
                try? fileManager.removeItem(at: previous)
            } else {
                try fileManager.moveItem(at: staging, to: output)
            }
        } catch let error as LockerError {
            try? fileManager.removeItem(at: staging)
            throw error
        } catch {
            try? fileManager.removeItem(at: staging)
            throw LockerError.io("cannot write \(output.path): \(error.localizedDescription)")
        }
    }

    /// Creates a file that must not exist yet and writes all of `data` into it.
    private static func writeFile(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw LockerError.io("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
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
    }

    #if os(Linux)
        /// `syncfs(2)`, which Glibc's module map leaves out (it needs `_GNU_SOURCE`).
        @_silgen_name("syncfs") private static func syncfs(_ descriptor: Int32) -> Int32
    #endif

    /// Flushes the file system that holds `path` to the disk: once for the whole output.
    private static func flush(_ path: String) {
        #if os(Linux)
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { return sync() }
            _ = syncfs(descriptor)
            close(descriptor)
        #else
            sync()
        #endif
    }

    private static func create(_ folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw LockerError.io("cannot create \(folder.path): \(error.localizedDescription)")
        }
    }
}
