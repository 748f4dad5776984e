import LockerKit

/// The order of a build's documents by kind, ID and locale, worked out from their keys once for
/// the stages after it: where the documents must move to be in it, the runs of it that share a
/// kind and ID (a document's language versions, which the site's pages link to one another), and
/// how many IDs of each kind there are.
///
/// Documents that come in that order already (notes named as they are known) are checked and cut
/// into runs in one pass, each key compared with the one before it: their keys were compared
/// again by the site's tables and by the count of IDs, each time reading every ID scattered in
/// memory.
struct DocumentOrder: Sendable {
    /// The keys' places in the order; nil when they are in it already.
    let order: [Int]?
    /// The runs of the order that share a kind and ID, in the order, as positions in it.
    let runs: [Range<Int>]
    /// How many documents of each kind there are, each ID counted once whatever its locales.
    let idCounts: [ContentKind: Int]

    init(keys: [(kind: ContentKind, id: String, locale: String)]) {
        var runs: [Range<Int>] = []
        var counts: [ContentKind: Int] = [:]
        order = keys.withUnsafeBufferPointer { keys in
            /// Whether the keys at `first` and `second` have the same kind and ID.
            func sameID(_ first: Int, _ second: Int) -> Bool {
                keys[first].kind == keys[second].kind && keys[first].id == keys[second].id
            }
            /// The order of kind and ID, for keys of different kinds or IDs.
            func precedesByID(_ first: Int, _ second: Int) -> Bool {
                keys[first].kind == keys[second].kind
                    ? keys[first].id < keys[second].id : keys[first].kind < keys[second].kind
            }
            /// The order of kind, ID and locale.
            func precedes(_ first: Int, _ second: Int) -> Bool {
                sameID(first, second) ? keys[first].locale < keys[second].locale : precedesByID(first, second)
            }
            /// The runs of the `count` places `place` gives, in order, that share a kind and ID;
            /// when `checking`, nil as soon as two neighbours are out of order.
            func cut(_ count: Int, checking: Bool, place: (Int) -> Int) -> [Range<Int>]? {
                var runs: [Range<Int>] = []
                var start = 0
                for position in 1..<max(count, 1) {
                    let (before, current) = (place(position - 1), place(position))
                    if sameID(before, current) {
                        if checking, keys[current].locale < keys[before].locale { return nil }
                    } else {
                        if checking, !precedesByID(before, current) { return nil }
                        runs.append(start..<position)
                        start = position
                    }
                }
                if count > 0 { runs.append(start..<count) }
                return runs
            }
            var order: [Int]?
            if let inOrder = cut(keys.count, checking: true, place: { $0 }) {
                runs = inOrder
            } else {
                let sorted = keys.indices.sorted(by: precedes)
                runs = cut(sorted.count, checking: false) { sorted[$0] } ?? []
                order = sorted
            }
            // Counted a kind at a time: the table is written once per kind, not once per ID.
            var current: (kind: ContentKind, count: Int)?
            for run in runs {
                let kind = keys[order?[run.lowerBound] ?? run.lowerBound].kind
                if let run = current, run.kind == kind {
                    current?.count += 1
                } else {
                    if let run = current { counts[run.kind, default: 0] += run.count }
                    current = (kind, 1)
                }
            }
            if let run = current { counts[run.kind, default: 0] += run.count }
            return order
        }
        self.runs = runs
        idCounts = counts
    }
}
