import Foundation
import Testing

@testable import LockerKit

/// `ContentSearch` on the bundle of `content/`: relevance measured on a written set of queries,
/// the stemming chosen by it, incremental updates, hostile queries, and `locker search`.
@Suite struct SearchTests {
    struct Query: Decodable {
        var locale: String
        var query: String
        var expect: [String]
    }

    static func queries() throws -> [Query] {
        let url = BuiltContent.repository.appendingPathComponent("Tests/lockerTests/Fixtures/search-relevance.json")
        return try JSONDecoder().decode([Query].self, from: Data(contentsOf: url))
    }

    /// The share of queries, per locale, whose expected documents are all among the documents of
    /// the first three hits; and the queries that missed.
    static func hitRates(_ stemming: ContentSearch.Stemming, bundle: ContentBundle) throws
        -> (rates: [String: Double], misses: [String])
    {
        let search = try ContentSearch(path: nil, stemming: stemming)
        try search.update(from: bundle)
        var passed: [String: Int] = [:]
        var total: [String: Int] = [:]
        var misses: [String] = []
        for query in try queries() {
            let hits = try search.search(query.query, locale: query.locale, limit: 3)
            let found = Set(hits.map { "\($0.target.kind)/\($0.target.id)" })
            total[query.locale, default: 0] += 1
            if Set(query.expect).isSubset(of: found) {
                passed[query.locale, default: 0] += 1
            } else {
                misses.append(
                    "\(query.locale) '\(query.query)': \(hits.map { "\($0.target.id) › \($0.target.partTitle ?? "")" })"
                )
            }
        }
        let rates = Dictionary(uniqueKeysWithValues: total.map { ($0, Double(passed[$0] ?? 0) / Double($1)) })
        return (rates, misses)
    }

    @Test func russianAndEnglishQueriesFindTheirDocumentsInTheTopThree() throws {
        let bundle = try BuiltContent.bundle()
        let queries = try Self.queries()
        #expect(queries.filter { $0.locale == "ru" }.count >= 40 && queries.filter { $0.locale == "en" }.count >= 40)
        var table: [String] = []
        for stemming in ContentSearch.Stemming.allCases {
            let (rates, misses) = try Self.hitRates(stemming, bundle: bundle)
            table.append(
                "\(stemming): ru \(Int(((rates["ru"] ?? 0) * 100).rounded())) %, en \(Int(((rates["en"] ?? 0) * 100).rounded())) %"
            )
            if stemming == .snowball {
                #expect(
                    (rates["ru"] ?? 0) >= 0.9 && (rates["en"] ?? 0) >= 0.9,
                    "\(rates)\n\(misses.joined(separator: "\n"))")
            }
        }
        print("Search relevance (top 3):\n" + table.joined(separator: "\n"))
    }

    @Test func hitsCarryTheirTargetAndHighlightTheWordInAnyForm() throws {
        let bundle = try BuiltContent.bundle()
        let search = try ContentSearch(path: nil)
        try search.update(from: bundle)
        let hits = try search.search("якорем", locale: "ru")
        let first = try #require(hits.first)
        #expect(hits.allSatisfy { $0.target.locale == "ru" })
        let highlighted = first.snippet.highlights.map { first.snippet.text[$0].lowercased() }
        #expect(!highlighted.isEmpty && highlighted.allSatisfy { $0.hasPrefix("якор") }, "\(first.snippet)")
        // A hit is a target that resolves as its link does.
        let link = try #require(bundle.linkFormat.appURL(for: first.target))
        #expect(bundle.resolve(link, locale: "ru") == .success(.found(first.target)))
        // Every hit in English is an English version.
        let english = try search.search("anchoring", locale: "en", limit: 50)
        #expect(english.count > 3 && english.allSatisfy { $0.target.locale == "en" })
        #expect(english.contains { $0.target.id == "anchoring" })
        #expect(try search.search("anchoring", locale: "en", kinds: [.deck]).allSatisfy { $0.target.kind == .deck })
    }

    @Test func queriesAreWordsNeverSyntax() throws {
        let search = try ContentSearch(path: nil)
        try search.update(from: try BuiltContent.bundle())
        for query in [
            "", "   ", "\"", "*", "якорь*", "NEAR(якорь цепь)", "a OR b", "-якорь", "^якорь", "title:якорь", "'",
            "якорь AND", "\u{0}", "🚤", "((((", String(repeating: "якорь ", count: 2000), "\\", "%", "_",
        ] {
            _ = try search.search(query, locale: "ru")
        }
        #expect(
            try search.search("title:якорь", locale: "ru").count == search.search("title якорь", locale: "ru").count)
        #expect(try search.search("якорь", locale: "ru", limit: 0).isEmpty)
    }

    static let small: [String: String] = [
        "guides/knots.md": "---\nid: knots\n---\n# Knots\n\n## Bowline\n\nA fixed loop at the end of a line.\n",
        "guides/knots.ru.md": "---\nid: knots\n---\n# Узлы\n\n## Беседочный узел\n\nНезатягивающаяся петля.\n",
        "guides/winches.md": "---\nid: winches\n---\n# Winches\n\nThree turns before loading a winch.\n",
        "locker.yml": "locales: [en, ru]\ndefaultLocale: en\n",
    ]

    @Test func anUpdateIndexesOnlyTheDocumentsThatChanged() throws {
        let workspace = try Workspace(Self.small)
        defer { workspace.remove() }
        let bundleFolder = workspace.root.appendingPathComponent("build/bundles/v1")
        func build() throws -> ContentBundle {
            let run = try LockerRun(["build", "vault", "--out", "build"], in: workspace.root)
            try #require(run.status == 0, "\(run.stdout)\(run.stderr)")
            return try ContentBundle(contentsOf: bundleFolder)
        }
        let path = workspace.root.appendingPathComponent("search.sqlite").path
        var search = try ContentSearch(path: path)
        #expect(try search.update(from: build()) == SearchIndexUpdate(indexed: 3, removed: 0, kept: 0))
        #expect(try search.update(from: build()) == SearchIndexUpdate(indexed: 0, removed: 0, kept: 3))
        // A guide only in English is read by a Russian reader too; and by a German one, as the
        // default locale's.
        #expect(try search.search("winch", locale: "ru").first?.target.id == "winches")
        #expect(try search.search("winch", locale: "de").first?.target.id == "winches")
        #expect(try search.search("loop", locale: "de").first?.target.locale == "en")
        #expect(try search.search("loop", locale: "ru").isEmpty)

        // One note edited: that version alone, in a file opened again.
        try Data("---\nid: winches\n---\n# Winches\n\nTailing the sheet from a self-tailer.\n".utf8)
            .write(to: workspace.root.appendingPathComponent("vault/guides/winches.md"))
        search = try ContentSearch(path: path)
        #expect(try search.update(from: build()) == SearchIndexUpdate(indexed: 1, removed: 0, kept: 2))
        #expect(try search.search("tails", locale: "en").first?.target.id == "winches")
        // Re-indexed, not added beside: one entry of each.
        #expect(try search.search("tails", locale: nil).count == 1)
        #expect(try search.search("loop", locale: nil).count == 1)
        #expect(try search.search("loading", locale: "en").isEmpty)

        // A translation added: the English version is no longer the Russian reader's.
        try Data("---\nid: winches\n---\n# Лебёдки\n\nТри шлага перед нагрузкой.\n".utf8)
            .write(to: workspace.root.appendingPathComponent("vault/guides/winches.ru.md"))
        #expect(try search.update(from: build()) == SearchIndexUpdate(indexed: 2, removed: 0, kept: 2))
        #expect(try search.search("tailing", locale: "ru").isEmpty)
        #expect(try search.search("шлагами", locale: "ru").first?.target.locale == "ru")

        // A note removed.
        try FileManager.default.removeItem(at: workspace.root.appendingPathComponent("vault/guides/knots.ru.md"))
        #expect(try search.update(from: build()) == SearchIndexUpdate(indexed: 1, removed: 1, kept: 2))
        #expect(try search.search("loop", locale: "ru").first?.target.locale == "en")
    }

    @Test func lockerSearchPrintsRankedHitsWithTheirLinks() throws {
        let folder = try BuiltContent.folder()
        let run = try LockerRun(
            [
                "search", "anchor", "watch", "--bundle", folder.path, "--locale", "en", "--format", "json", "--limit",
                "3",
            ],
            in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let hits = try #require(report["hits"] as? [[String: Any]])
        let first = try #require(hits.first)
        #expect(hits.count == 3 && report["locale"] as? String == "en")
        #expect(first["id"] as? String == "anchoring" && first["partTitle"] as? String == "Anchor watch")
        #expect(first["webLink"] as? String == "https://captainslocker.example/en/guides/anchoring/#anchor-watch")
        let highlights = try #require(first["highlights"] as? [[Int]])
        #expect(!highlights.isEmpty)

        let text = try LockerRun(["search", "якорной", "вахты", "--bundle", folder.path, "--limit", "1"], in: folder)
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("1. Постановка на якорь › Якорная вахта  guide section\n"), "\(text.stdout)")
        #expect(text.stdout.contains("   https://captainslocker.example/guides/anchoring/#"))
        let none = try LockerRun(["search", "zzzz", "--bundle", folder.path], in: folder)
        #expect(none.status == 0 && none.stdout == "No hits for 'zzzz' in ru.\n")
        let index = folder.deletingLastPathComponent().appendingPathComponent("search-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: index) }
        for _ in 0..<2 {
            let kept = try LockerRun(["search", "якорь", "--bundle", folder.path, "--index", index.path], in: folder)
            #expect(kept.status == 0 && kept.stdout.hasPrefix("1. "))
        }
        #expect(FileManager.default.fileExists(atPath: index.path))
    }
}
