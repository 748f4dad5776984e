import LockerKit
import LockerTestSupport
import Testing

@testable import LockerCore

@Suite struct DocumentOrderTests {
    private typealias Key = (kind: ContentKind, id: String, locale: String)

    /// What the order, its runs and the counts should be, worked out the plain way: a sort by
    /// kind, ID and locale as tuples, then neighbours grouped by kind and ID.
    private func expected(_ keys: [Key]) -> (sorted: [Int], runs: [Range<Int>], counts: [ContentKind: Int]) {
        let sorted = keys.indices.sorted {
            (keys[$0].kind, keys[$0].id, keys[$0].locale, $0) < (keys[$1].kind, keys[$1].id, keys[$1].locale, $1)
        }
        var runs: [Range<Int>] = []
        var counts: [ContentKind: Int] = [:]
        var start = 0
        for position in sorted.indices {
            let key = keys[sorted[position]]
            if position > 0, keys[sorted[position - 1]].kind == key.kind, keys[sorted[position - 1]].id == key.id {
                continue
            }
            if position > 0 { runs.append(start..<position) }
            start = position
            counts[key.kind, default: 0] += 1
        }
        if !sorted.isEmpty { runs.append(start..<sorted.count) }
        return (sorted, runs, counts)
    }

    @Test func keysInOrderStayAndAreCutIntoVersions() {
        let keys: [Key] = [
            (.checklist, "boat", "en"), (.checklist, "boat", "ru"), (.deck, "knots", "en"),
            (.guide, "anchor", "en"), (.guide, "reef", "de"), (.guide, "reef", "en"), (.guide, "reef", "ru"),
        ]
        let order = DocumentOrder(keys: keys)
        #expect(order.order == nil)
        #expect(order.runs == [0..<2, 2..<3, 3..<4, 4..<7])
        #expect(order.idCounts == [.checklist: 1, .deck: 1, .guide: 2])
        let none = DocumentOrder(keys: [])
        #expect(none.order == nil && none.runs.isEmpty && none.idCounts.isEmpty)
    }

    @Test func keysOutOfOrderAreSorted() {
        // A locale out of order inside one ID, then an ID out of order, then a kind.
        for keys: [Key] in [
            [(.guide, "reef", "ru"), (.guide, "reef", "en")],
            [(.guide, "reef", "en"), (.guide, "anchor", "en"), (.guide, "anchor", "ru")],
            [(.guide, "a", "en"), (.checklist, "z", "en")],
        ] {
            let order = DocumentOrder(keys: keys)
            let plain = expected(keys)
            #expect(order.order == plain.sorted)
            #expect(order.runs == plain.runs)
            #expect(order.idCounts == plain.counts)
        }
    }

    /// Random keys, sorted or shuffled, with look-alike IDs (a prefix of another, other case,
    /// accents composed and not): the same as the plain way, and sorted keys are not moved.
    @Test func randomKeysMatchThePlainWay() {
        var random = SplitMix64(seed: 0x6B65_7973)
        let ids = ["a", "ab", "A", "b", "é", "e\u{301}", "z", "узел", "reef", "reef-2", ""]
        let kinds: [ContentKind] = [.guide, .checklist, .deck, ContentKind(rawValue: "guides")]
        let locales = ["en", "ru", "de", "en-GB"]
        for round in 0..<300 {
            var keys: [Key] = (0..<Int.random(in: 0...30, using: &random)).map { _ in
                (
                    kinds.randomElement(using: &random) ?? .guide, ids.randomElement(using: &random) ?? "",
                    locales.randomElement(using: &random) ?? "en"
                )
            }
            if round.isMultiple(of: 2) { keys = expected(keys).sorted.map { keys[$0] } }
            let order = DocumentOrder(keys: keys)
            let plain = expected(keys)
            let orderOf = order.order ?? Array(keys.indices)
            // Equal keys may come in either order; their kinds, IDs and locales may not.
            #expect(orderOf.map { keys[$0].kind } == plain.sorted.map { keys[$0].kind })
            #expect(orderOf.map { keys[$0].id } == plain.sorted.map { keys[$0].id })
            #expect(orderOf.map { keys[$0].locale } == plain.sorted.map { keys[$0].locale })
            #expect(order.runs == plain.runs)
            #expect(order.idCounts == plain.counts)
            if round.isMultiple(of: 2) { #expect(order.order == nil) }
        }
    }
}
