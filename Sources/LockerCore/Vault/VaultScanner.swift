import Foundation
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file found in the vault.
struct VaultFile: Sendable, Hashable {
    /// Relative to the vault, `/`-separated, NFC.
    var path: String
    /// Where it is on disk: the vault's standardized path and `/`, then the file's path as
    /// listed (a plain string: a `URL` per file was a large part of a scan's time).
    var absolutePath: String
    /// The stamp a walk found the file with (``VaultWalk``), which a build takes instead of a
    /// `stat` of its own; nil from a scan, and for a link. Not part of the file's identity.
    var stamp: FileStamp? = nil

    static func == (lhs: VaultFile, rhs: VaultFile) -> Bool {
        lhs.path == rhs.path && lhs.absolutePath == rhs.absolutePath
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(absolutePath)
    }
}

/// What a scan of the vault found: the notes, the other files links may point at, and problems.
struct VaultListing: Sendable {
    var notes: [VaultFile] = []
    var assets: [VaultFile] = []
    var diagnostics: [Diagnostic] = []

    /// Lists a file as a note or an asset, by its name.
    fileprivate mutating func add(_ file: VaultFile) {
        if VaultPath.isNote(file.path) {
            notes.append(file)
        } else {
            assets.append(file)
        }
    }

    /// Puts the notes and the assets in byte order of their paths.
    fileprivate mutating func sort() {
        /// The files in byte order of their paths; not moved when they are in it already.
        func sorted(_ files: [VaultFile]) -> [VaultFile] {
            if !files.indices.dropFirst().contains(where: { !files[$0 - 1].path.utf8Precedes(files[$0].path) }) {
                return files
            }
            return files.map(\.path).utf8SortedOffsets().map { files[$0] }
        }
        notes = sorted(notes)
        assets = sorted(assets)
    }
}

/// Walks a vault folder.
///
/// Hidden files and folders (`.obsidian/`, `.git/`, `.trash/`) are skipped; so is the output
/// folder when it lies inside the vault, and anything `exclude` names. Symbolic links are followed
/// only when they stay inside the vault.
struct VaultScanner: Sendable {
    var root: URL
    var config: VaultConfig
    /// Folders to skip, as absolute standardized paths (the output folder).
    var skipping: [String] = []

    func scan() throws -> VaultListing {
        let rootPath = root.resolvingSymlinksInPath().standardizedFileURL.path
        let start = root.standardizedFileURL.path
        var listing = VaultListing()
        let skipped = Set(skipping)
        guard let top = Self.entries(of: start) else {
            throw LockerError.io("cannot read the vault folder \(root.path)")
        }
        // Depth first, each folder's entries in name order; the lists are sorted at the end anyway.
        var pending: [(relative: String, entries: [Entry])] = [("", top)]
        while let (folder, entries) = pending.popLast() {
            for entry in entries where !entry.name.hasPrefix(".") {
                let relative = folder.isEmpty ? entry.name : folder + "/" + entry.name
                let absolute = start + "/" + relative
                let path = VaultPath.normalize(relative)
                var kind = entry.kind
                if kind == .unknown { kind = Self.kind(at: absolute) }
                switch kind {
                case .folder:
                    if skipped.contains(absolute) || config.isExcluded(path) { continue }
                    if let children = Self.entries(of: absolute) { pending.append((relative, children)) }
                    continue
                case .file:
                    break
                case .link:
                    if config.isExcluded(path) || path == VaultConfig.fileName { continue }
                    guard Self.readsLink(at: absolute, path: path, rootPath: rootPath, into: &listing) else { continue }
                case .other, .unknown:
                    continue
                }
                if config.isExcluded(path) || path == VaultConfig.fileName { continue }
                listing.add(VaultFile(path: path, absolutePath: absolute))
            }
        }
        listing.sort()
        return listing
    }

    /// The listing of the files a walk found (``walk(root:skipping:)``), as ``scan()`` would list
    /// them: a build that took the walk for its fingerprint need not read the folders again, and
    /// builds the files the fingerprint stands for. Nil when the walk could not read the vault's
    /// folder (``scan()`` says why).
    func listing(of walk: VaultWalk) -> VaultListing? {
        guard !walk.folders.isEmpty, walk.skipped == Set(skipping) else { return nil }
        let rootPath = root.resolvingSymlinksInPath().standardizedFileURL.path
        let config = self.config
        // Each run of the walk's files on a core of its own: the paths normalized, the files
        // left out by the settings dropped. Links, which may warn, are looked at afterwards.
        let runs = Compiler.parallelMap(Compiler.runs(of: walk.entries.count, length: 1024)) { run in
            // Whether a file's folder, or a folder above it, is excluded, as a scan asks of each
            // folder it would enter; asked once per folder, since the walk lists a folder's files
            // together. (Found by bytes: a `/` before a combining mark is no `Character` of its own.)
            var lastFolder: (path: String, excluded: Bool)?
            func inExcludedFolder(_ path: String) -> Bool {
                guard let end = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return false }
                if let lastFolder, lastFolder.path.hasSameBytes(as: Substring(path.utf8[..<end])) {
                    return lastFolder.excluded
                }
                var excluded = false
                var next = path.utf8.startIndex
                while !excluded, let slash = path.utf8[next...].firstIndex(of: UInt8(ascii: "/")) {
                    excluded = config.isExcluded(String(Substring(path.utf8[..<slash])))
                    next = path.utf8.index(after: slash)
                }
                lastFolder = (String(Substring(path.utf8[..<end])), excluded)
                return excluded
            }
            return run.compactMap { index -> (file: VaultFile, isLink: Bool)? in
                let entry = walk.entries[index]
                let path = VaultPath.normalize(entry.relative)
                if config.isExcluded(path) || path == VaultConfig.fileName || inExcludedFolder(path) { return nil }
                return (VaultFile(path: path, absolutePath: entry.absolute, stamp: entry.stamp), entry.isLink)
            }
        }
        var listing = VaultListing()
        for (file, isLink) in runs.joined() {
            if isLink, !Self.readsLink(at: file.absolutePath, path: file.path, rootPath: rootPath, into: &listing) {
                continue
            }
            listing.add(file)
        }
        listing.sort()
        return listing
    }

    /// Whether the link at `absolute` is read: it leads to a file inside the vault. One that leads
    /// outside is warned about.
    private static func readsLink(at absolute: String, path: String, rootPath: String, into listing: inout VaultListing)
        -> Bool
    {
        let target = URL(fileURLWithPath: absolute).resolvingSymlinksInPath().standardizedFileURL.path
        guard target == rootPath || target.hasPrefix(rootPath + "/") else {
            listing.diagnostics.append(
                Diagnostic(.warning, .fileOutsideVault, "symbolic link leads outside the vault; not read", file: path))
            return false
        }
        return kind(at: target, following: true) == .file
    }

    fileprivate enum Kind { case file, folder, link, other, unknown }

    fileprivate struct Entry {
        var name: String
        var kind: Kind
    }

    /// A folder's entries with their types as `readdir(3)` reports them: one system call per
    /// batch of entries rather than a `stat` per file.
    fileprivate static func entries(of path: String) -> [Entry]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var entries: [Entry] = []
        while let pointer = readdir(directory) {
            // Fields are read in place: an entry is only as long as its name, so copying the
            // whole `dirent` (`pointer.pointee`) reads past its end (found by AddressSanitizer).
            guard let namePointer = pointer.pointer(to: \.d_name), let typePointer = pointer.pointer(to: \.d_type)
            else { continue }
            let name = String(cString: UnsafeRawPointer(namePointer).assumingMemoryBound(to: CChar.self))
            if name == "." || name == ".." { continue }
            let kind: Kind =
                switch Int32(typePointer.pointee) {
                case Int32(DT_DIR): .folder
                case Int32(DT_REG): .file
                case Int32(DT_LNK): .link
                case Int32(DT_UNKNOWN): .unknown
                default: .other
                }
            entries.append(Entry(name: name, kind: kind))
        }
        entries.sort { $0.name.utf8Precedes($1.name) }
        return entries
    }

    /// What is at a path, for file systems whose `readdir` does not say.
    private static func kind(at path: String, following: Bool = false) -> Kind {
        var status = stat()
        guard (following ? stat(path, &status) : lstat(path, &status)) == 0 else { return .other }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return .folder
        case S_IFREG: return .file
        case S_IFLNK: return .link
        default: return .other
        }
    }

    static func relativePath(_ path: String, root: String) -> String? {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return String(path.dropFirst(prefix.count))
    }
}

/// What a walk of the vault found (``VaultScanner/walk(root:skipping:)``).
struct VaultWalk: Sendable {
    /// Every file's path and stamp as bytes, in the order found, in runs of files (each made
    /// on a core, hashed one after the other rather than joined): what ``BuildFingerprint``
    /// hashes. A path is followed by a zero byte, a tag, and the stamp's six numbers (a link's
    /// own and its target's), 8 bytes each: no text is made per file.
    var recordRuns: [[UInt8]]
    /// The bytes of ``recordRuns``, joined.
    var record: [UInt8] { Array(recordRuns.joined()) }

    /// The SHA-256, in hex, of `prefix` then the record, hashed run by run.
    func recordSHA256(after prefix: [UInt8] = []) -> String {
        ContentHash.sha256Hex(pieces: [prefix[...]] + recordRuns.map { $0[...] })
    }
    /// The folders it entered, the vault's own first, as absolute paths: what a watcher watches.
    var folders: [String] = []
    /// The regular files and the links it found, in the order found: what a build that follows
    /// lists (``VaultScanner/listing(of:)``).
    var entries: [Entry] = []
    /// The folders it left out, as absolute standardized paths.
    var skipped: Set<String> = []

    /// A file a walk found.
    struct Entry: Sendable {
        /// Relative to the vault, as listed (not normalized).
        var relative: String
        var absolute: String
        /// A regular file's stamp; nil for a link.
        var stamp: FileStamp?

        /// A symbolic link to a file, not a regular file.
        var isLink: Bool { stamp == nil }
    }

    /// The stamp of each regular file by its absolute path, made anew at each call: for tests
    /// and tools; a build takes each file's stamp from its listing (``VaultFile/stamp``).
    var files: [String: FileStamp] {
        Dictionary(entries.compactMap { entry in entry.stamp.map { (entry.absolute, $0) } }, uniquingKeysWith: { $1 })
    }
}

extension VaultScanner {
    /// Every file under `root` that a build could read, with its stamp (``VaultWalk``): hidden
    /// files and folders and the `skipping` folders left out, links to files followed, links
    /// to folders not.
    ///
    /// Folders are listed a level at a time on every core (`readdir` says which entries are
    /// folders), then every file is looked at on every core. `locker serve` walks the vault this
    /// way four times a second, so a walk makes no string per file.
    static func walk(root: URL, skipping: Set<String>) -> VaultWalk {
        let start = root.standardizedFileURL.path
        let listings = listFolders(under: start, skipping: skipping)
        // Each file with the place of its folder in `folders`, in the order of their paths.
        var found: [(relative: String, absolute: String, folder: Int)] = []
        // Made at its size: grown by doubling, its copies were megabytes of memory touched for
        // the first time.
        found.reserveCapacity(listings.values.reduce(0) { $0 + ($1?.files.count ?? 0) })
        var folders: [String] = []
        // The files in the order of their paths' bytes, which the build lists them in
        // (``VaultListing``): they are not sorted again (their sort was a measurable part of
        // every rebuild). A folder's files come where its name with a `/` after it comes among
        // its parent's files. Depth first, on a stack of its own rather than the thread's: a
        // vault may nest folders as deep as paths go.
        var entered: [EnteredFolder] = []
        func enter(_ folder: String) {
            guard let listing = listings[Array(folder.utf8)] ?? nil else { return }
            folders.append(listing.absolute)
            entered.append(EnteredFolder(listing: listing, place: folders.count - 1))
        }
        enter("")
        while let current = entered.last {
            if let file = current.nextFile() {
                found.append((file.relative, file.absolute, current.place))
            } else if let folder = current.nextFolder() {
                enter(folder)
            } else {
                entered.removeLast()
            }
        }
        enum Tag: UInt8 {
            case regular = 1
            case link
            case other
        }
        let (files, folderPaths) = (found, folders)
        // Runs of files on every core: each gives its bytes, and its regular files' stamps. A
        // file is looked up by its name in its folder, open while the run is in it: the kernel
        // walks one name rather than the whole path.
        let runs = Compiler.parallelMap(Compiler.runs(of: files.count, length: 512)) { run in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(run.count * 120)
            var listed: [(Int, FileStamp?)] = []
            listed.reserveCapacity(run.count)
            var current: (folder: Int, descriptor: Int32)?
            defer { if let current, current.descriptor >= 0 { close(current.descriptor) } }
            for index in run {
                let (relative, absolute, folder) = files[index]
                if current?.folder != folder {
                    if let current, current.descriptor >= 0 { close(current.descriptor) }
                    current = (folder, open(folderPaths[folder], O_RDONLY | O_DIRECTORY | O_CLOEXEC))
                }
                var status = stat()
                let nameStart = folderPaths[folder].utf8.count + 1
                guard Self.linkStatus(of: absolute, nameFrom: nameStart, in: current?.descriptor ?? -1, &status)
                else { continue }
                let stamp = FileStamp(status)
                let tag: Tag
                var target: FileStamp?
                switch status.st_mode & S_IFMT {
                case S_IFDIR:
                    // A folder since it was listed: the vault is changing, and the next walk sees it.
                    continue
                case S_IFLNK:
                    // A link counts by what it leads to (a scan reads only links to files); every
                    // link is listed, so that one leading out of the vault is warned about.
                    listed.append((index, nil))
                    var status = stat()
                    guard stat(absolute, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
                    (tag, target) = (.link, FileStamp(status))
                case S_IFREG:
                    tag = .regular
                    listed.append((index, stamp))
                default:
                    tag = .other
                }
                bytes += relative.utf8
                bytes.append(0)
                bytes.append(tag.rawValue)
                stamp.append(to: &bytes)
                target?.append(to: &bytes)
            }
            return (bytes, listed)
        }
        var walk = VaultWalk(recordRuns: runs.map(\.0), folders: folders, skipped: skipping)
        walk.entries.reserveCapacity(files.count)
        for (_, listed) in runs {
            for (index, stamp) in listed {
                let (relative, absolute, _) = files[index]
                walk.entries.append(.init(relative: relative, absolute: absolute, stamp: stamp))
            }
        }
        return walk
    }

    /// What a folder of the vault holds, as a walk lists it.
    private struct FolderListing: Sendable {
        /// The folder's absolute path.
        var absolute: String
        /// Its files (and links), not hidden, by path from the vault and absolute, in `readdir`'s order.
        var files: [(relative: String, absolute: String)] = []
        /// Its folders to enter, by path from the vault, in `readdir`'s order.
        var folders: [String] = []
    }

    /// Every folder under `start` (the vault) a walk enters, by the bytes of its path from the
    /// vault (the vault itself as none); nil for one that could not be read. The folders of each
    /// level are read side by side, on every core. Keyed by bytes, not strings: two folders whose
    /// names are one text composed and decomposed are equal strings, and both are walked.
    private static func listFolders(under start: String, skipping: Set<String>) -> [[UInt8]: FolderListing?] {
        var listings: [[UInt8]: FolderListing?] = [:]
        var level = [""]
        while !level.isEmpty {
            let read = Compiler.parallelMap(level) { folder -> FolderListing? in
                let absolute = folder.isEmpty ? start : start + "/" + folder
                guard let entries = Self.entries(of: absolute) else { return nil }
                var listing = FolderListing(absolute: absolute)
                let prefix = folder.isEmpty ? "" : folder + "/"
                for entry in entries where !entry.name.hasPrefix(".") {
                    let kind = entry.kind == .unknown ? Self.kind(at: absolute + "/" + entry.name) : entry.kind
                    let relative = prefix + entry.name
                    if kind != .folder {
                        listing.files.append((relative, start + "/" + relative))
                    } else if !skipping.contains(start + "/" + relative) {
                        // Folders are entered; links to folders never are, as in a scan.
                        listing.folders.append(relative)
                    }
                }
                return listing
            }
            for (folder, listing) in zip(level, read) { listings[Array(folder.utf8)] = listing }
            level = read.flatMap { $0?.folders ?? [] }
        }
        return listings
    }

    /// A folder the walk is in (``walk(root:skipping:)``): its files and folders, in the order
    /// of their paths, a folder's name read with a `/` after it.
    private final class EnteredFolder {
        let listing: FolderListing
        /// The folder's place among the folders entered.
        let place: Int
        private var file = 0
        private var folder = 0

        init(listing: FolderListing, place: Int) {
            self.listing = listing
            self.place = place
        }

        /// The next file, when it comes before the next folder's files (or there is no folder left).
        func nextFile() -> (relative: String, absolute: String)? {
            guard file < listing.files.count,
                folder == listing.folders.count
                    || VaultScanner.precedes(file: listing.files[file].relative, folder: listing.folders[folder])
            else { return nil }
            defer { file += 1 }
            return listing.files[file]
        }

        /// The next folder, to enter before the files after it.
        func nextFolder() -> String? {
            guard folder < listing.folders.count else { return nil }
            defer { folder += 1 }
            return listing.folders[folder]
        }
    }

    /// Whether the file at `file` comes before every file in the folder at `folder` (both from
    /// the vault, in one folder), as their paths' bytes order them: the folder read as its name
    /// and a `/`.
    fileprivate static func precedes(file: String, folder: String) -> Bool {
        var (file, folder) = (file.utf8.makeIterator(), folder.utf8.makeIterator())
        while true {
            guard let byte = file.next() else { return true }
            guard let other = folder.next() else { return byte < UInt8(ascii: "/") }
            if byte != other { return byte < other }
        }
    }

    /// `lstat` of the file at `path`, by the part of it from the byte `nameStart` on (its name)
    /// in `folder`, its folder's descriptor; by the whole path when there is none (-1).
    private static func linkStatus(
        of path: String, nameFrom nameStart: Int, in folder: Int32, _ status: inout stat
    ) -> Bool {
        guard folder >= 0, nameStart < path.utf8.count else { return lstat(path, &status) == 0 }
        return path.withCString { fstatat(folder, $0 + nameStart, &status, AT_SYMLINK_NOFOLLOW) == 0 }
    }

    /// A file's size, inode and modification time, without the change time (which a hard link
    /// changes): how the output's files are recognised as the ones a build wrote.
    static func contentStamp(of status: stat) -> String { FileStamp(status).contentText }
}
