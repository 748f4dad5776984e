/// Writes values as compact bytes for a record the next build reads back (``NoteRecord``):
/// integers as LEB128 varints (signed ones zigzagged), texts as a length and their UTF-8 bytes.
///
/// Not JSON: the record of a large vault holds tens of thousands of texts, and reading it is on
/// the path of every rebuild, where a JSON decoder alone would take longer than the rebuild.
struct RecordWriter {
    private(set) var bytes: [UInt8] = []

    init() {}

    /// A writer with room for `capacity` bytes: a record's runs are hundreds of kilobytes, which
    /// growing by doubling would copy, each time into memory the system must first clear.
    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func write(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func write(_ value: Int) {
        let wide = Int64(value)
        write(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
    }

    mutating func write(_ value: Int64) {
        write(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func write(_ text: String) {
        let utf8 = text.utf8
        write(UInt64(utf8.count))
        bytes += utf8
    }

    mutating func write(_ text: String?) {
        write(text != nil)
        if let text { write(text) }
    }

    mutating func write(_ value: Int?) {
        write(value != nil)
        if let value { write(value) }
    }

    mutating func write(_ texts: [String]) {
        write(UInt64(texts.count))
        for text in texts { write(text) }
    }

    mutating func write(_ position: SourcePosition) {
        write(position.line)
        write(position.column)
    }
}

/// Reads what a ``RecordWriter`` wrote, checking every length against the bytes left: a record
/// cut short or damaged throws ``RecordReader/Damaged`` rather than reading past its end.
struct RecordReader {
    /// The record is not what a writer of this format wrote.
    struct Damaged: Error {}

    private let bytes: [UInt8]
    private var offset: Int
    /// Where the bytes it reads end.
    private let end: Int

    /// Reads `bytes`, or the part of them in `range` (clamped to them: strings are read through
    /// a pointer, which checks no bounds of its own).
    init(_ bytes: [UInt8], in range: Range<Int>? = nil) {
        self.bytes = bytes
        end = min(max(range?.upperBound ?? bytes.count, 0), bytes.count)
        offset = min(max(range?.lowerBound ?? 0, 0), end)
    }

    /// Whether every byte has been read.
    var atEnd: Bool { offset == end }

    /// Where it reads next, in the bytes it was given.
    var bytesRead: Int { offset }

    mutating func unsigned() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < end {
            let byte = bytes[offset]
            offset += 1
            guard shift < 64 else { throw Damaged() }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        throw Damaged()
    }

    mutating func int64() throws -> Int64 {
        let raw = try unsigned()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func int() throws -> Int {
        let value = try int64()
        guard let narrow = Int(exactly: value) else { throw Damaged() }
        return narrow
    }

    /// A count of things that follow, each at least a byte long: never more than the bytes left.
    mutating func count() throws -> Int {
        let value = try unsigned()
        guard value <= UInt64(end - offset) else { throw Damaged() }
        return Int(value)
    }

    /// A count that is not of elements in these bytes (a length of bytes in another file), at
    /// most `limit`.
    mutating func count(atMost limit: Int) throws -> Int {
        let value = try unsigned()
        guard value <= UInt64(limit) else { throw Damaged() }
        return Int(value)
    }

    mutating func bool() throws -> Bool {
        guard offset < end else { throw Damaged() }
        let byte = bytes[offset]
        offset += 1
        guard byte <= 1 else { throw Damaged() }
        return byte == 1
    }

    mutating func string() throws -> String {
        try withStringBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with a string's bytes, where they stand in the record: read through a
    /// pointer, not a slice of the array, which retained it for each of the many strings of a
    /// large vault's record.
    private mutating func withStringBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) throws -> Result {
        let length = try count()
        let start = offset
        offset += length
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<start + length])) }
    }

    mutating func optionalString() throws -> String? { try bool() ? try string() : nil }

    mutating func optionalInt() throws -> Int? { try bool() ? try int() : nil }

    /// A count, then that many elements read by `element`. Room is made for a few at once (most
    /// lists are short: a guide's links, its tags), and the rest grown into as elements are
    /// read, so a damaged count fails when the bytes run out instead of asking for memory it
    /// would never fill.
    mutating func list<Element>(_ element: (inout RecordReader) throws -> Element) throws -> [Element] {
        let count = try count()
        var elements: [Element] = []
        elements.reserveCapacity(Swift.min(count, 16))
        for _ in 0..<count { elements.append(try element(&self)) }
        return elements
    }

    mutating func strings() throws -> [String] { try list { try $0.string() } }

    mutating func position() throws -> SourcePosition {
        SourcePosition(line: try int(), column: try int())
    }
}
