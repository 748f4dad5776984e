import Foundation
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What each folder of the vault held when the last build walked it, by the folder's stamp: a
/// folder with the same stamp (inode, size, modification and change times) holds the same
/// entries, so the next walk takes them from here rather than read the folder again. Git's
/// untracked cache rests on the same rule.
///
/// Adding, removing or renaming an entry changes its folder's modification time; editing a file
/// does not, and the walk looks at every file anyway. A folder is kept only when its stamp had
/// settled before the walk began (last changed two whole seconds before it): two changes within
/// one tick of the file system's clock can leave the same time, and the second would go unseen.
/// Only folders on the vault's own device, on a file system known to keep folders' times
/// (``isTrusted(_:device:)``), with times set, are kept: FAT gives its root folder no times, and a
/// network file system's times come from another clock, or from a cache of attributes.
///
/// `locker build` writes it beside its output (``fileName``); reading the folders' entries cost
/// a one-note rebuild of 10,000 notes in 50 folders 4–5 ms of CPU, 3–4 ms of it the kernel's
/// `getdents`. The
/// bytes end with their SHA-256, and every name is checked to be one a folder can hold: a
/// damaged or forged cache, which could hide a note or lead the walk elsewhere, is not read.
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
                let text = try reader.string()
                // The vault's own folder, or names joined by `/`.
                guard
                    text.isEmpty
                        || text.split(separator: "/", omittingEmptySubsequences: false).allSatisfy(
                            { Self.isEntryName($0) })
                else { return nil }
                let path = Array(text.utf8)
                let stamp = FileStamp(
                    size: try reader.int64(), inode: UInt64(bitPattern: try reader.int64()),
                    modifiedSeconds: try reader.int64(), modifiedNanoseconds: try reader.int64(),
                    changedSeconds: try reader.int64(), changedNanoseconds: try reader.int64())
                let folder = Folder(stamp: stamp, files: try reader.strings(), folders: try reader.strings())
                guard folder.files.allSatisfy({ Self.isEntryName($0[...]) }),
                    folder.folders.allSatisfy({ Self.isEntryName($0[...]) })
                else { return nil }
                folders[path] = folder
            }
            guard reader.atEnd else { return nil }
        } catch {
            return nil
        }
    }

    /// The cache the build into `output` left; nil when there is none (or something else than a
    /// regular file is in its place), or it is damaged. (A walk takes it only for the vault it
    /// was made of.)
    init?(output: URL) {
        let path = output.standardizedFileURL.path + "/" + Self.fileName
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size < Self.largest,
            let bytes = try? FileBytes.contents(of: path), let cache = FolderCache(bytes: bytes)
        else { return nil }
        self = cache
    }

    /// Whether `environment` turns the cache off (`LOCKER_FOLDER_CACHE=off`), for a file system
    /// whose folders' times do not follow their entries and that ``isTrusted(_:device:)`` takes
    /// for one that does.
    static func isOff(in environment: [String: String]) -> Bool { environment["LOCKER_FOLDER_CACHE"] == "off" }

    /// The most bytes a cache is read with: far more than the names of a million files.
    static let largest = 256 << 20

    /// Whether `name` is one a walk keeps: not empty, not hidden (nor `.` or `..`), without a
    /// `/` or a zero byte.
    static func isEntryName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: ".") else { return false }
        return !name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(0)
    }

    /// Whether folders' stamps on the file system of the folder at `path` (whose device is
    /// `device`) follow their entries, as the cache needs: the local file systems known to
    /// (ext2/3/4, XFS, Btrfs, ZFS, F2FS, tmpfs, overlayfs; APFS and HFS+ on macOS). FAT and exFAT,
    /// network and FUSE file systems are not trusted: every folder on them is read at every walk.
    static func isTrusted(_ path: String, device: UInt64) -> Bool {
        #if canImport(Darwin)
            var status = statfs()
            guard statfs(path, &status) == 0 else { return false }
            let name = withUnsafeBytes(of: status.f_fstypename) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            return ["apfs", "hfs"].contains(name)
        #else
            return fileSystemType(device: device).map(trustedTypes.contains) ?? false
        #endif
    }

    /// The file systems ``isTrusted(_:device:)`` trusts on Linux, as `/proc/self/mountinfo`
    /// names them.
    static let trustedTypes: Set<String> = ["ext2", "ext3", "ext4", "xfs", "btrfs", "zfs", "f2fs", "tmpfs", "overlay"]

    /// The type of the file system mounted from `device` (major and minor, as `stat` gives
    /// them), from `/proc/self/mountinfo`: after the optional fields, a `-` and the type.
    static func fileSystemType(device: UInt64) -> String? {
        guard let bytes = try? FileBytes.contents(of: "/proc/self/mountinfo") else { return nil }
        // glibc's `major` and `minor`.
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
        let minor = (device & 0xFF) | ((device >> 12) & ~0xFF)
        let wanted = "\(major):\(minor)"
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2, fields[2] == wanted, let dash = fields.firstIndex(of: "-"),
                dash + 1 < fields.count
            else { continue }
            return String(fields[dash + 1])
        }
        return nil
    }
}
