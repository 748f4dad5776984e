import Foundation
import LockerKit
import LockerTestSupport
import Testing

/// FSRS against its reference implementation, the `fsrs` package on PyPI, pinned in
/// `Tests/browser/requirements.txt` and installed by `make test`.
///
/// Thousands of random review histories, each under random settings (retention, steps, maximum
/// interval), with every grade, reviews early, late and within the day. After every review the
/// stability and difficulty agree to 1e-9 (relative), and the phase, step, due moment or due day
/// and interval exactly.
///
/// The reference counts elapsed days as whole 24-hour periods; Locker counts review days, as
/// Anki does, so a late-evening review and the next morning's are a day apart. The two agree when
/// the time of day never goes back within a history, which these histories keep (UTC, days
/// starting at midnight).
@Suite struct FSRSTests {
    static let referenceVersion = "6.3.2"
    static let histories = 3_000
    static let tolerance = 1e-9

    /// One random history and the settings it is reviewed under.
    struct History: Codable {
        var retention: Double
        var maximumInterval: Int
        var learningSteps: [Int]
        var relearningSteps: [Int]
        /// `[grade 1–4, milliseconds since 1970]`.
        var reviews: [[Int64]]
    }

    /// What the reference gives after one review.
    struct Outcome: Codable {
        var stability: Double
        var difficulty: Double
        /// 1 learning, 2 review, 3 relearning.
        var state: Int
        var step: Int?
        var dueMs: Int64
    }

    @Test func agreesWithTheReferenceOnRandomHistories() throws {
        var random = SplitMix64(seed: 0x5EED_F5A5)
        let histories = (0..<Self.histories).map { _ in Self.history(&random) }
        let expected = try Self.reference(histories)
        try #require(expected.count == histories.count)
        var compared = 0
        var largest = 0.0
        for (index, history) in histories.enumerated() {
            let scheduling = Scheduling(
                algorithm: .fsrs, learningSteps: history.learningSteps, relearningSteps: history.relearningSteps,
                fsrs: FSRS(desiredRetention: history.retention, maximumInterval: history.maximumInterval))
            try #require(scheduling.problems.isEmpty)
            var state = CardState.new
            var agrees = true
            for (step, review) in history.reviews.enumerated() where agrees {
                let grade = try #require(Grade(rawValue: Int(review[0]) - 1))
                let time = Date(timeIntervalSince1970: Double(review[1]) / 1000)
                let day = LocalDay(ordinal: Int(review[1] / 86_400_000))
                state = scheduling.review(state, grade: grade, at: time, on: day)
                let outcome = expected[index][step]
                let stability = try #require(state.stability)
                let difficulty = try #require(state.difficulty)
                largest = max(largest, Self.relative(stability, outcome.stability))
                largest = max(largest, Self.relative(difficulty, outcome.difficulty))
                let phase: CardState.Phase = [1: .learning, 2: .review, 3: .relearning][outcome.state] ?? .new
                let dueMs = state.dueTime.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
                let days = Int((outcome.dueMs - review[1]) / 86_400_000)
                agrees =
                    Self.relative(stability, outcome.stability) <= Self.tolerance
                    && Self.relative(difficulty, outcome.difficulty) <= Self.tolerance
                    && state.phase == phase && state.step == outcome.step
                    && state.due == LocalDay(ordinal: Int(outcome.dueMs / 86_400_000))
                    && (state.isInSteps ? dueMs == outcome.dueMs : dueMs == nil && state.interval == days)
                #expect(
                    agrees,
                    """
                    history \(index), review \(step + 1) of \(history): Locker \(state), the reference \(outcome)
                    """)
                compared += 1
            }
            if !agrees { break }
        }
        #expect(compared > 30_000, "\(compared) reviews compared")
        #expect(largest <= Self.tolerance, "largest relative difference \(largest)")
    }

    // MARK: - Histories

    /// Grades weighted as learners give them, with every grade present; times that go back
    /// neither in days nor in the time of day.
    static func history(_ random: inout SplitMix64) -> History {
        let stepChoices: [[Int]] = [[], [60], [60, 600], [30, 300, 3600], [600]]
        let relearningChoices: [[Int]] = [[], [600], [300, 1200]]
        let retention = [0.8, 0.85, 0.9, 0.9, 0.95, 0.97][Int(random.next() % 6)]
        let maximumInterval = [36_500, 36_500, 365, 30][Int(random.next() % 4)]
        let learning = stepChoices[Int(random.next() % UInt64(stepChoices.count))]
        let relearning = relearningChoices[Int(random.next() % UInt64(relearningChoices.count))]
        let count = 1 + Int(random.next() % 30)
        var day = Int64(20_000 + random.next() % 2_000)  // days since 1970: 2024–2030
        var millisecond = Int64(random.next() % 3_600_000)  // of the day
        var reviews: [[Int64]] = []
        for _ in 0..<count {
            let roll = random.next() % 100
            let grade: Int64 = roll < 15 ? 1 : roll < 25 ? 2 : roll < 85 ? 3 : 4
            reviews.append([grade, day * 86_400_000 + millisecond])
            // Next: the same day (a step, or a review again within the day) or days later,
            // irregularly: early, on time or long overdue.
            switch random.next() % 10 {
            case 0...3: millisecond += Int64(random.next() % 1_500_000)
            case 4...7: day += Int64(1 + random.next() % 12)
            case 8: day += Int64(13 + random.next() % 200)
            default: day += Int64(200 + random.next() % 3_000)
            }
            millisecond += Int64(random.next() % 200_000)
        }
        return History(
            retention: retention, maximumInterval: maximumInterval, learningSteps: learning,
            relearningSteps: relearning, reviews: reviews)
    }

    static func relative(_ value: Double, _ reference: Double) -> Double {
        abs(value - reference) / max(abs(reference), 1e-12)
    }

    // MARK: - The reference

    static let referenceScript = """
        import sys, json, importlib.metadata
        from datetime import datetime, timedelta, timezone
        from fsrs import Scheduler, Card, Rating
        with open(sys.argv[1]) as f:
            histories = json.load(f)
        results = []
        for h in histories:
            scheduler = Scheduler(
                desired_retention=h["retention"], maximum_interval=h["maximumInterval"],
                learning_steps=[timedelta(seconds=s) for s in h["learningSteps"]],
                relearning_steps=[timedelta(seconds=s) for s in h["relearningSteps"]],
                enable_fuzzing=False)
            card = Card()
            outcomes = []
            for grade, ms in h["reviews"]:
                moment = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)
                card, _ = scheduler.review_card(card, Rating(grade), moment)
                due = card.due - datetime(1970, 1, 1, tzinfo=timezone.utc)
                outcomes.append({
                    "stability": card.stability, "difficulty": card.difficulty, "state": int(card.state),
                    "step": card.step, "dueMs": due // timedelta(milliseconds=1)})
            results.append(outcomes)
        with open(sys.argv[2], "w") as out:
            json.dump({"version": importlib.metadata.version("fsrs"), "results": results}, out)
        """

    /// The reference's outcome after each review of each history.
    static func reference(_ histories: [History]) throws -> [[Outcome]] {
        let output = try PythonReference.run(
            referenceScript, input: try JSONEncoder().encode(histories), package: "fsrs==\(referenceVersion)")
        struct Answer: Decodable {
            var version: String
            var results: [[Outcome]]
        }
        let answer = try JSONDecoder().decode(Answer.self, from: output)
        try #require(answer.version == referenceVersion, "the reference is fsrs \(answer.version)")
        return answer.results
    }
}
