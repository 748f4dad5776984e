// Times `ContentSearch` on a built bundle: indexing it whole into a new file, the index's size,
// bringing that index up to a bundle with one note edited, and every query of a relevance set.
// Run through `Benchmarks/run_search.py` (or `make bench-search`).
import Foundation
import LockerKit

func benchmarkSearch(_ arguments: [String]) {
    let bundleFolder = URL(fileURLWithPath: arguments[0], isDirectory: true)
    let editedFolder = URL(fileURLWithPath: arguments[1], isDirectory: true)
    let queriesFile = URL(fileURLWithPath: arguments[2])
    let runs = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
    struct Query: Decodable {
        var locale: String
        var query: String
    }
    do {
        let bundle = try ContentBundle(contentsOf: bundleFolder)
        let edited = try ContentBundle(contentsOf: editedFolder)
        let queries = try JSONDecoder().decode([Query].self, from: Data(contentsOf: queriesFile))
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-search-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let documents = bundle.manifest.files.filter { $0.id != nil }.count
        print("bundle: \(documents) documents (every version), \(bundle.locales.joined(separator: ", ")); \(runs) runs")

        // 1. A new index of the whole bundle, in a new file.
        var buildTimes: [Double] = []
        var size = 0
        let path = work.appendingPathComponent("index.sqlite").path
        for run in 0..<runs {
            let runPath = work.appendingPathComponent("index-\(run).sqlite").path
            buildTimes.append(
                try time {
                    let search = try ContentSearch(path: runPath)
                    try search.update(from: bundle)
                })
            size = try ContentSearch(path: runPath).size()
            if run == 0 { try FileManager.default.copyItem(atPath: runPath, toPath: path) }
        }
        print(
            "index the whole bundle: median \(milliseconds(median(buildTimes))); the file: \(String(format: "%.1f", Double(size) / 1e6)) MB"
        )

        // 2. The same index brought up to the bundle with one note edited.
        var updateTimes: [Double] = []
        var report: SearchIndexUpdate?
        for run in 0..<runs {
            let runPath = work.appendingPathComponent("update-\(run).sqlite").path
            try FileManager.default.copyItem(atPath: path, toPath: runPath)
            let search = try ContentSearch(path: runPath)
            updateTimes.append(try time { report = try search.update(from: edited) })
        }
        print(
            "update after one note edited (\(report?.indexed ?? 0) indexed, \(report?.kept ?? 0) kept): median \(milliseconds(median(updateTimes)))"
        )

        // 3. Every query, each `runs` times, for its locale.
        let search = try ContentSearch(path: path)
        var queryTimes: [Double] = []
        var hits = 0
        for _ in 0..<runs {
            for query in queries {
                queryTimes.append(try time { hits += try search.search(query.query, locale: query.locale).count })
            }
        }
        let slowest = zip(queries.map(\.query), queryTimes).sorted { $0.1 > $1.1 }.prefix(3)
        print("slowest: " + slowest.map { "\($0.0) \(milliseconds($0.1))" }.joined(separator: ", "))
        // Words of the generated vault's own vocabulary, which nearly every entry holds: the worst case.
        for probe in ["якорь", "anchor chain", "якорь nothing"] {
            let times = try (0..<runs).map { _ in try time { _ = try search.search(probe, locale: "en") } }
            print("'\(probe)': median \(milliseconds(median(times)))")
        }
        let sorted = queryTimes.sorted()
        let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        print(
            "\(queries.count) queries × \(runs), 20 hits at most: median \(milliseconds(median(queryTimes))), p99 \(milliseconds(p99)), \(hits / runs) hits a round"
        )
    } catch {
        FileHandle.standardError.write(Data("locker-runtime-bench: \(error)\n".utf8))
        exit(1)
    }
}
