import Foundation

extension String {
    /// Whether the string's UTF-8 bytes sort before `other`'s: the order paths and keys are
    /// written in, the same whatever the locale or the Unicode normalisation.
    ///
    /// Compared with `memcmp` over the strings' own storage; `utf8.lexicographicallyPrecedes`
    /// gives the same answer a byte at a time, which shows in sorts of many thousand paths.
    package func utf8Precedes(_ other: String) -> Bool {
        let ordered = utf8.withContiguousStorageIfAvailable { lhs in
            other.utf8.withContiguousStorageIfAvailable { rhs -> Bool in
                let common = Swift.min(lhs.count, rhs.count)
                if common > 0, let left = lhs.baseAddress, let right = rhs.baseAddress {
                    let order = memcmp(left, right, common)
                    if order != 0 { return order < 0 }
                }
                return lhs.count < rhs.count
            }
        }
        return (ordered ?? nil) ?? utf8.lexicographicallyPrecedes(other.utf8)
    }
}

extension Array where Element == String {
    /// The offsets of the strings in the order of their UTF-8 bytes (``String/utf8Precedes(_:)``).
    ///
    /// Each string's first 16 bytes are read once into two integers, so most comparisons of a
    /// sort of many thousand paths compare two integers; strings alike that far compare their bytes.
    package func utf8SortedOffsets() -> [Int] {
        let prefixes = map(Self.prefixKey)
        return indices.sorted { left, right in
            let (a, b) = (prefixes[left], prefixes[right])
            if a != b { return a < b }
            return self[left].utf8Precedes(self[right])
        }
    }

    /// The first 16 bytes, big-endian, padded with zeros: ordered as the bytes are, except that
    /// a string and the same string followed by zero bytes come out alike (and are compared whole).
    private static func prefixKey(_ string: String) -> (UInt64, UInt64) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var position = 0
        for byte in string.utf8 {
            if position < 8 {
                high |= UInt64(byte) << (56 - 8 * position)
            } else {
                low |= UInt64(byte) << (56 - 8 * (position - 8))
            }
            position += 1
            if position == 16 { break }
        }
        return (high, low)
    }
}
