import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files a build's marker lists (``OutputWriter/RecordedFile`` by path), read in place.
///
/// One pass over the marker's bytes finds its lines and puts their paths in a table; an entry's
/// strings are made only when it is asked for, and a line the next build keeps as it is goes into
/// the next marker as the same bytes (``OutputLedger``). A rebuild of one note of a 10,000-note
/// vault looks up each of its 20,000 output files once: a dictionary of strings made for them
/// cost more than the rest of its commit.
struct OutputMarker: Sendable {
    /// Where a line's fields are in ``bytes``: `<sha256> <stamp> <inputs> <path>` (`<inputs>`
    /// empty in a marker of an earlier `locker`, which had none).
    fileprivate struct Line: Sendable {
        var start: Int32
        var stamp: Int32
        var inputs: Int32
        var path: Int32
        /// Where the line ends, before its newline.
        var end: Int32
    }

    private let bytes: [UInt8]
    private let lines: [Line]
    /// Open addressing over ``lines`` by path: a line's place plus one, 0 for an empty slot.
    private let table: [Int32]
    /// Whether the lines have inputs (`format 2`): a line of an earlier marker is written anew.
    let hasInputs: Bool
    /// Whether the paths come in byte order, as ``OutputWriter/markerText(_:)`` writes them.
    let isSorted: Bool
    /// Whether its lines can go into the next marker as they are: it has inputs, its paths are
    /// in order, and its bytes are UTF-8 (a damaged marker's line is written anew, as
    /// ``OutputWriter/markerText(_:)`` writes it, with U+FFFD for a byte that is not).
    let linesAreCopyable: Bool
    /// The stamp of the marker file it was read from (``FileStamp/contentText``), when it was
    /// read from one: what a changes file written on it names (``OutputWriter/markerChanges``).
    let baseStamp: String?
    /// How many of ``bytes`` are the marker file's; the changes file's lines come after them.
    private let baseByteCount: Int
    /// How many lines the marker file has.
    let baseCount: Int
    /// Whether it was given a changes file it could not apply: not on this marker file (the
    /// folder copied, say, which changes the marker file's stamp), cut short, or out of order.
    /// Such a marker is not to be used at all: the marker file alone would not list the files
    /// the changes added.
    let changesRefused: Bool
    /// The paths (in ``bytes``) that the changes file removes from the marker file, and the
    /// lines taken from the changes file that replace one of the marker file's.
    private let removedFromBase: [Range<Int>]
    private let replacingBase: Set<Int>

    /// A marker that lists nothing (a first build).
    static let empty = OutputMarker(Data())

    /// The marker's second line, naming its format: `<sha256> <stamp> <inputs> <path>` lines.
    /// A marker without it (an earlier `locker`) has `<sha256> <stamp> <path>` lines.
    static let formatLine = "format 2"

    /// Reads a marker: its first line is a heading, then maybe ``formatLine``, then a line per
    /// file. A line with too few fields is passed over; a later line of a path wins.
    init(_ data: Data) {
        self.init(bytes: data.withUnsafeBytes { Array($0) })
    }

    /// The line of a changes file before its files: `base <stamp>`, the marker file's stamp.
    static let basePrefix = "base "
    /// What a changes file's line has for its SHA-256 when it removes the marker file's file.
    static let removal = "x"

    /// Reads a marker from its bytes (see ``init(_:)``).
    init(bytes: [UInt8]) {
        self.init(bytes: bytes, changes: nil, baseStamp: nil)
    }

    /// Reads a marker from its file's bytes, whose stamp was `baseStamp`, and the bytes of its
    /// changes file (``OutputWriter/markerChanges``): a heading, ``formatLine``, `base <stamp>`,
    /// then the lines of the files that differ from the marker file's, sorted by path, each
    /// replacing the marker file's line of its path; a line with ``removal`` for its SHA-256
    /// removes it. Changes that cannot be applied are refused (``changesRefused``).
    init(bytes base: [UInt8], changes: [UInt8]?, baseStamp: String?) {
        var bytes = base
        var baseByteCount = base.count
        var refused = changes != nil
        // How many lines the changes file has after its heading: each must be read.
        var changeCount = 0
        if let changes, let baseStamp, let lines = Self.changeLines(of: changes, on: baseStamp) {
            refused = false
            // The marker file's last line ends in a line break, or is given one.
            if let last = bytes.last, last != 0x0A {
                bytes.append(0x0A)
                baseByteCount += 1
            }
            bytes += changes[lines...]
            changeCount = changes[lines...].split(separator: 0x0A).count
        }
        // Offsets are 32-bit: a marker of 2 GiB (10,000 notes make 3.5 MB) is damaged, and read
        // as listing nothing, which makes the next build write everything anew.
        if bytes.count >= Int(Int32.max) { (bytes, baseByteCount) = ([], 0) }
        var lines: [Line] = []
        lines.reserveCapacity(bytes.count / 150)
        let format = Array(Self.formatLine.utf8)
        var hasInputs = false
        var lineNumber = 0
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            guard let base = buffer.baseAddress else { return }
            while start < buffer.count {
                let end =
                    memchr(base + start, 0x0A, buffer.count - start).map {
                        base.distance(to: $0.assumingMemoryBound(to: UInt8.self))
                    } ?? buffer.count
                defer { start = end + 1 }
                // Blank lines are passed over, and not counted.
                if end == start { continue }
                defer { lineNumber += 1 }
                if lineNumber == 0 { continue }
                if lineNumber == 1, end - start == format.count,
                    UnsafeBufferPointer(rebasing: buffer[start..<end]).elementsEqual(format)
                {
                    hasInputs = true
                    continue
                }
                // The fields before the path, each ended by a space; the path is the rest.
                // (Each field's start is found with `memchr`, into no array: 20,000 lines.)
                func field(after index: Int) -> Int? {
                    guard index < end, let space = memchr(base + index, 0x20, end - index) else { return nil }
                    return base.distance(to: space.assumingMemoryBound(to: UInt8.self)) + 1
                }
                guard let stamp = field(after: start), let inputs = field(after: stamp) else { continue }
                // Without inputs (an earlier marker), the second field is the path.
                let path: Int
                if hasInputs {
                    guard let after = field(after: inputs) else { continue }
                    path = after
                } else {
                    path = inputs
                }
                lines.append(
                    Line(
                        start: Int32(start), stamp: Int32(stamp), inputs: Int32(inputs), path: Int32(path),
                        end: Int32(end)))
            }
        }
        let baseCount = lines.firstIndex { Int($0.start) >= baseByteCount } ?? lines.count
        var removedFromBase: [Range<Int>] = []
        var replacingBase: Set<Int> = []
        if lines.count - baseCount != changeCount {
            refused = true
        } else if baseCount < lines.count {
            if let merged = Self.merged(lines, changesFrom: baseCount, in: bytes) {
                (lines, removedFromBase, replacingBase) = merged
            } else {
                refused = true
            }
        }
        // The table, twice as large as the lines at least; a later line of a path replaces the
        // earlier one where that stood.
        var size = 16
        while size < lines.count * 2 { size *= 2 }
        var table = [Int32](repeating: 0, count: size)
        var sorted = true
        var kept: [Line] = []
        kept.reserveCapacity(lines.count)
        bytes.withUnsafeBufferPointer { buffer in
            func path(_ line: Line) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: buffer[Int(line.path)..<Int(line.end)])
            }
            for line in lines {
                let key = path(line)
                var slot = Self.hash(key) & (size - 1)
                while true {
                    let taken = Int(table[slot])
                    if taken == 0 {
                        if let last = kept.last, !Self.precedes(path(last), key) { sorted = false }
                        kept.append(line)
                        table[slot] = Int32(kept.count)
                        break
                    }
                    if path(kept[taken - 1]).hasSameBytes(as: key) {
                        kept[taken - 1] = line
                        sorted = false
                        break
                    }
                    slot = (slot + 1) & (size - 1)
                }
            }
        }
        self.bytes = bytes
        self.lines = kept
        self.table = table
        self.hasInputs = hasInputs
        self.isSorted = sorted
        linesAreCopyable = hasInputs && sorted && bytes.isValidUTF8
        self.baseStamp = baseStamp
        self.baseByteCount = baseByteCount
        self.baseCount = baseCount
        self.removedFromBase = removedFromBase
        self.replacingBase = replacingBase
        changesRefused = refused
    }

    /// Where the lines of files start in `changes`, when it is a changes file on the marker file
    /// whose stamp is `baseStamp`; nil otherwise.
    private static func changeLines(of changes: [UInt8], on baseStamp: String) -> Int? {
        var start = 0
        var header: [ArraySlice<UInt8>] = []
        while header.count < 3 {
            guard let end = changes[start...].firstIndex(of: 0x0A) else { return nil }
            header.append(changes[start..<end])
            start = end + 1
        }
        guard header[1].elementsEqual(formatLine.utf8), header[2].elementsEqual((basePrefix + baseStamp).utf8)
        else { return nil }
        return start
    }

    /// The marker file's lines, sorted by path, with the changes file's from `changes` on: each
    /// replaces the marker file's line of its path, or adds one, or removes it (``removal``).
    /// Returns the lines in order, the paths removed from the marker file's, and the places of
    /// the lines that replace one of its lines; nil when either file's lines are out of order
    /// or list a path twice.
    private static func merged(
        _ lines: [Line], changesFrom changes: Int, in bytes: [UInt8]
    ) -> (lines: [Line], removed: [Range<Int>], replacing: Set<Int>)? {
        bytes.withUnsafeBufferPointer { buffer in
            func path(_ line: Line) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: buffer[Int(line.path)..<Int(line.end)])
            }
            func isRemoval(_ line: Line) -> Bool {
                UnsafeBufferPointer(rebasing: buffer[Int(line.start)..<Int(line.stamp) - 1]).elementsEqual(
                    removal.utf8)
            }
            let (base, added) = (lines[..<changes], lines[changes...])
            func sorted(_ part: ArraySlice<Line>) -> Bool {
                zip(part, part.dropFirst()).allSatisfy { precedes(path($0), path($1)) }
            }
            guard sorted(base), sorted(added) else { return nil }
            var result: [Line] = []
            result.reserveCapacity(lines.count)
            var removed: [Range<Int>] = []
            var replacing: Set<Int> = []
            var (left, right) = (base.startIndex, added.startIndex)
            while left < base.endIndex || right < added.endIndex {
                if right == added.endIndex || (left < base.endIndex && precedes(path(base[left]), path(added[right]))) {
                    result.append(base[left])
                    left += 1
                    continue
                }
                let change = added[right]
                right += 1
                let replaces = left < base.endIndex && path(base[left]).hasSameBytes(as: path(change))
                if replaces { left += 1 }
                if isRemoval(change) {
                    if replaces { removed.append(Int(change.path)..<Int(change.end)) }
                    continue
                }
                if replaces { replacing.insert(result.count) }
                result.append(change)
            }
            return (result, removed, replacing)
        }
    }

    /// The changes file that makes this marker, on its marker file, list the files of `entries`
    /// (new lines, by path) and of its lines that are `kept`: its lines for the files whose
    /// entries differ from the marker file's, and for those it lists that are gone. Nil when
    /// it was not read from a marker file, its lines cannot be copied, or it would have more
    /// than `limit` lines.
    func changes(keeping kept: [Bool], entries: [String: OutputWriter.RecordedFile], atMost limit: Int) -> [UInt8]? {
        guard let baseStamp, linesAreCopyable, kept.count == lines.count, entries.count <= limit else { return nil }
        var changed: [(path: ArraySlice<UInt8>, line: [UInt8])] = []
        var listed = Set<ArraySlice<UInt8>>()
        for (path, entry) in entries {
            var line: [UInt8] = []
            OutputWriter.appendLine(path: path, entry: entry, to: &line)
            let key = Array(path.utf8)[...]
            listed.insert(key)
            changed.append((key, line))
        }
        /// A line that removes the marker file's line of the path at `range` in the bytes.
        func removal(_ range: Range<Int>) {
            let path = bytes[range]
            guard !listed.contains(path) else { return }
            listed.insert(path)
            changed.append((path, Array((Self.removal + " - - ").utf8) + path + [0x0A]))
        }
        for range in removedFromBase { removal(range) }
        for (index, line) in lines.enumerated() {
            let fromChanges = Int(line.start) >= baseByteCount
            if kept[index] {
                // A line of the changes file kept as it is stays a change.
                if fromChanges {
                    changed.append((bytes[Int(line.path)..<Int(line.end)], Array(lineBytes(at: index)) + [0x0A]))
                }
            } else if !fromChanges || replacingBase.contains(index) {
                // The marker file lists it: gone, unless written anew (an entry).
                removal(Int(line.path)..<Int(line.end))
            }
        }
        guard changed.count <= limit else { return nil }
        changed.sort { $0.path.lexicographicallyPrecedes($1.path) }
        var file = Array(OutputWriter.markerStart.utf8) + Array((Self.basePrefix + baseStamp + "\n").utf8)
        for change in changed { file += change.line }
        return file
    }

    /// How many files it lists.
    var count: Int { lines.count }

    /// How long the marker is, in bytes.
    var byteCount: Int { bytes.count }

    /// The place of `path`'s line, if the marker lists it.
    func index(of path: String) -> Int? {
        var path = path
        return path.withUTF8 { index(ofBytes: $0) }
    }

    /// ``index(of:)``, looking first at the line after `previous`: files asked about in the
    /// order of their paths (a site's pages, in the order of their documents) are found in the
    /// lines next to each other, without the table's probe and the cache misses of a line
    /// anywhere in 3.5 MB.
    func index(of path: String, after previous: Int) -> Int? {
        var path = path
        return path.withUTF8 { key in
            if previous >= -1, previous < lines.count - 1, hasPath(key, at: previous + 1) { return previous + 1 }
            return index(ofBytes: key)
        }
    }

    private func index(ofBytes key: UnsafeBufferPointer<UInt8>) -> Int? {
        var slot = Self.hash(key) & (table.count - 1)
        while true {
            let taken = Int(table[slot])
            if taken == 0 { return nil }
            if hasPath(key, at: taken - 1) { return taken - 1 }
            slot = (slot + 1) & (table.count - 1)
        }
    }

    /// Whether the line at `index` (one of the marker's) lists the path `key`.
    private func hasPath(_ key: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        let line = lines[index]
        return bytes.withUnsafeBufferPointer { buffer in
            UnsafeBufferPointer(rebasing: buffer[Int(line.path)..<Int(line.end)]).hasSameBytes(as: key)
        }
    }

    /// The entry of `path`, if the marker lists it.
    subscript(path: String) -> OutputWriter.RecordedFile? {
        index(of: path).map(entry(at:))
    }

    /// The entry of the line at `index`.
    func entry(at index: Int) -> OutputWriter.RecordedFile {
        let line = lines[index]
        func text(_ from: Int32, _ to: Int32) -> String? {
            let field = bytes[Int(from)..<Int(to)]
            return field.elementsEqual([UInt8(ascii: "-")]) ? nil : String(decoding: field, as: UTF8.self)
        }
        return OutputWriter.RecordedFile(
            sha256: String(decoding: bytes[Int(line.start)..<Int(line.stamp - 1)], as: UTF8.self),
            stamp: text(line.stamp, line.inputs - 1),
            inputs: hasInputs ? text(line.inputs, line.path - 1) : nil)
    }

    /// The path of the line at `index`.
    func path(at index: Int) -> String {
        let line = lines[index]
        return String(decoding: bytes[Int(line.path)..<Int(line.end)], as: UTF8.self)
    }

    /// Every path it lists, in its order.
    var paths: [String] { lines.indices.map(path(at:)) }

    /// Every file it lists, by path.
    var files: [String: OutputWriter.RecordedFile] {
        Dictionary(lines.indices.map { (path(at: $0), entry(at: $0)) }, uniquingKeysWith: { _, later in later })
    }

    /// Whether the line at `index` records `sha256`.
    func hasSHA256(_ sha256: String, at index: Int) -> Bool {
        let line = lines[index]
        return field(Int(line.start), Int(line.stamp - 1), is: sha256)
    }

    /// Whether the line at `index` records `inputs` (nil: none).
    func hasInputs(_ inputs: String?, at index: Int) -> Bool {
        guard hasInputs else { return (inputs ?? "-") == "-" }
        let line = lines[index]
        return field(Int(line.inputs), Int(line.path - 1), is: inputs ?? "-")
    }

    /// Whether the bytes `from..<to` are `text`'s.
    private func field(_ from: Int, _ to: Int, is text: String) -> Bool {
        var text = text
        return text.withUTF8 { expected in
            bytes.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: $0[from..<to]).hasSameBytes(as: expected) }
        }
    }

    /// Whether the line at `index` records inputs (``PageInputs``).
    func recordsInputs(at index: Int) -> Bool {
        hasInputs && !self.hasInputs(nil, at: index)
    }

    /// Whether the file of line `index`, in the output folder `output`, has the recorded stamp:
    /// looked at by its whole path, when no survey answers for it.
    func isIntact(at index: Int, in output: URL) -> Bool {
        hasStamp(at: index, in: AT_FDCWD, under: output.path + "/")
    }

    /// Whether the file of the line at `index`, under the folder open as `folder` (or under
    /// `prefix`, an absolute folder path ending in `/`, with `AT_FDCWD`), is a regular file with
    /// the recorded stamp: the one the build wrote. No string is made for it.
    ///
    /// - Parameter skipping: how many bytes of the path `folder` stands for (see
    ///   ``stamps(of:in:)``); 0 when `folder` is the output folder.
    func hasStamp(at index: Int, in folder: Int32, under prefix: String = "", skipping: Int = 0) -> Bool {
        var prefix = prefix
        return prefix.withUTF8 { prefix in
            withLookup { $0.hasStamp(at: index, in: folder, under: prefix, skipping: skipping) }
        }
    }

    /// Whether the files of the lines in `range` are the ones the build wrote
    /// (``hasStamp(at:in:under:skipping:)``), under the output folder open as `folder`.
    ///
    /// Each file is looked up from a folder opened once for the lines (sorted by path) that
    /// share it: its own when the next line's file is beside it (`guide/en/` for a bundle
    /// file), else the one above (`guides/folder/` for a page in a folder of its own). The
    /// kernel then walks one name per bundle file and two per page rather than their whole
    /// paths, which was most of the time a rebuild spent looking at the previous build's files.
    func stamps(of range: Range<Int>, in folder: Int32) -> [Bool] {
        var found = [Bool](repeating: false, count: range.count)
        found.withUnsafeMutableBufferPointer { stamps(of: range, in: folder, into: $0) }
        return found
    }

    /// ``stamps(of:in:)`` into `found`, which holds `range.count` answers: without memory of its
    /// own, for the survey's thread (``OutputSurvey``), which then takes none from the allocator,
    /// whose first block for a thread is two megabytes of memory touched for the first time.
    func stamps(of range: Range<Int>, in folder: Int32, into found: UnsafeMutableBufferPointer<Bool>) {
        withLookup { $0.stamps(of: range, in: folder, into: found) }
    }

    /// Calls `body` with the marker's lines and bytes as they lie in memory: the survey's 20,000
    /// lookups read them through pointers, each without retaining the arrays (which, taken
    /// through slices and closures, was a sixth of the survey's time).
    private func withLookup<Result>(_ body: (Lookup) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { bytes in
            lines.withUnsafeBufferPointer { lines in body(Lookup(bytes: bytes, lines: lines)) }
        }
    }

    /// The marker's lines and bytes in place, for looking up the files they list.
    private struct Lookup {
        let bytes: UnsafeBufferPointer<UInt8>
        let lines: UnsafeBufferPointer<Line>

        /// No bytes: the prefix of a name looked up from a folder open for it, the path of a
        /// line whose offsets do not lie in the marker.
        static var empty: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: nil, count: 0) }

        /// ``OutputMarker/hasStamp(at:in:under:skipping:)``, with `prefix` as UTF-8.
        func hasStamp(
            at index: Int, in folder: Int32, under prefix: UnsafeBufferPointer<UInt8> = empty, skipping: Int = 0
        ) -> Bool {
            guard index >= 0, index < lines.count else { return false }
            let line = lines[index]
            let (stampStart, stampEnd) = (Int(line.stamp), Int(line.inputs) - 1)
            guard stampStart >= 0, stampEnd > stampStart, stampEnd <= bytes.count,
                !(stampEnd - stampStart == 1 && bytes[stampStart] == 0x2D)
            else { return false }
            let pathStart = Int(line.path) + skipping
            guard pathStart < Int(line.end) else { return false }
            return withName(pathStart..<Int(line.end), after: prefix, failing: false) { name in
                var status = stat()
                guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG
                else { return false }
                return FileStamp(status).hasContentText(
                    bytes: UnsafeBufferPointer(rebasing: bytes[stampStart..<stampEnd]))
            }
        }

        /// ``OutputMarker/stamps(of:in:into:)``.
        func stamps(of range: Range<Int>, in folder: Int32, into found: UnsafeMutableBufferPointer<Bool>) {
            var open: (line: Int, length: Int, folder: Int32)?
            defer { if let open, open.folder >= 0 { close(open.folder) } }
            for (slot, line) in zip(found.indices, range) {
                let (parent, anchor) = (parentLength(at: line), anchorLength(at: line))
                // The folder open for an earlier line, when it is this one's or the one above.
                if let current = open, current.length > 0, current.length == parent || current.length == anchor,
                    samePrefix(current.length, current.line, line)
                {
                    // A folder that could not be opened (no descriptor left, say): the whole path.
                    found[slot] =
                        current.folder >= 0
                        ? hasStamp(at: line, in: current.folder, skipping: current.length + 1)
                        : hasStamp(at: line, in: folder)
                    continue
                }
                let next = line + 1
                let besideNext =
                    parent > 0 && next < range.upperBound && parentLength(at: next) == parent
                    && samePrefix(parent, line, next)
                let length = besideNext ? parent : anchor
                if let current = open, current.folder >= 0 { close(current.folder) }
                open = nil
                guard length > 0 else {
                    found[slot] = hasStamp(at: line, in: folder)
                    continue
                }
                let opened = openPrefix(length, of: line, in: folder)
                open = (line, length, opened)
                found[slot] =
                    opened >= 0
                    ? hasStamp(at: line, in: opened, skipping: length + 1)
                    : hasStamp(at: line, in: folder)
            }
        }

        /// The bytes of the path of the line at `index`; empty when the line's offsets do not
        /// lie in the marker.
        private func path(at index: Int) -> UnsafeBufferPointer<UInt8> {
            guard index >= 0, index < lines.count else { return Self.empty }
            let (start, end) = (Int(lines[index].path), Int(lines[index].end))
            guard start >= 0, start <= end, end <= bytes.count else { return Self.empty }
            return UnsafeBufferPointer(rebasing: bytes[start..<end])
        }

        /// Where the last `/` of `path` before `end` is, counted from its start.
        private func lastSlash(in path: UnsafeBufferPointer<UInt8>, before end: Int) -> Int? {
            var index = end - 1
            while index >= 0 {
                if path[index] == UInt8(ascii: "/") { return index }
                index -= 1
            }
            return nil
        }

        /// How many bytes of the path of the line at `index` name its folder (up to its last `/`);
        /// 0 when it has none, or names no file after it.
        func parentLength(at index: Int) -> Int {
            let path = path(at: index)
            guard let last = lastSlash(in: path, before: path.count), last > 0, last + 1 < path.count else { return 0 }
            return last
        }

        /// How many bytes of the path of the line at `index` name the folder above its own (up to
        /// the path's last `/` but one); 0 when the path has fewer than two.
        func anchorLength(at index: Int) -> Int {
            let path = path(at: index)
            // An empty name between the two (`a//b`) would leave an absolute path to look up.
            guard let last = lastSlash(in: path, before: path.count), let anchor = lastSlash(in: path, before: last),
                anchor + 1 < last
            else { return 0 }
            return anchor
        }

        /// Whether the paths of the lines at `first` and `second` start with the same `length` bytes.
        func samePrefix(_ length: Int, _ first: Int, _ second: Int) -> Bool {
            let (one, other) = (path(at: first), path(at: second))
            guard length <= one.count, length <= other.count else { return false }
            return UnsafeBufferPointer(rebasing: one[..<length]).hasSameBytes(
                as: UnsafeBufferPointer(rebasing: other[..<length]))
        }

        /// The folder named by the first `length` bytes of the path of the line at `index`, opened
        /// under `folder`; -1 when it cannot be.
        func openPrefix(_ length: Int, of index: Int, in folder: Int32) -> Int32 {
            let start = Int(lines[index].path)
            return withName(start..<start + length, failing: -1) {
                openat(folder, $0, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            }
        }

        /// Calls `body` with `prefix` and the marker's bytes in `range` as a C string, made without
        /// a `String`; `failing` when the bytes hold a zero, which names no file the build wrote.
        private func withName<Result>(
            _ range: Range<Int>, after prefix: UnsafeBufferPointer<UInt8> = empty, failing: Result,
            _ body: (UnsafePointer<CChar>) -> Result
        ) -> Result {
            guard range.lowerBound >= 0, range.upperBound <= bytes.count, let source = bytes.baseAddress else {
                return failing
            }
            if memchr(source + range.lowerBound, 0, range.count) != nil { return failing }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix.count + range.count + 1) { name in
                guard let base = name.baseAddress else { return failing }
                if let start = prefix.baseAddress { memcpy(base, start, prefix.count) }
                memcpy(base + prefix.count, source + range.lowerBound, range.count)
                base[prefix.count + range.count] = 0
                return base.withMemoryRebound(to: CChar.self, capacity: prefix.count + range.count + 1) { body($0) }
            }
        }
    }

    /// The line at `index` as it stands in the marker, without its newline: what the next
    /// marker holds for a file kept as it is. Only for a marker with inputs.
    func lineBytes(at index: Int) -> ArraySlice<UInt8> {
        let line = lines[index]
        return bytes[Int(line.start)..<Int(line.end)]
    }

    /// Appends the lines at `range` as they stand in the marker, each with its newline: slices
    /// of the marker's bytes, not copies, one for the lines that stand side by side, as the lines
    /// of a marker written whole do.
    func appendLines(_ range: Range<Int>, to pieces: inout [ArraySlice<UInt8>]) {
        guard !range.isEmpty else { return }
        var first = range.lowerBound
        for index in range {
            let line = lines[index]
            let adjacent = index + 1 < range.upperBound && lines[index + 1].start == line.end + 1
            guard !adjacent else { continue }
            let (start, end) = (Int(lines[first].start), Int(line.end))
            // Lines end in a line break; the last may not.
            if end < bytes.count, bytes[end] == 0x0A {
                pieces.append(bytes[start...end])
            } else {
                pieces.append(bytes[start..<end])
                pieces.append([0x0A])
            }
            first = index + 1
        }
    }

    /// Whether the path of the line at `index` comes before `path` in byte order.
    func path(at index: Int, precedes path: String) -> Bool {
        var path = path
        return path.withUTF8 { key in
            bytes.withUnsafeBufferPointer { buffer in
                let line = lines[index]
                return Self.precedes(UnsafeBufferPointer(rebasing: buffer[Int(line.path)..<Int(line.end)]), key)
            }
        }
    }

    /// The first line whose path does not come before `path` in byte order (``count`` when
    /// none), found by halving: for a marker whose lines are sorted by path (``linesAreCopyable``).
    func firstLine(notPreceding path: String) -> Int {
        var (low, high) = (0, lines.count)
        while low < high {
            let middle = (low + high) / 2
            if self.path(at: middle, precedes: path) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Calls `body` with the path of each line, as bytes, and its place.
    func forEachPath(_ body: (UnsafeBufferPointer<UInt8>, Int) -> Void) {
        bytes.withUnsafeBufferPointer { buffer in
            for (index, line) in lines.enumerated() {
                body(UnsafeBufferPointer(rebasing: buffer[Int(line.path)..<Int(line.end)]), index)
            }
        }
    }

    /// A path's place in the table: its bytes taken eight at a time, multiplied and shifted in,
    /// then mixed so that every bit of them moves the low bits the table uses (MurmurHash3's
    /// finalizer). Not `Hasher`: SipHash, which resists keys chosen to collide, costs several
    /// times as much, and the marker is the build's own file, hashed 40,000 times a rebuild.
    private static func hash(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.count)
        // An empty key, with a base address or without, is its length alone.
        if let base = key.baseAddress {
            let raw = UnsafeRawPointer(base)
            var index = 0
            while index + 8 <= key.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                hash ^= hash >> 32
                index += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while index < key.count {
                tail |= UInt64(base[index]) << shift
                shift += 8
                index += 1
            }
            hash ^= tail
        }
        hash ^= hash >> 33
        hash = hash &* 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash = hash &* 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return Int(truncatingIfNeeded: hash) & Int.max
    }

    /// Byte order, as `String.utf8Precedes` compares: a prefix comes first.
    private static func precedes(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = min(lhs.count, rhs.count)
        guard common > 0, let left = lhs.baseAddress, let right = rhs.baseAddress else { return lhs.count < rhs.count }
        let order = memcmp(left, right, common)
        return order != 0 ? order < 0 : lhs.count < rhs.count
    }
}
