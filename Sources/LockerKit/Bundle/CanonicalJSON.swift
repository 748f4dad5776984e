import Foundation

/// Writes JSON that is byte-identical for identical values on every platform.
///
/// Object keys are ordered by their UTF-8 bytes, integers are plain decimals, doubles use
/// Swift's shortest round-trip form, slashes are never escaped, and non-ASCII text is written as
/// UTF-8. The output ends with a newline. Bundle files are ``Layout/compact``, one line, since
/// only programs read them; reports for people are ``Layout/indented`` by two spaces.
package enum CanonicalJSON {
    /// Whitespace between values.
    package enum Layout: Sendable {
        /// No whitespace at all: `{"a":[1,2]}`.
        case compact
        /// One value per line, indented by two spaces, `": "` after keys.
        case indented
    }

    /// Encodes a value through its `Encodable` conformance straight into a tree, then writes it canonically.
    package static func encode(_ value: some Encodable, layout: Layout = .indented) throws -> Data {
        var writer = Writer(layout: layout)
        writer.write(try JSONValueEncoder().node(for: value), indent: 0)
        writer.out.append(0x0A)
        return Data(writer.out)
    }

    /// Writes a JSON value canonically.
    package static func data(for value: JSONValue, layout: Layout = .indented) -> Data {
        var writer = Writer(layout: layout)
        writer.write(value, indent: 0)
        writer.out.append(0x0A)
        return Data(writer.out)
    }

    private struct Writer {
        let layout: Layout
        var out: [UInt8] = []

        init(layout: Layout, capacity: Int = 8192) {
            self.layout = layout
            out.reserveCapacity(capacity)
        }

        mutating func write(_ node: JSONNode, indent: Int) {
            if node.members != nil {
                let members = node.sortedMembers
                out.append(0x7B)
                for (index, member) in members.enumerated() {
                    separate(index, indent: indent)
                    key(member.key)
                    write(member.child, indent: indent + 1)
                }
                close(0x7D, count: members.count, indent: indent)
            } else if let elements = node.elements {
                out.append(0x5B)
                for (index, element) in elements.enumerated() {
                    separate(index, indent: indent)
                    write(element, indent: indent + 1)
                }
                close(0x5D, count: elements.count, indent: indent)
            } else {
                write(node.scalar ?? .object([:]), indent: indent)
            }
        }

        mutating func write(_ child: JSONNode.Child, indent: Int) {
            switch child {
            case .value(let value): write(value, indent: indent)
            case .node(let node): write(node, indent: indent)
            }
        }

        mutating func write(_ value: JSONValue, indent: Int) {
            switch value {
            case .null: out.append(contentsOf: "null".utf8)
            case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
            case .int(let number): CanonicalJSON.writeInt(number, into: &out)
            case .double(let number):
                if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
                    out.append(contentsOf: String(Int(number)).utf8)
                } else if number.isFinite {
                    out.append(contentsOf: number.description.utf8)
                } else {
                    out.append(contentsOf: "null".utf8)
                }
            case .string(let text): CanonicalJSON.writeString(text, into: &out)
            case .array(let values):
                out.append(0x5B)
                for (index, element) in values.enumerated() {
                    separate(index, indent: indent)
                    write(element, indent: indent + 1)
                }
                close(0x5D, count: values.count, indent: indent)
            case .object(let members):
                let keys = members.keys.sorted { $0.utf8Precedes($1) }
                out.append(0x7B)
                for (index, name) in keys.enumerated() {
                    separate(index, indent: indent)
                    key(name)
                    write(members[name] ?? .null, indent: indent + 1)
                }
                close(0x7D, count: keys.count, indent: indent)
            }
        }

        private mutating func separate(_ index: Int, indent: Int) {
            if index > 0 { out.append(0x2C) }
            if layout == .indented { newline(indent + 1) }
        }

        private mutating func key(_ name: String) {
            CanonicalJSON.writeString(name, into: &out)
            out.append(0x3A)
            if layout == .indented { out.append(0x20) }
        }

        private mutating func close(_ bracket: UInt8, count: Int, indent: Int) {
            if count > 0, layout == .indented { newline(indent) }
            out.append(bracket)
        }

        private mutating func newline(_ indent: Int) {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: indent * 2))
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether a byte is written as an escape rather than as itself.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F
    }

    /// Whether any of the eight bytes of `word` is one ``needsEscape(_:)`` holds. A byte below
    /// 0x20 sets its top bit in `word - 0x20…` and in `~word`; an equal byte is a zero byte of
    /// the `xor`. A borrow into the next byte starts only at such a byte, so a word without one
    /// is never taken for one.
    static func mayNeedEscape(_ word: UInt64) -> Bool {
        let (ones, high): (UInt64, UInt64) = (0x0101_0101_0101_0101, 0x8080_8080_8080_8080)
        func hasZeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & high }
        let below = (word &- ones &* 0x20) & ~word & high
        return below | hasZeroByte(word ^ (ones &* 0x22)) | hasZeroByte(word ^ (ones &* 0x5C))
            | hasZeroByte(word ^ (ones &* 0x7F)) != 0
    }

    /// Writes a JSON value compactly at the end of `out`.
    static func write(_ value: JSONValue, compactInto out: inout [UInt8]) {
        var writer = Writer(layout: .compact, capacity: 0)
        swap(&writer.out, &out)
        writer.write(value, indent: 0)
        swap(&writer.out, &out)
    }

    /// Writes an integer in plain decimal.
    static func writeInt(_ number: Int, into out: inout [UInt8]) {
        if number < 0 { out.append(0x2D) }
        var magnitude = number.magnitude
        let start = out.count
        repeat {
            out.append(0x30 + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        out[start...].reverse()
    }

    /// Writes a string, quoted, with its quotes, backslashes and control characters escaped.
    /// The runs between them are copied whole: every ETag has two quotes, much text a few.
    static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(0x22)
        writeEscaped(text, into: &out)
        out.append(0x22)
    }

    /// Writes a string's bytes as ``writeString(_:into:)`` does between its quotes.
    static func writeEscaped(_ text: String, into out: inout [UInt8]) {
        /// Copies the bytes in runs between the ones escaped, looked at eight at a time until
        /// a word may hold one: a build writes a hundred megabytes of strings for 10,000 notes,
        /// byte by byte a few nanoseconds each.
        func escaping(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let base = bytes.baseAddress else { return }
            let raw = UnsafeRawPointer(base)
            var (start, offset) = (0, 0)
            while offset < bytes.count {
                while offset + 8 <= bytes.count,
                    !mayNeedEscape(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                {
                    offset += 8
                }
                for place in offset..<min(offset + 8, bytes.count) where needsEscape(base[place]) {
                    out.append(contentsOf: UnsafeBufferPointer(start: base + start, count: place - start))
                    writeEscape(base[place], into: &out)
                    start = place + 1
                }
                offset += 8
            }
            out.append(contentsOf: UnsafeBufferPointer(start: base + start, count: bytes.count - start))
        }
        // Read in place: `withUTF8` needs a copy of the string it may make contiguous, a retain
        // and a release for each of the millions of strings a build writes.
        if text.utf8.withContiguousStorageIfAvailable(escaping) == nil {
            var text = text
            text.withUTF8(escaping)
        }
    }

    /// Writes the escape of a byte ``needsEscape(_:)`` holds.
    private static func writeEscape(_ byte: UInt8, into out: inout [UInt8]) {
        // Byte by byte: an array literal here is an array made for each escape (two for every
        // ETag, which is quoted).
        out.append(0x5C)
        switch byte {
        case 0x22: out.append(0x22)
        case 0x5C: out.append(0x5C)
        case 0x0A: out.append(0x6E)
        case 0x0D: out.append(0x72)
        case 0x09: out.append(0x74)
        default:
            out.append(0x75)
            out.append(0x30)
            out.append(0x30)
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
    }
}
