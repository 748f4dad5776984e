import Foundation

extension StringProtocol {
    /// Whether both texts have the same UTF-8 bytes (not canonical equivalence, which `==`
    /// checks), compared with `memcmp` where both lie in contiguous storage: the generic
    /// comparison goes byte by byte, and the notes' paths are compared by the ten thousand.
    func hasSameBytes(as other: some StringProtocol) -> Bool {
        let same = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in mine.hasSameBytes(as: theirs) }
        }
        return (same ?? nil) ?? utf8.elementsEqual(other.utf8)
    }

    /// Whether the text's UTF-8 bytes start with `prefix`'s, compared with `memcmp` where both
    /// lie in contiguous storage.
    func hasPrefixBytes(_ prefix: some StringProtocol) -> Bool {
        let starts = utf8.withContiguousStorageIfAvailable { mine in
            prefix.utf8.withContiguousStorageIfAvailable { theirs in
                mine.count >= theirs.count
                    && UnsafeBufferPointer(rebasing: mine[..<theirs.count]).hasSameBytes(as: theirs)
            }
        }
        return (starts ?? nil) ?? utf8.starts(with: prefix.utf8)
    }
}

/// Byte-level searches over UTF-8 text.
///
/// With Foundation imported, `String.contains(_:)` and `components(separatedBy:)` on strings go
/// through `NSString`'s locale-aware search, which converts to UTF-16 and is many times slower
/// than comparing bytes. The markdown and site code searches for ASCII markers (`==`, `  `,
/// `[[`), where a byte comparison gives the same answer.
extension StringProtocol {
    /// Whether the text contains `needle`, compared byte for byte.
    func containsBytes(_ needle: String) -> Bool {
        // One or two bytes, the markers the parser looks for in every run of text: a direct scan
        // of the text's storage, without setting up a general search.
        let pattern = needle.utf8
        if let first = pattern.first, pattern.count <= 2 {
            let second = pattern.count == 2 ? pattern[pattern.index(after: pattern.startIndex)] : nil
            let found = utf8.withContiguousStorageIfAvailable { bytes -> Bool in
                guard let base = bytes.baseAddress else { return false }
                guard let second else { return memchr(base, Int32(first), bytes.count) != nil }
                return Self.containsPair(bytes, first, second)
            }
            if let found { return found }
        }
        return firstByteRange(of: needle) != nil
    }

    /// Whether `bytes` holds `first` right before `second`, looked for eight bytes at a time.
    ///
    /// The marker pairs (two spaces, `==`) are searched in every run of text, where a space is
    /// too common for a search by its first byte alone.
    static func containsPair(_ bytes: UnsafeBufferPointer<UInt8>, _ first: UInt8, _ second: UInt8) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        // The top bit of each byte of `word` that is zero, and no other bit.
        func zeroBytes(_ word: UInt64) -> UInt64 { ~(((word & low) &+ low) | word | low) }
        let firsts = ones &* UInt64(first)
        let seconds = ones &* UInt64(second)
        var index = 0
        // Whether the byte before `index` is `first`.
        var afterFirst = false
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let isFirst = zeroBytes(word ^ firsts)
            let isSecond = zeroBytes(word ^ seconds)
            // Byte i is `first` and byte i + 1 is `second`, within the word or across its start.
            if isFirst & (isSecond >> 8) != 0 || (afterFirst && isSecond & 0x80 != 0) { return true }
            afterFirst = isFirst >> 63 != 0
            index += 8
        }
        while index < bytes.count {
            if afterFirst, base[index] == second { return true }
            afterFirst = base[index] == first
            index += 1
        }
        return false
    }

    /// The first occurrence of `needle`, compared byte for byte.
    func firstByteRange(of needle: String, from start: Index? = nil) -> Range<Index>? {
        let bytes = utf8
        let from = start ?? bytes.startIndex
        let found = bytes[from...].withContiguousStorageIfAvailable { haystack -> Range<Int>? in
            Self.search(haystack, for: needle)
        }
        if let found {
            guard let offsets = found else { return nil }
            let lower = bytes.index(from, offsetBy: offsets.lowerBound)
            return lower..<bytes.index(lower, offsetBy: offsets.count)
        }
        return Array(bytes[from...]).withUnsafeBufferPointer { Self.search($0, for: needle) }.map { offsets in
            let lower = bytes.index(from, offsetBy: offsets.lowerBound)
            return lower..<bytes.index(lower, offsetBy: offsets.count)
        }
    }

    /// The offsets of the first occurrence of `needle` in `haystack`.
    private static func search(_ haystack: UnsafeBufferPointer<UInt8>, for needle: String) -> Range<Int>? {
        var needle = needle
        return needle.withUTF8 { pattern -> Range<Int>? in
            guard let head = pattern.first, pattern.count <= haystack.count, let base = haystack.baseAddress else {
                return nil
            }
            var index = 0
            let last = haystack.count - pattern.count
            while index <= last {
                // The next candidate's first byte, found by the C library's vectorised scan.
                guard let found = memchr(base + index, Int32(head), last - index + 1) else { return nil }
                index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                var matched = 1
                while matched < pattern.count, haystack[index + matched] == pattern[matched] { matched += 1 }
                if matched == pattern.count { return index..<(index + pattern.count) }
                index += 1
            }
            return nil
        }
    }

    /// The pieces between occurrences of `separator` (which must not be empty), compared byte
    /// for byte; like `components(separatedBy:)`, empty pieces are kept.
    func splitBytes(_ separator: String) -> [SubSequence] {
        var pieces: [SubSequence] = []
        var start = startIndex
        while let found = firstByteRange(of: separator, from: start) {
            pieces.append(self[start..<found.lowerBound])
            start = found.upperBound
        }
        pieces.append(self[start...])
        return pieces
    }
}

extension StringProtocol {
    /// The text lowercased byte by byte, when it is ASCII (the usual path, file name or
    /// extension); nil otherwise, for the caller to go by characters instead.
    var asciiLowercased: String? {
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        return String(decoding: utf8.map { $0 &+ (($0 &- 0x41) < 26 ? 0x20 : 0) }, as: UTF8.self)
    }
}

extension String {
    /// The words of ASCII text, lowercased and joined by one `separator` byte: a word is a run
    /// of bytes that `isWordByte` accepts once lowercased, and every other run separates words.
    /// Nil when the text is not ASCII, for the caller to go by characters instead.
    func asciiLowercasedWords(joinedBy separator: UInt8, isWordByte: (UInt8) -> Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var pendingSeparator = false
        for byte in utf8 {
            guard byte < 0x80 else { return nil }
            let lower = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
            guard isWordByte(lower) else {
                pendingSeparator = true
                continue
            }
            if pendingSeparator, !bytes.isEmpty { bytes.append(separator) }
            pendingSeparator = false
            bytes.append(lower)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
