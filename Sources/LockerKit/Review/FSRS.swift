import Foundation

/// FSRS version 6, the memory model: how a review changes a card's stability and difficulty,
/// and the interval that gives the desired retention.
///
/// A line-for-line port of the reference implementation, the `fsrs` package on PyPI (6.3.2,
/// `fsrs/scheduler.py`), with the same operations in the same order, so the same doubles come
/// out: `FSRSTests` checks it against that package on thousands of random histories.
public struct FSRS: Sendable, Hashable, Codable {
    /// The model's 21 weights.
    public var parameters: [Double]
    /// The probability of recall the intervals aim at, from 0.7 to 0.99.
    public var desiredRetention: Double
    /// The longest interval, in days.
    public var maximumInterval: Int

    /// FSRS 6's default weights, as the reference ships them.
    public static let defaultParameters: [Double] = [
        0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614,
        0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542,
    ]
    /// The bounds the reference accepts for each weight.
    static let lowerBounds: [Double] = [
        0.001, 0.001, 0.001, 0.001, 1.0, 0.001, 0.001, 0.001, 0.0, 0.0, 0.001, 0.001, 0.001, 0.001, 0.0, 0.0, 1.0,
        0.0, 0.0, 0.0, 0.1,
    ]
    static let upperBounds: [Double] = [
        100.0, 100.0, 100.0, 100.0, 10.0, 4.0, 4.0, 0.75, 4.5, 0.8, 3.5, 5.0, 0.25, 0.9, 4.0, 1.0, 6.0, 2.0, 2.0,
        0.8, 0.8,
    ]
    static let minimumStability = 0.001
    static let difficultyRange = 1.0...10.0
    /// Python's `math.e`; the reference raises it with `**`, which is C's `pow`, not `exp`.
    private static let e = 2.718281828459045

    public init(
        parameters: [Double] = FSRS.defaultParameters, desiredRetention: Double = 0.9,
        maximumInterval: Int = SM2.maximumInterval
    ) {
        self.parameters = parameters
        self.desiredRetention = desiredRetention
        self.maximumInterval = maximumInterval
    }

    /// What is wrong with the settings, if anything: the reference's bounds on each weight, a
    /// retention from 0.7 to 0.99 and an interval from 1 to 36,500 days.
    public var problems: [String] {
        guard parameters.count == Self.lowerBounds.count else {
            return ["FSRS needs \(Self.lowerBounds.count) parameters, not \(parameters.count)"]
        }
        var problems: [String] = []
        for (index, value) in parameters.enumerated()
        where !(Self.lowerBounds[index]...Self.upperBounds[index]).contains(value) {
            problems.append(
                "parameter \(index) is \(value), out of \(Self.lowerBounds[index])…\(Self.upperBounds[index])")
        }
        if !(0.7...0.99).contains(desiredRetention) {
            problems.append("the desired retention is \(desiredRetention), not from 0.7 to 0.99")
        }
        if !(1...SM2.maximumInterval).contains(maximumInterval) {
            problems.append("the maximum interval is \(maximumInterval), not from 1 to \(SM2.maximumInterval) days")
        }
        return problems
    }

    // Settings out of range (see `problems`) never trap: weights of another count fall back to
    // the defaults, and the maximum interval to 1–36,500 days. The store refuses them first.
    private var w: [Double] { parameters.count == Self.defaultParameters.count ? parameters : Self.defaultParameters }
    private var longest: Int { min(max(maximumInterval, 1), SM2.maximumInterval) }
    private var decay: Double { -w[20] }
    private var factor: Double { pow(0.9, 1 / decay) - 1 }

    /// A card's stability and difficulty.
    public struct Memory: Sendable, Hashable {
        public var stability: Double
        public var difficulty: Double

        public init(stability: Double, difficulty: Double) {
            self.stability = stability
            self.difficulty = difficulty
        }
    }

    /// The memory after a review with `grade`, `elapsedDays` after the previous one.
    ///
    /// - Parameters:
    ///   - memory: `nil` for a card's first review.
    ///   - elapsedDays: whole days since the previous review; under 1, the short-term formula.
    public func next(_ memory: Memory?, grade: Grade, elapsedDays: Int) -> Memory {
        let rating = grade.rawValue + 1
        guard let memory else {
            return Memory(
                stability: max(w[rating - 1], Self.minimumStability),
                difficulty: clampDifficulty(initialDifficulty(rating)))
        }
        let stability: Double
        if elapsedDays < 1 {
            stability = shortTermStability(memory.stability, rating: rating)
        } else {
            let retrievability = self.retrievability(of: memory, elapsedDays: elapsedDays)
            stability = max(
                rating == 1
                    ? forgetStability(difficulty: memory.difficulty, stability: memory.stability, retrievability)
                    : recallStability(
                        difficulty: memory.difficulty, stability: memory.stability, retrievability, rating: rating),
                Self.minimumStability)
        }
        return Memory(stability: stability, difficulty: nextDifficulty(memory.difficulty, rating: rating))
    }

    /// The probability of recalling a card `elapsedDays` after its last review.
    public func retrievability(of memory: Memory, elapsedDays: Int) -> Double {
        pow(1 + factor * Double(max(0, elapsedDays)) / memory.stability, decay)
    }

    /// The interval, in whole days, at which recall falls to the desired retention.
    public func interval(for stability: Double) -> Int {
        let days = (stability / factor) * (pow(desiredRetention, 1 / decay) - 1)
        guard days.isFinite else { return longest }
        let rounded = days.rounded(.toNearestOrEven)  // Python's round()
        return Int(min(max(rounded, 1), Double(longest)))
    }

    private func initialDifficulty(_ rating: Int) -> Double {
        w[4] - pow(Self.e, w[5] * Double(rating - 1)) + 1
    }

    private func clampDifficulty(_ difficulty: Double) -> Double {
        min(max(difficulty, Self.difficultyRange.lowerBound), Self.difficultyRange.upperBound)
    }

    private func shortTermStability(_ stability: Double, rating: Int) -> Double {
        var increase = pow(Self.e, w[17] * (Double(rating - 3) + w[18])) * pow(stability, -w[19])
        if rating > 1 { increase = max(increase, 1.0) }
        return max(stability * increase, Self.minimumStability)
    }

    private func nextDifficulty(_ difficulty: Double, rating: Int) -> Double {
        let easy = initialDifficulty(4)
        let delta = -(w[6] * Double(rating - 3))
        let damped = difficulty + (10.0 - difficulty) * delta / 9.0
        return clampDifficulty(w[7] * easy + (1 - w[7]) * damped)
    }

    private func forgetStability(difficulty: Double, stability: Double, _ retrievability: Double) -> Double {
        let longTerm =
            w[11] * pow(difficulty, -w[12]) * (pow(stability + 1, w[13]) - 1)
            * pow(Self.e, (1 - retrievability) * w[14])
        let shortTerm = stability / pow(Self.e, w[17] * w[18])
        return min(longTerm, shortTerm)
    }

    private func recallStability(difficulty: Double, stability: Double, _ retrievability: Double, rating: Int)
        -> Double
    {
        let hardPenalty = rating == 2 ? w[15] : 1
        let easyBonus = rating == 4 ? w[16] : 1
        return stability
            * (1 + pow(Self.e, w[8]) * (11 - difficulty) * pow(stability, -w[9])
                * (pow(Self.e, (1 - retrievability) * w[10]) - 1) * hardPenalty * easyBonus)
    }
}
