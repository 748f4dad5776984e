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
