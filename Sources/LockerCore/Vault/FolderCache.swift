import Foundation
import LockerKit

/// What each folder of the vault held when the last build walked it, by the folder's stamp: a
/// folder with the same stamp (inode, size, modification and change times) holds the same
/// entries, so the next walk takes them from here rather than read the folder again. Git's
/// untracked cache rests on the same rule.
///
/// Adding, removing or renaming an entry changes its folder's modification time; editing a file
/// does not, and the walk looks at every file anyway. A folder is kept only when its stamp had
/// settled before the walk began (changed in an earlier second): two changes within one tick of
/// the file system's clock can leave the same time, and the second would go unseen.
///
/// `locker build` writes it beside its output (``fileName``); reading a folder's entries cost
/// a one-note rebuild of 10,000 notes 3–4 ms of kernel time in `getdents`. The bytes end with
/// their SHA-256: a damaged cache, which could hide a note, is not read.
struct FolderCache: Sendable, Equatable {
    /// The name of the file in the output folder.
    static let fileName = ".locker-folders"

    /// A folder's entries, hidden ones left out, in the order a walk reads them.
    struct Folder: Sendable, Equatable {
        var stamp: FileStamp
        /// The names of its files, links and other entries that are not folders.
        var files: [String]
        /// The names of the folders in it.
        var folders: [String]
    }

    /// The vault's standardized path: a cache of another vault is not taken.
    var vault: String
    /// Each folder by the bytes of its path from the vault (the vault itself as none): two names
    /// that are one text composed and decomposed are two folders. The paths are the walk's
    /// strings, valid UTF-8, so they are written and read back as text.
    var folders: [[UInt8]: Folder] = [:]

    init(vault: String, folders: [[UInt8]: Folder] = [:]) {
        self.vault = vault
        self.folders = folders
    }

    private static let magic = Array("locker-folders 1\n".utf8)
    /// The SHA-256 in hex that ends the bytes.
    private static let checksumLength = 64

    /// The bytes ``init(bytes:)`` reads back, folders in the order of their paths' bytes.
    var encoded: [UInt8] {
        var writer = RecordWriter(capacity: 64 + folders.values.reduce(0) { $0 + 64 + 16 * $1.files.count })
        writer.append(Self.magic[...])
        writer.write(vault)
        writer.write(UInt64(folders.count))
        for (path, folder) in folders.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            writer.write(String(decoding: path, as: UTF8.self))
            for value in [
                folder.stamp.size, Int64(bitPattern: folder.stamp.inode), folder.stamp.modifiedSeconds,
                folder.stamp.modifiedNanoseconds, folder.stamp.changedSeconds, folder.stamp.changedNanoseconds,
            ] {
                writer.write(value)
            }
            writer.write(folder.files)
            writer.write(folder.folders)
        }
        var bytes = writer.bytes
        bytes += ContentHash.sha256Hex(bytes).utf8
        return bytes
    }

    /// The cache in `bytes`; nil when they are not one this program wrote, whole.
    init?(bytes: [UInt8]) {
        let bodyEnd = bytes.count - Self.checksumLength
        guard bodyEnd >= Self.magic.count, bytes[..<Self.magic.count].elementsEqual(Self.magic),
            bytes[bodyEnd...].elementsEqual(ContentHash.sha256Hex(bytes[..<bodyEnd]).utf8)
        else { return nil }
        var reader = RecordReader(bytes, in: Self.magic.count..<bodyEnd)
        do {
            vault = try reader.string()
            let count = try reader.count()
            for _ in 0..<count {
                let path = Array(try reader.string().utf8)
                let stamp = FileStamp(
                    size: try reader.int64(), inode: UInt64(bitPattern: try reader.int64()),
                    modifiedSeconds: try reader.int64(), modifiedNanoseconds: try reader.int64(),
                    changedSeconds: try reader.int64(), changedNanoseconds: try reader.int64())
                folders[path] = Folder(stamp: stamp, files: try reader.strings(), folders: try reader.strings())
            }
            guard reader.atEnd else { return nil }
        } catch {
            return nil
        }
    }

    /// The cache the build into `output` left; nil when there is none, or it is damaged. (A
    /// walk takes it only for the vault it was made of.)
    init?(output: URL) {
        guard let bytes = try? FileBytes.contents(of: output.standardizedFileURL.path + "/" + Self.fileName),
            let cache = FolderCache(bytes: bytes)
        else { return nil }
        self = cache
    }
}
