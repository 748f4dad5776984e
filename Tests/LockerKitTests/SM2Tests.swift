import Foundation
import LockerKit
import LockerTestSupport
import Testing

@Suite struct SM2Tests {
    static let start = LocalDay(year: 2026, month: 3, day: 1)!

    /// Reviews a new card with `grades`, each on the day the card is due (the first on `start`),
    /// and returns every state after a review.
    static func run(_ grades: [Grade], from state: CardState = .new, on day: LocalDay = start) -> [CardState] {
        var state = state
        var day = day
        var states: [CardState] = []
        for grade in grades {
            state = SM2.review(state, grade: grade, on: day)
            states.append(state)
            day = state.due ?? day
        }
        return states
    }

    // MARK: - Exact vectors

    @Test func goodSixTimes() {
        let states = Self.run(Array(repeating: .good, count: 6))
        #expect(states.map(\.interval) == [1, 6, 15, 38, 95, 238])
        #expect(states.map(\.ease) == Array(repeating: 2500, count: 6))
        #expect(states.map(\.repetitions) == [1, 2, 3, 4, 5, 6])
        #expect(states.last?.lapses == 0)
        #expect(states.last?.reviews == 6)
    }

    @Test func easySixTimes() {
        let states = Self.run(Array(repeating: .easy, count: 6))
        #expect(states.map(\.interval) == [1, 6, 17, 50, 150, 465])
        #expect(states.map(\.ease) == [2600, 2700, 2800, 2900, 3000, 3100])
    }

    @Test func againFourTimesThenGoodThreeTimes() {
        let states = Self.run(Array(repeating: .again, count: 4) + Array(repeating: .good, count: 3))
        #expect(states.map(\.ease) == [2180, 1860, 1540, 1300, 1300, 1300, 1300])
        #expect(states.suffix(3).map(\.interval) == [1, 6, 8])
        #expect(states.prefix(4).allSatisfy { $0.interval == 1 && $0.repetitions == 0 })
        // Failures before any success are not lapses.
        #expect(states.last?.lapses == 0)
    }

    @Test func hardOnANewCard() {
        let day = LocalDay(year: 2026, month: 5, day: 10)!
        let state = SM2.review(.new, grade: .hard, on: day)
        #expect(state.ease == 2360)
        #expect(state.interval == 1)
        #expect(state.repetitions == 0)
        #expect(state.reviews == 1)
        #expect(state.lapses == 0)
        #expect(state.due == LocalDay(year: 2026, month: 5, day: 11))
        #expect(state.lastReviewed == day)
        #expect(state.introduced == day)
    }

    @Test func easeChangePerGrade() {
        #expect(SM2.easeChange(for: .easy) == 100)
        #expect(SM2.easeChange(for: .good) == 0)
        #expect(SM2.easeChange(for: .hard) == -140)
        #expect(SM2.easeChange(for: .again) == -320)
        let state = CardState(
            repetitions: 3, ease: 2000, interval: 10, due: nil, lastReviewed: nil, introduced: nil, reviews: 3,
            lapses: 0)
        let day = Self.start
        #expect(SM2.review(state, grade: .easy, on: day).ease == 2100)
        #expect(SM2.review(state, grade: .good, on: day).ease == 2000)
        #expect(SM2.review(state, grade: .hard, on: day).ease == 1860)
        #expect(SM2.review(state, grade: .again, on: day).ease == 1680)
    }

    @Test func newCardDefaults() {
        #expect(CardState.new.isNew)
        #expect(CardState.new.ease == 2500)
        #expect(CardState.new.interval == 0)
        #expect(CardState.new.isDue(on: Self.start))
        #expect(!SM2.review(.new, grade: .good, on: Self.start).isNew)
    }

    @Test func introducedStaysTheFirstReviewDay() {
        let states = Self.run([.good, .again, .good])
        #expect(states.allSatisfy { $0.introduced == Self.start })
        #expect(states.last?.lastReviewed != Self.start)
    }

    @Test func gradeNamesRoundTrip() {
        for grade in Grade.allCases { #expect(Grade(name: grade.name) == grade) }
        #expect(Grade(name: "GOOD") == .good)
        #expect(Grade(name: "fine") == nil)
        #expect(Grade.allCases.filter(\.isSuccess) == [.good, .easy])
    }

    // MARK: - Properties over random grade sequences

    /// Random grade sequences from a new card, each with the day of each review (on or after the due day).
    static func sequences(count: Int = 1000, seed: UInt64) -> [[(grade: Grade, lateBy: Int)]] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let length = Int.random(in: 1...24, using: &random)
            // Bias some sequences towards success, so long runs of successes are covered too.
            let successBias = Int.random(in: 0...3, using: &random)
            return (0..<length).map { _ in
                let grade: Grade =
                    Int.random(in: 0...3, using: &random) < successBias
                    ? (Bool.random(using: &random) ? .good : .easy)
                    : Grade.allCases.randomElement(using: &random)!
                return (grade, Int.random(in: 0...3, using: &random))
            }
        }
    }

    /// SM-2's ease after a review, stated independently of `SM2`: EF' = EF + (0.1 − (5 − q) ×
    /// (0.08 + (5 − q) × 0.02)), never below 1.3, in thousandths. SM-2's q runs from 0 to 5; the
    /// four grades are its q 2 to 5 (again 2, hard 3, good 4, easy 5).
    static func sm2Ease(after ease: Int, grade: Grade) -> Int {
        let q: Double =
            switch grade {
            case .again: 2
            case .hard: 3
            case .good: 4
            case .easy: 5
            }
        let change = 0.1 - (5 - q) * (0.08 + (5 - q) * 0.02)
        return max(1300, ease + Int((change * 1000).rounded()))
    }

    @Test func sm2EaseIsTheTableOfChangesPerGrade() {
        // SM-2's changes: q 5 +0.10, q 4 ±0, q 3 −0.14, q 2 −0.32.
        #expect(Grade.allCases.map { Self.sm2Ease(after: 2500, grade: $0) } == [2180, 2360, 2500, 2600])
        #expect(Self.sm2Ease(after: 1400, grade: .again) == 1300)
    }

    @Test func generatorIsDeterministic() {
        var a = SplitMix64(seed: 42)
        var b = SplitMix64(seed: 42)
        var c = SplitMix64(seed: 43)
        let first = (0..<8).map { _ in a.next() }
        #expect(first == (0..<8).map { _ in b.next() })
        #expect(first != (0..<8).map { _ in c.next() })
        // SplitMix64's published first output for seed 0.
        var zero = SplitMix64(seed: 0)
        #expect(zero.next() == 0xE220_A839_7B1D_CDAF)
    }

    @Test func propertiesHoldOverRandomSequences() {
        var checkedGrowth = 0
        for sequence in Self.sequences(seed: 0x5EED) {
            var state = CardState.new
            var day = Self.start
            var lapses = 0
            var previousGrade: Grade?
            for (index, step) in sequence.enumerated() {
                let next = SM2.review(state, grade: step.grade, on: day)
                #expect(next.ease >= SM2.minimumEase)
                #expect(next.ease == Self.sm2Ease(after: state.ease, grade: step.grade))
                #expect(next.due == day.adding(days: next.interval))
                #expect(next.lastReviewed == day)
                #expect(next.introduced == Self.start)
                #expect(next.reviews == index + 1)
                #expect(next.interval >= 1)
                if step.grade.isSuccess {
                    #expect(next.repetitions == state.repetitions + 1)
                    // A success never shortens the interval…
                    #expect(next.interval >= state.interval)
                    if previousGrade?.isSuccess == true {
                        // …and after a success (so now at least 2 in a row) it grows strictly,
                        // because the ease is always above 1.0, until it reaches the cap.
                        #expect(next.repetitions >= 2)
                        #expect(next.interval > state.interval || next.interval == SM2.maximumInterval)
                        #expect(next.interval <= SM2.maximumInterval)
                        checkedGrowth += 1
                    } else {
                        // The first success (of the card, or after a failure) is 1 day.
                        #expect(next.repetitions == 1)
                        #expect(next.interval == 1)
                    }
                } else {
                    #expect(next.repetitions == 0)
                    #expect(next.interval == 1)
                    // A lapse is a failure of a card whose last review was a success.
                    if previousGrade?.isSuccess == true { lapses += 1 }
                }
                #expect(next.lapses == lapses)
                state = next
                previousGrade = step.grade
                day = (next.due ?? day).adding(days: step.lateBy)
            }
        }
        #expect(checkedGrowth > 5000, "the sequences must contain many runs of successes")
    }

    @Test func aLongRunOfEasyReviewsDoesNotCrash() async {
        // Nothing stops a caller reviewing a card again before it is due; each easy grows the
        // interval about 3–5 times. In a child process, as an overflow would trap.
        await #expect(processExitsWith: .success) {
            var state = CardState.new
            let day = LocalDay(year: 2026, month: 3, day: 1)!
            for _ in 0..<40 { state = SM2.review(state, grade: .easy, on: day) }
            precondition(state.interval > 0 && state.reviews == 40)
        }
    }

    @Test func intervalAfterTheSecondSuccessIsTheCeilingOfIntervalTimesEase() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<5000 {
            let interval = Int.random(in: 1...5000, using: &random)
            let ease = Int.random(in: 1300...4000, using: &random)
            let state = CardState(
                repetitions: Int.random(in: 2...9, using: &random), ease: ease, interval: interval, due: nil,
                lastReviewed: nil, introduced: nil, reviews: 9, lapses: 0)
            let next = SM2.review(state, grade: .good, on: Self.start)
            let exact = Double(interval) * Double(ease) / 1000
            #expect(next.interval == Int(exact.rounded(.up)), "interval \(interval), ease \(ease)")
        }
    }
}

@Suite struct LocalDayTests {
    @Test func epochIsOrdinalZero() {
        #expect(LocalDay(year: 1970, month: 1, day: 1)?.ordinal == 0)
        #expect(LocalDay("1970-01-01")?.ordinal == 0)
        #expect(LocalDay(ordinal: 0).description == "1970-01-01")
        #expect(LocalDay("1969-12-31")?.ordinal == -1)
        #expect(LocalDay("1970-01-02")?.ordinal == 1)
        #expect(LocalDay("2000-03-01")?.ordinal == 11_017)
    }

    @Test(arguments: ["2026-02-28", "2024-02-29", "2000-02-29", "0001-01-01", "9999-12-31", "2026-12-31", "2026-04-30"])
    func parsesValidDays(_ text: String) throws {
        let day = try #require(LocalDay(text))
        #expect(day.description == text)
    }

    @Test(arguments: [
        "2026-02-30", "2026-2-3", "2026-02-3", "2100-02-29", "2025-02-29", "1900-02-29", "2026-04-31", "2026-13-01",
        "2026-00-10", "2026-01-00", "0000-01-01", "26-02-03", "2026/02/03", "2026-02-03 ", " 2026-02-03",
        "2026-02-03T00",
        "+026-02-03", "2026--2-03", "", "2026-02", "2026-0a-03", "２０２６-02-03",
    ])
    func rejectsInvalidDays(_ text: String) {
        #expect(LocalDay(text) == nil, "\(text)")
    }

    @Test func leapYears() {
        #expect(LocalDay(year: 2024, month: 2, day: 29) != nil)
        #expect(LocalDay(year: 2000, month: 2, day: 29) != nil)
        #expect(LocalDay(year: 2100, month: 2, day: 29) == nil)
        #expect(LocalDay(year: 2023, month: 2, day: 29) == nil)
        let feb28 = LocalDay(year: 2024, month: 2, day: 28)!
        #expect(feb28.adding(days: 1).description == "2024-02-29")
        #expect(feb28.adding(days: 2).description == "2024-03-01")
        #expect(LocalDay(year: 2100, month: 2, day: 28)!.adding(days: 1).description == "2100-03-01")
    }

    @Test func componentsAndDescriptionRoundTripOverAWideRange() throws {
        let first = try #require(LocalDay(year: 1, month: 1, day: 1)).ordinal
        let last = try #require(LocalDay(year: 9999, month: 12, day: 31)).ordinal
        #expect(last - first == 3_652_058)
        var ordinals = Array(stride(from: first, through: last, by: 997)) + [first, last, -1, 0, 1]
        // Every day of 1896–2104, which covers leap-year exceptions 1900, 2000 and 2100.
        let from = try #require(LocalDay(year: 1896, month: 1, day: 1)).ordinal
        let to = try #require(LocalDay(year: 2104, month: 12, day: 31)).ordinal
        ordinals += Array(from...to)
        for ordinal in ordinals {
            let day = LocalDay(ordinal: ordinal)
            let (y, m, d) = day.components
            #expect(LocalDay(year: y, month: m, day: d)?.ordinal == ordinal)
            #expect(LocalDay(day.description) == day)
            #expect(day.description.count == 10)
        }
        // Consecutive days: the day of the month advances by one, or the month (and year) rolls over.
        #expect(LocalDay(ordinal: from - 1).description == "1895-12-31")
        var previous = LocalDay(ordinal: from - 1).components
        for ordinal in from...to {
            let (y, m, d) = LocalDay(ordinal: ordinal).components
            if d == 1 {
                #expect(m == previous.month % 12 + 1)
                #expect(y == (m == 1 ? previous.year + 1 : previous.year))
                #expect(previous.day >= 28)
            } else {
                #expect(d == previous.day + 1 && m == previous.month && y == previous.year)
            }
            previous = (y, m, d)
        }
    }

    @Test func addingDays() {
        let day = LocalDay(year: 2026, month: 12, day: 31)!
        #expect(day.adding(days: 1).description == "2027-01-01")
        #expect(day.adding(days: -365).description == "2025-12-31")
        #expect(day.adding(days: 0) == day)
        #expect(day.adding(days: 60).description == "2027-03-01")
        #expect(day.days(until: day.adding(days: 42)) == 42)
        #expect(day.adding(days: -42).days(until: day) == 42)
        #expect(LocalDay(ordinal: 0).adding(days: -1).description == "1969-12-31")
    }

    @Test func ordersChronologicallyAndEncodesAsText() throws {
        let a = LocalDay("2026-01-31")!
        let b = LocalDay("2026-02-01")!
        #expect(a < b)
        #expect(a.description < b.description)
        let data = try JSONEncoder().encode([a])
        #expect(String(decoding: data, as: UTF8.self) == #"["2026-01-31"]"#)
        #expect(try JSONDecoder().decode([LocalDay].self, from: data) == [a])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([LocalDay].self, from: Data(#"["2026-02-30"]"#.utf8))
        }
    }
}
