/// The notes known by each key, as places in the vault's list of notes, in the order added.
///
/// One integer per key, and a list only for a key several notes share: an array for every key
/// made building the link tables a large part of a one-note rebuild.
/// Keys are substrings, so a key cut from a note's path shares the path's storage.
struct PlaceTable<Key: Hashable & Sendable>: Sendable {
    /// A key's place, or `-(n + 1)` for the `n`th list in ``shared``.
    private var first: [Key: Int] = [:]
    private var shared: [[Int]] = []

    init(capacity: Int = 0) {
        first.reserveCapacity(capacity)
    }

    mutating func add(_ key: Key, _ place: Int) {
        guard let previous = first.updateValue(place, forKey: key) else { return }
        if previous >= 0 {
            shared.append([previous, place])
            first[key] = -shared.count
        } else {
            shared[-previous - 1].append(place)
            first[key] = previous
        }
    }

    /// The places added under `key`, in the order added; nil when none was.
    subscript(key: Key) -> [Int]? {
        guard let place = first[key] else { return nil }
        return place >= 0 ? [place] : shared[-place - 1]
    }

    /// Each key with its places, in no particular order.
    var entries: some Sequence<(key: Key, places: [Int])> {
        first.lazy.map { key, place in (key, place >= 0 ? [place] : shared[-place - 1]) }
    }
}

extension Substring {
    /// The text lowercased, as `lowercased()` gives it, sharing this storage when there is no
    /// capital letter to lower.
    var lowercasedSharing: Substring {
        var isASCII = true
        var hasCapital = false
        for byte in utf8 {
            if byte >= 0x80 {
                isASCII = false
                break
            }
            if byte &- 0x41 < 26 { hasCapital = true }
        }
        if isASCII, !hasCapital { return self }
        return Substring(isASCII ? (asciiLowercased ?? lowercased()) : lowercased())
    }
}
