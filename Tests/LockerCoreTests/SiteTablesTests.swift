import LockerKit
import LockerTestSupport
import Testing

@testable import LockerCore

@Suite struct SiteTablesTests {
    /// The site's tables group a document's language versions the same way whether a build
    /// gives them its ``DocumentOrder`` runs or they work the grouping out themselves, from
    /// documents in any order.
    @Test func versionsAreTheSameGivenOrFound() {
        var random = SplitMix64(seed: 0x7461_626C)
        for _ in 0..<100 {
            let documents: [(route: SiteBuilder.Route, key: DocumentKey)] = (0..<Int.random(in: 0...20, using: &random))
                .map { offset in
                    let kind = [ContentKind.guide, .checklist].randomElement(using: &random) ?? .guide
                    let id = ["a", "b", "é", "e\u{301}", "z"].randomElement(using: &random) ?? "a"
                    return (SiteBuilder.Route(path: "\(offset)/", locale: "en"), DocumentKey(kind: kind, id: id))
                }
            let found = SiteTables(documents: documents)
            // The same documents sorted by kind and ID, and the runs a build would give.
            let order = DocumentOrder(keys: documents.map { ($0.key.kind, $0.key.id, "") })
            let sorted = (order.order ?? Array(documents.indices)).map { documents[$0] }
            let given = SiteTables(documents: sorted, runs: order.runs)
            for offset in sorted.indices {
                let original = (order.order ?? Array(documents.indices))[offset]
                #expect(
                    Set(given.versions(of: offset).map { sorted[$0].route.path })
                        == Set(found.versions(of: original).map { documents[$0].route.path }))
                // In the order of their offsets, itself among them.
                let versions = found.versions(of: original)
                #expect(versions.contains(original) && versions == versions.sorted())
                #expect(
                    given.documents(sorted[offset].key).map { Set($0.map { sorted[$0].route.path }) }
                        == found.documents(documents[original].key).map { Set($0.map { documents[$0].route.path }) })
            }
        }
    }
}
