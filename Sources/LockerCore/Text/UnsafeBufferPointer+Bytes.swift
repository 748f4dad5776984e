import Foundation

extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether both hold the same bytes, compared with `memcmp`: the generic comparison goes byte
    /// by byte, and paths, names and stamps are compared by the thousand.
    func hasSameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        guard let left = baseAddress, let right = other.baseAddress else { return true }
        return memcmp(left, right, count) == 0
    }
}

extension Array where Element == UInt8 {
    /// Whether the bytes are well-formed UTF-8. ASCII, the common case, is told eight bytes at a
    /// time, without the copy `String(validating:)` makes of the whole.
    var isValidUTF8: Bool {
        let ascii = withUnsafeBytes { raw -> Bool in
            var offset = 0
            var high: UInt64 = 0
            while offset + 8 <= raw.count {
                high |= raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < raw.count {
                high |= UInt64(raw[offset])
                offset += 1
            }
            return high & 0x8080_8080_8080_8080 == 0
        }
        return ascii || String(validating: self, as: UTF8.self) != nil
    }
}
