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
/// the next marker as the same bytes (``OutputLedger``). A rebuild of one note of a large vault
/// looks up each of its output files once: a dictionary of strings made for them cost more than
/// the rest of its commit.
struct OutputMarker: Sendable {
    /// Where a line's fields are in ``bytes``: `<sha256> <stamp> <inputs> <path>`.
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
    /// Whether the paths come in byte order, as ``OutputWriter/markerText(_:record:)`` writes them.
    let isSorted: Bool
    /// The bytes of the build's record, the JSON after ``recordPrefix`` (``record``).
    private let recordBytes: Range<Int>?
    /// Whether its lines can go into the next marker as they are: its paths are in order, and
    /// its bytes are UTF-8 (a damaged marker's line is written anew, as
    /// ``OutputWriter/markerText(_:record:)`` writes it, with U+FFFD for a byte that is not).
    let linesAreCopyable: Bool

    /// A marker that lists nothing (a first build).
    static let empty = OutputMarker(Data())

    /// The marker's second line, naming its format: `<sha256> <stamp> <inputs> <path>` lines.
    /// A marker without it lists nothing: its folder is rebuilt whole.
    static let formatLine = "format 2"

    /// The start of the line after ``formatLine`` that holds the build's record, when the build
    /// was one `locker build` can tell is up to date (``OutputWriter/upToDate(_:fingerprint:prefetched:)``).
    static let recordPrefix = "record "

    /// Reads a marker: its first line is a heading, then ``formatLine``, then maybe the record
    /// (``recordPrefix``), then a line per file. A line with too few fields is passed over; a
    /// later line of a path wins.
    init(_ data: Data) {
        self.init(bytes: data.withUnsafeBytes { Array($0) })
    }

    /// Reads a marker from its bytes (see ``init(_:)``).
    init(bytes: [UInt8]) {
        var bytes = bytes
        // Offsets are 32-bit: a marker of 2 GiB is damaged, and read as listing nothing, which
        // makes the next build write everything anew.
        if bytes.count >= Int(Int32.max) { bytes = [] }
        var lines: [Line] = []
        lines.reserveCapacity(bytes.count / 150)
        let format = Array(Self.formatLine.utf8)
        let recordPrefix = Array(Self.recordPrefix.utf8)
        var recordBytes: Range<Int>?
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
                if lineNumber == 1 {
                    guard end - start == format.count,
                        UnsafeBufferPointer(rebasing: buffer[start..<end]).elementsEqual(format)
                    else { return }
                    continue
                }
                if lineNumber == 2, UnsafeBufferPointer(rebasing: buffer[start..<end]).starts(with: recordPrefix) {
                    recordBytes = (start + recordPrefix.count)..<end
                    continue
                }
                // The fields before the path, each ended by a space; the path is the rest.
                func field(after index: Int) -> Int? {
                    guard index < end, let space = memchr(base + index, 0x20, end - index) else { return nil }
                    return base.distance(to: space.assumingMemoryBound(to: UInt8.self)) + 1
                }
                guard let stamp = field(after: start), let inputs = field(after: stamp),
                    let path = field(after: inputs)
                else { continue }
                lines.append(
                    Line(
                        start: Int32(start), stamp: Int32(stamp), inputs: Int32(inputs), path: Int32(path),
                        end: Int32(end)))
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
        self.isSorted = sorted
        self.recordBytes = recordBytes
        linesAreCopyable = sorted && bytes.isValidUTF8
    }

    /// The build's record, when the marker holds one that can be read.
    var record: BuildRecord? {
        guard let recordBytes else { return nil }
        return try? JSONDecoder().decode(BuildRecord.self, from: Data(bytes[recordBytes]))
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
    /// anywhere in the marker.
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
            inputs: text(line.inputs, line.path - 1))
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
        !hasInputs(nil, at: index)
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

    /// Calls `body` with the marker's lines and bytes as they lie in memory: the survey's lookups
    /// read them through pointers, each without retaining the arrays (which, taken through
    /// slices and closures, was a measurable part of the survey's time).
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
    /// times as much, and the marker is the build's own file, its paths hashed many times in
    /// every rebuild.
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
