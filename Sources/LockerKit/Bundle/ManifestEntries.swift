import Foundation

/// The files' entries of a manifest's canonical JSON, found in place: where each lies, and its
/// path and SHA-256, for a build to copy the entry of a file the previous build wrote as well
/// rather than write it again (``Manifest/encodedRun(of:order:reusing:)``).
///
/// Read from bytes a build wrote (canonical JSON: members in key order, no white space), by
/// their shape alone: a file's entry starts with its `etag`, and a `"` inside a string is
/// always escaped, so `,"path":"` is a key wherever it is found. Bytes of any other shape give
/// no entries (nil), and every file is written again. So do paths or hashes with an escape in
/// them, whose JSON is not their bytes.
package struct ManifestEntries: Sendable {
    /// The manifest's bytes.
    let bytes: [UInt8]
    /// The entries, in the order the manifest lists them (by path).
    let entries: [Entry]

    /// Where an entry and its fields lie in ``bytes``.
    struct Entry: Sendable {
        /// The entry, from its `{` to its `}`.
        var span: Range<Int>
        /// The path's bytes, between its quotes.
        var path: Range<Int>
        /// The SHA-256's bytes, between its quotes.
        var sha256: Range<Int>
    }

    /// How many entries there are.
    package var count: Int { entries.count }

    /// The entries of the manifest `bytes`; nil when they are not a manifest's canonical JSON
    /// as a build writes it.
    package init?(bytes: [UInt8]) {
        self.bytes = bytes
        var entries: [Entry] = []
        let found = bytes.withUnsafeBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            let count = buffer.count
            /// Where `pattern` first is in `start..<end`: its first byte found by `memchr`.
            func find(_ pattern: StaticString, from start: Int, before end: Int = count) -> Int? {
                pattern.withUTF8Buffer { needle -> Int? in
                    guard let first = needle.first, let needleBase = needle.baseAddress, start >= 0, end <= count
                    else { return nil }
                    var place = start
                    while place + needle.count <= end {
                        guard let hit = memchr(base + place, Int32(first), end - needle.count + 1 - place) else {
                            return nil
                        }
                        place = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                        if memcmp(base + place, needleBase, needle.count) == 0 { return place }
                        place += 1
                    }
                    return nil
                }
            }
            /// Whether `pattern` is at `place`.
            func has(_ pattern: StaticString, at place: Int) -> Bool {
                pattern.withUTF8Buffer { needle in
                    guard let needleBase = needle.baseAddress else { return false }
                    return place >= 0 && place + needle.count <= count
                        && memcmp(base + place, needleBase, needle.count) == 0
                }
            }
            /// Where the next `"` is from `start`, when no `\` comes before it.
            func unescapedQuote(from start: Int) -> Int? {
                var place = start
                while place < count {
                    if base[place] == 0x22 { return place }
                    if base[place] == 0x5C || base[place] < 0x20 { return nil }
                    place += 1
                }
                return nil
            }
            guard let files = find(#""files":["#, from: 0) else { return false }
            var place = files + 9
            if has("]", at: place) { return true }
            entries.reserveCapacity(count / 300)
            while true {
                // `{"etag":"\"sha256-` then the hash, `\"` and the closing quote.
                guard has(#"{"etag":"\"sha256-"#, at: place) else { return false }
                let start = place
                let tag = place + 18
                guard let tagEnd = find(#"\"""#, from: tag, before: min(count, tag + 256)),
                    let key = find(#","path":""#, from: tagEnd + 3),
                    let pathEnd = unescapedQuote(from: key + 9),
                    has(#"","sha256":""#, at: pathEnd),
                    let sha256End = unescapedQuote(from: pathEnd + 12),
                    has(#"","size":"#, at: sha256End)
                else { return false }
                // The size's digits (a minus sign first), then the entry's `}`.
                var end = sha256End + 9
                if has("-", at: end) { end += 1 }
                let digits = end
                while end < count, base[end] >= 0x30, base[end] <= 0x39 { end += 1 }
                guard end > digits, has("}", at: end) else { return false }
                // The etag's hash is the file's: the entry is the one this build would write.
                guard tagEnd - tag == sha256End - (pathEnd + 12),
                    memcmp(base + tag, base + pathEnd + 12, tagEnd - tag) == 0
                else { return false }
                entries.append(
                    Entry(span: start..<end + 1, path: key + 9..<pathEnd, sha256: pathEnd + 12..<sha256End))
                place = end + 1
                if has("]", at: place) { return true }
                guard has(",", at: place) else { return false }
                place += 1
            }
        }
        guard found else { return nil }
        // Listed by path, as a manifest lists its files: what a build walks them in.
        let ordered = bytes.withUnsafeBufferPointer { buffer in
            zip(entries, entries.dropFirst()).allSatisfy { earlier, later in
                Self.order(
                    UnsafeBufferPointer(rebasing: buffer[earlier.path]),
                    UnsafeBufferPointer(rebasing: buffer[later.path])) < 0
            }
        }
        guard ordered else { return nil }
        self.entries = entries
    }

    /// How `first` compares with `second` as bytes: negative when it comes before, zero when
    /// they are equal, positive when it comes after (the order a manifest lists paths in).
    static func order(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(first.count, second.count)
        if common > 0, let one = first.baseAddress, let other = second.baseAddress {
            let order = memcmp(one, other, common)
            if order != 0 { return Int(order) }
        }
        return first.count - second.count
    }
}
