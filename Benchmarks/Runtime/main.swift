// Times the LockerKit runtime on a built bundle: opening and verifying it, building the day's
// review queue, and saving one review. Run through `Benchmarks/run_runtime.py` (or
// `make bench-runtime`), which generates and builds a vault of 10,000 cards first.
//
// Usage: locker-runtime-bench BUNDLE_FOLDER [RUNS]
//        locker-runtime-bench search BUNDLE EDITED_BUNDLE QUERIES.json [RUNS]   (SearchBench.swift)
//        locker-runtime-bench study [CARDS] [RUNS]   (StudyBench.swift: no bundle, a year of reviews)
import Foundation
import LockerKit

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func time(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

func milliseconds(_ value: Double) -> String { String(format: "%.2f ms", value) }

let arguments = CommandLine.arguments
if arguments.count >= 5, arguments[1] == "search" {
    benchmarkSearch(Array(arguments.dropFirst(2)))
    exit(0)
}
if arguments.count >= 2, arguments[1] == "study" {
    benchmarkStudy(Array(arguments.dropFirst(2)))
    exit(0)
}
guard arguments.count >= 2 else {
    FileHandle.standardError.write(
        Data("usage: locker-runtime-bench BUNDLE_FOLDER [RUNS] | search … | study [CARDS] [RUNS]\n".utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: arguments[1], isDirectory: true)
let runs = arguments.count > 2 ? Int(arguments[2]) ?? 7 : 7

do {
    // 1. Open and verify the bundle, then decode every deck.
    var bundle = try ContentBundle(contentsOf: folder)
    var decks: [Deck] = []
    var openTimes: [Double] = []
    var decodeTimes: [Double] = []
    for _ in 0..<runs {
        openTimes.append(try time { bundle = try ContentBundle(contentsOf: folder) })
        decodeTimes.append(try time { decks = try bundle.decks(locale: bundle.defaultLocale) })
    }
    let cards = ReviewCard.all(in: decks)
    let bytes = bundle.manifest.files.reduce(0) { $0 + $1.size }
    print(
        "bundle: \(bundle.manifest.files.count) files, \(String(format: "%.1f", Double(bytes) / 1e6)) MB, \(decks.count) decks, \(cards.count) cards; \(runs) runs"
    )
    print("open and verify (size + SHA-256 of every file): median \(milliseconds(median(openTimes)))")
    print("decode every deck: median \(milliseconds(median(decodeTimes)))")

    // 2. A progress database in which half the cards have been reviewed on earlier days.
    let work = FileManager.default.temporaryDirectory.appendingPathComponent(
        "locker-runtime-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let store = try ProgressStore(path: work.appendingPathComponent("progress.sqlite").path)
    let durability = try store.durability()
    print("progress database: journal_mode \(durability.journalMode), synchronous \(durability.synchronous)")
    let boundary = DayBoundary(timeZone: TimeZone(identifier: "UTC") ?? .current)
    let firstDay = Date(timeIntervalSince1970: 1_780_000_000)
    let seeded = cards.count / 2
    let seedTime = try time {
        for (index, card) in cards.prefix(seeded).enumerated() {
            let day = firstDay.addingTimeInterval(Double(index % 30) * 86_400)
            try store.review(card, grade: Grade(rawValue: index % 4) ?? .good, at: day, boundary: boundary)
        }
    }
    print(
        "seeded \(seeded) reviews, one transaction each: \(milliseconds(seedTime / Double(max(1, seeded)))) per review on average"
    )

    // 3. The day's queue: load every state, pick due cards oldest first, then new ones.
    let today = boundary.day(of: firstDay).adding(days: 40)
    var queue = ReviewQueue(cards: [], states: [:], day: today)
    var queueTimes: [Double] = []
    for _ in 0..<runs {
        queueTimes.append(try time { queue = try store.queue(for: decks, on: today) })
    }
    print("the day's queue (\(queue.dueCount) due, \(queue.newCount) new): median \(milliseconds(median(queueTimes)))")

    // 4. One saved review: a write transaction, committed with synchronous = FULL.
    var reviewTimes: [Double] = []
    let now = boundary.start(of: today).addingTimeInterval(3600)
    for card in queue.cards.prefix(max(runs, 200)) {
        reviewTimes.append(try time { try store.review(card, grade: .good, at: now, boundary: boundary) })
    }
    print("one saved review (\(reviewTimes.count) reviews): median \(milliseconds(median(reviewTimes)))")
} catch {
    FileHandle.standardError.write(Data("locker-runtime-bench: \(error)\n".utf8))
    exit(1)
}
