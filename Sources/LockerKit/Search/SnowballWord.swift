/// The state a Snowball stemmer works on, and the Snowball runtime's primitives over it, as the
/// code Snowball 3.1.1 generates has them (`basestemmer.py` in its Python runtime): the word's
/// Unicode scalar values, a cursor, the limits it moves between, and the slice `[bra, ket)`
/// that `<-` and `delete` replace.
///
/// Positions count Unicode scalars, as Snowball's generated Python counts code points, so
/// `hop 3` means three scalars whatever the script. Every read is guarded by the limits, as
/// Snowball's are, and a slice out of order is left alone rather than trapping: no word crashes
/// a stemmer.
struct SnowballWord {
    /// The word, one Unicode scalar value each.
    var chars: [UInt32]
    var cursor = 0
    var limit: Int
    var limitBackward = 0
    var bra = 0
    var ket: Int
    /// Whether a slice was ever replaced: a word a stemmer left alone is handed back as it came.
    private(set) var changed = false

    init(_ word: String) {
        var chars: [UInt32] = []
        chars.reserveCapacity(word.utf8.count + 1)
        for scalar in word.unicodeScalars { chars.append(scalar.value) }
        self.chars = chars
        limit = chars.count
        ket = chars.count
    }

    /// The word as it now is, or `original` itself if nothing was replaced.
    func string(original: String) -> String {
        guard changed else { return original }
        var bytes = 0
        for c in chars { bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x1_0000 ? 3 : 4 }
        return String(unsafeUninitializedCapacity: bytes) { buffer in
            var i = 0
            // The values are scalars of a String or of the stemmers' own literals: valid
            // UTF-8 for each, and exactly `bytes` of them.
            for c in chars {
                if c < 0x80 {
                    buffer[i] = UInt8(c)
                    i += 1
                } else if c < 0x800 {
                    buffer[i] = UInt8(0xC0 | c >> 6)
                    buffer[i + 1] = UInt8(0x80 | c & 0x3F)
                    i += 2
                } else if c < 0x1_0000 {
                    buffer[i] = UInt8(0xE0 | c >> 12)
                    buffer[i + 1] = UInt8(0x80 | c >> 6 & 0x3F)
                    buffer[i + 2] = UInt8(0x80 | c & 0x3F)
                    i += 3
                } else {
                    buffer[i] = UInt8(0xF0 | c >> 18 & 0x07)
                    buffer[i + 1] = UInt8(0x80 | c >> 12 & 0x3F)
                    buffer[i + 2] = UInt8(0x80 | c >> 6 & 0x3F)
                    buffer[i + 3] = UInt8(0x80 | c & 0x3F)
                    i += 4
                }
            }
            return i
        }
    }

    // MARK: Single characters

    /// The literal `'c'` forwards: the character at the cursor is `c`, and the cursor moves past it.
    mutating func eq(_ c: UInt32) -> Bool {
        guard cursor < limit, chars[cursor] == c else { return false }
        cursor += 1
        return true
    }

    /// The literal `'c'` backwards: the character before the cursor is `c`, and the cursor moves
    /// before it.
    mutating func eqBackward(_ c: UInt32) -> Bool {
        guard cursor > limitBackward, chars[cursor - 1] == c else { return false }
        cursor -= 1
        return true
    }

    /// A literal of several characters backwards (`eq_s_b`).
    mutating func eqBackward(_ s: [UInt32]) -> Bool {
        guard cursor - limitBackward >= s.count else { return false }
        let start = cursor - s.count
        for k in 0..<s.count where chars[start + k] != s[k] { return false }
        cursor = start
        return true
    }

    // MARK: Groupings

    mutating func inGrouping(_ g: SnowballGrouping) -> Bool {
        guard cursor < limit, g.contains(chars[cursor]) else { return false }
        cursor += 1
        return true
    }

    mutating func inGroupingBackward(_ g: SnowballGrouping) -> Bool {
        guard cursor > limitBackward, g.contains(chars[cursor - 1]) else { return false }
        cursor -= 1
        return true
    }

    mutating func outGroupingBackward(_ g: SnowballGrouping) -> Bool {
        guard cursor > limitBackward, !g.contains(chars[cursor - 1]) else { return false }
        cursor -= 1
        return true
    }

    /// Moves forwards to the first character in `g` (`go_out_grouping`); false at the limit.
    mutating func goOutGrouping(_ g: SnowballGrouping) -> Bool {
        while cursor < limit {
            if g.contains(chars[cursor]) { return true }
            cursor += 1
        }
        return false
    }

    /// Moves forwards to the first character not in `g` (`go_in_grouping`); false at the limit.
    mutating func goInGrouping(_ g: SnowballGrouping) -> Bool {
        while cursor < limit {
            if !g.contains(chars[cursor]) { return true }
            cursor += 1
        }
        return false
    }

    /// Moves backwards to just after the last character in `g` (`go_out_grouping_b`); false at
    /// the backward limit.
    mutating func goOutGroupingBackward(_ g: SnowballGrouping) -> Bool {
        while cursor > limitBackward {
            if g.contains(chars[cursor - 1]) { return true }
            cursor -= 1
        }
        return false
    }

    // MARK: among

    /// `among` forwards: the longest of `table`'s strings that starts at the cursor; the cursor
    /// moves past it. The string's result, or 0 when none matches.
    mutating func findAmong(_ table: SnowballAmong) -> Int {
        let c = cursor
        if c < limit {
            let bucket = SnowballAmong.bucket(chars[c])
            var i = table.bucketStarts[bucket]
            let end = table.bucketStarts[bucket + 1]
            while i < end {
                let entry = table.entries[i]
                i += 1
                guard entry.count <= limit - c else { continue }
                var k = 0
                while k < entry.count, chars[c + k] == table.chars[entry.start + k] { k += 1 }
                if k == entry.count {
                    cursor = c + entry.count
                    return entry.result
                }
            }
        }
        return table.emptyResult
    }

    /// `among` backwards (`find_among_b`): the longest of `table`'s strings that ends at the
    /// cursor, after the backward limit; the cursor moves before it. The string's result, or 0
    /// when none matches.
    mutating func findAmongBackward(_ table: SnowballAmong) -> Int {
        let c = cursor
        if c > limitBackward {
            let bucket = SnowballAmong.bucket(chars[c - 1])
            var i = table.bucketStarts[bucket]
            let end = table.bucketStarts[bucket + 1]
            while i < end {
                let entry = table.entries[i]
                i += 1
                guard entry.count <= c - limitBackward else { continue }
                let start = c - entry.count
                var k = entry.count
                while k > 0, chars[start + k - 1] == table.chars[entry.start + k - 1] { k -= 1 }
                if k == 0 {
                    cursor = start
                    return entry.result
                }
            }
        }
        return table.emptyResult
    }

    // MARK: Slices

    /// `<- s`: replaces `[bra, ket)` with `s`, moving the cursor and the limit as Snowball's
    /// `replace_s` does; `ket` then ends the new text.
    mutating func sliceFrom(_ s: [UInt32]) {
        guard 0 <= bra, bra <= ket, ket <= limit, limit <= chars.count else { return }
        let adjustment = s.count - (ket - bra)
        if ket == chars.count {
            // An ending, nearly always: cheaper than a general replacement.
            chars.removeLast(ket - bra)
            chars.append(contentsOf: s)
        } else {
            chars.replaceSubrange(bra..<ket, with: s)
        }
        limit += adjustment
        if cursor >= ket {
            cursor += adjustment
        } else if cursor > bra {
            cursor = bra
        }
        ket = bra + s.count
        changed = true
    }

    /// `delete`: `<- ''`.
    mutating func sliceDelete() {
        sliceFrom([])
    }

    /// Replaces the one character at `i` with another, for the stemmers' passes that swap one
    /// letter for one letter all along the word (ё for е, y for Y): what Snowball's
    /// `repeat goto ([c] <- d)` does, without scanning again from the start.
    mutating func replaceCharacter(at i: Int, with c: UInt32) {
        guard chars.indices.contains(i) else { return }
        chars[i] = c
        changed = true
    }
}

/// A Snowball grouping: a set of characters, held as bits from `base`, spanning at most 64
/// scalar values.
struct SnowballGrouping: Sendable {
    let base: UInt32
    let bits: UInt64

    init(_ characters: String) {
        let values = characters.unicodeScalars.map(\.value)
        let base = values.min() ?? 0
        var bits: UInt64 = 0
        for v in values {
            precondition(v - base < 64, "a grouping spans at most 64 scalar values")
            bits |= 1 << UInt64(v - base)
        }
        self.base = base
        self.bits = bits
    }

    @inline(__always) func contains(_ c: UInt32) -> Bool {
        let offset = c &- base
        return offset < 64 && bits >> UInt64(offset) & 1 == 1
    }
}

/// The strings of a Snowball `among` and each one's result, indexed by the character they are
/// met by first: the last for `among` backwards, the first forwards. Within a bucket the longest
/// string comes first, so the first that matches is the one Snowball's search finds.
struct SnowballAmong: Sendable {
    struct Entry: Sendable {
        var start: Int
        var count: Int
        var result: Int
    }

    /// Every string's characters one after the other.
    let chars: [UInt32]
    let entries: [Entry]
    /// Bucket `b`'s entries are `entries[bucketStarts[b]..<bucketStarts[b + 1]]`.
    let bucketStarts: [Int]
    /// The result of the empty string, which always matches, or 0 when the table has none.
    let emptyResult: Int

    static let buckets = 64

    @inline(__always) static func bucket(_ c: UInt32) -> Int { Int(c & UInt32(buckets - 1)) }

    /// `backward` tables are searched from the cursor backwards (`find_among_b`). Results are
    /// those of Snowball's generated code: nonzero, -1 for a string with no command of its own.
    init(backward: Bool, _ strings: [(String, Int)]) {
        var emptyResult = 0
        var keyed: [(bucket: Int, scalars: [UInt32], result: Int)] = []
        for (string, result) in strings {
            precondition(result != 0, "0 means no match")
            let scalars = string.unicodeScalars.map(\.value)
            guard let key = backward ? scalars.last : scalars.first else {
                emptyResult = result
                continue
            }
            keyed.append((Self.bucket(key), scalars, result))
        }
        keyed.sort { ($0.bucket, -$0.scalars.count) < ($1.bucket, -$1.scalars.count) }
        var chars: [UInt32] = []
        var entries: [Entry] = []
        var bucketStarts = [Int](repeating: 0, count: Self.buckets + 1)
        for item in keyed {
            entries.append(Entry(start: chars.count, count: item.scalars.count, result: item.result))
            chars += item.scalars
            bucketStarts[item.bucket + 1] += 1
        }
        for b in 0..<Self.buckets { bucketStarts[b + 1] += bucketStarts[b] }
        self.chars = chars
        self.entries = entries
        self.bucketStarts = bucketStarts
        self.emptyResult = emptyResult
    }
}

extension Array where Element == UInt32 {
    /// A literal's Unicode scalar values.
    init(scalars string: String) {
        self = string.unicodeScalars.map(\.value)
    }
}
