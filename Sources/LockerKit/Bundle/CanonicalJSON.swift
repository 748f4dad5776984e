import Foundation

/// Writes JSON that is byte-identical for identical values on every platform.
///
/// Object keys are ordered by their UTF-8 bytes, integers are plain decimals, doubles use
/// Swift's shortest round-trip form, slashes are never escaped, and non-ASCII text is written as
/// UTF-8. Output is indented with two spaces and ends with a newline, so bundles diff well.
public enum CanonicalJSON {
    /// Encodes a value through its `Encodable` conformance straight into a tree, then writes it canonically.
    public static func encode(_ value: some Encodable) throws -> Data {
        data(for: try JSONValueEncoder().encode(value))
    }

    /// Writes a JSON value canonically.
    public static func data(for value: JSONValue) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(4096)
        write(value, indent: 0, into: &out)
        out.append(0x0A)
        return Data(out)
    }

    private static func write(_ value: JSONValue, indent: Int, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: Array("null".utf8))
        case .bool(let flag): out.append(contentsOf: Array((flag ? "true" : "false").utf8))
        case .int(let number): out.append(contentsOf: Array(String(number).utf8))
        case .double(let number):
            if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
                out.append(contentsOf: Array(String(Int(number)).utf8))
            } else if number.isFinite {
                out.append(contentsOf: Array(number.description.utf8))
            } else {
                out.append(contentsOf: Array("null".utf8))
            }
        case .string(let text): writeString(text, into: &out)
        case .array(let values):
            if values.isEmpty {
                out.append(contentsOf: [0x5B, 0x5D])
                return
            }
            out.append(0x5B)
            for (index, element) in values.enumerated() {
                if index > 0 { out.append(0x2C) }
                newline(indent + 1, into: &out)
                write(element, indent: indent + 1, into: &out)
            }
            newline(indent, into: &out)
            out.append(0x5D)
        case .object(let members):
            if members.isEmpty {
                out.append(contentsOf: [0x7B, 0x7D])
                return
            }
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            out.append(0x7B)
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(0x2C) }
                newline(indent + 1, into: &out)
                writeString(key, into: &out)
                out.append(contentsOf: [0x3A, 0x20])
                write(members[key] ?? .null, indent: indent + 1, into: &out)
            }
            newline(indent, into: &out)
            out.append(0x7D)
        }
    }

    private static func newline(_ indent: Int, into out: inout [UInt8]) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0x00..<0x20, 0x7F:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}
