import Foundation

extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether both hold the same bytes, compared with `memcmp`: the generic comparison goes byte
    /// by byte, and paths, names and stamps are compared by the thousand.
    func hasSameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        guard let left = baseAddress, let right = other.baseAddress else { return true }
        return memcmp(left, right, count) == 0
    }

    /// Whether every byte is ASCII, told eight bytes at a time.
    var isASCII: Bool {
        UnsafeRawBufferPointer(self).isASCII
    }
}

extension UnsafeRawBufferPointer {
    /// Whether every byte is ASCII, told eight bytes at a time.
    var isASCII: Bool {
        var offset = 0
        var high: UInt64 = 0
        while offset + 8 <= count {
            high |= loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < count {
            high |= UInt64(self[offset])
            offset += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}

extension Array where Element == UInt8 {
    /// Whether the bytes are well-formed UTF-8. ASCII, the common case, is told eight bytes at a
    /// time, without the copy `String(validating:)` makes of the whole.
    var isValidUTF8: Bool {
        withUnsafeBytes(\.isASCII) || String(validating: self, as: UTF8.self) != nil
    }
}
