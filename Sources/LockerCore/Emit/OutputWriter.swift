import Foundation

/// Writes the build output so that the output folder is always either the previous build or
/// the new one, never a mix.
///
/// Everything is written into a staging folder beside the output folder, then swapped in with
/// two renames on the same file system. A folder that holds anything but a previous Locker build
/// is never replaced.
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
            for file in files {
                let url = staging.appendingPathComponent(file.path)
                try create(url.deletingLastPathComponent())
                try file.data.write(to: url)
            }
            try Data("This folder is written by locker build and replaced whole by the next build.\n".utf8)
                .write(to: staging.appendingPathComponent(marker))
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

    private static func create(_ folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw LockerError.io("cannot create \(folder.path): \(error.localizedDescription)")
        }
    }
}
