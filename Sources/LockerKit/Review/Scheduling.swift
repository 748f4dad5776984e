import Foundation

/// How reviews are scheduled: the algorithm, the learning and relearning steps, and FSRS's
/// settings. A ``ProgressStore`` keeps one, and every card state in it follows from the review
/// log under it.
///
/// - A new card goes through the **learning steps** (1 and 10 minutes by default): `again` sends
///   it back to the first step, `hard` repeats the step, `good` moves to the next, and `good` on
///   the last step or `easy` on any graduates it to days.
/// - A card scheduled in days that is forgotten (SM-2: `again` or `hard`; FSRS: `again`) goes
///   through the **relearning steps** (10 minutes by default) the same way.
/// - **SM-2** updates its ease and interval on the first answer of each episode, as SuperMemo's
///   same-day repeats do: the answers within the steps only decide when the card comes back.
/// - **FSRS** updates stability and difficulty on every answer, as the reference does.
public struct Scheduling: Sendable, Hashable, Codable {
    /// The memory model.
    public enum Algorithm: String, Sendable, Hashable, Codable, CaseIterable {
        /// SM-2 in integers (``SM2``): the default.
        case sm2
        /// FSRS version 6 (``FSRS``).
        case fsrs
    }

    public var algorithm: Algorithm
    /// The waits of a new card's steps, in seconds.
    public var learningSteps: [Int]
    /// The waits of a forgotten card's steps, in seconds.
    public var relearningSteps: [Int]
    /// FSRS's weights, desired retention and maximum interval; unused by SM-2.
    public var fsrs: FSRS

    /// 1 minute, then 10: Anki's and the FSRS reference's default.
    public static let defaultLearningSteps = [60, 600]
    /// 10 minutes.
    public static let defaultRelearningSteps = [600]
    /// The longest step: a day. Longer waits are what days are for.
    public static let maximumStep = 86_400

    public init(
        algorithm: Algorithm = .sm2, learningSteps: [Int] = Scheduling.defaultLearningSteps,
        relearningSteps: [Int] = Scheduling.defaultRelearningSteps, fsrs: FSRS = FSRS()
    ) {
        self.algorithm = algorithm
        self.learningSteps = learningSteps
        self.relearningSteps = relearningSteps
        self.fsrs = fsrs
    }

    /// SM-2 without steps: how stores made before steps and FSRS scheduled, which they keep
    /// until an app chooses otherwise.
    public static let classicSM2 = Scheduling(algorithm: .sm2, learningSteps: [], relearningSteps: [])

    /// What is wrong with the settings, if anything.
    public var problems: [String] {
        var problems: [String] = []
        for (name, steps) in [("learning", learningSteps), ("relearning", relearningSteps)]
        where steps.contains(where: { !(1...Self.maximumStep).contains($0) }) {
            problems.append("\(name) steps must be from 1 second to 1 day")
        }
        // FSRS's settings are checked under SM-2 too: they are kept, for a switch later.
        return problems + fsrs.problems
    }

    // MARK: - Reviewing

    /// The state after answering a card in `state` with `grade` at `time`, which counts for `day`.
    public func review(_ state: CardState, grade: Grade, at time: Date, on day: LocalDay) -> CardState {
        var next = state
        let failed: Bool
        switch algorithm {
        case .sm2:
            if !state.isInSteps {
                let scheduled = SM2.review(state, grade: grade, on: day)
                next.repetitions = scheduled.repetitions
                next.ease = scheduled.ease
                next.interval = scheduled.interval
                next.lapses = scheduled.lapses
            }
            failed = !grade.isSuccess
        case .fsrs:
            let memory = state.stability.flatMap { stability in
                state.difficulty.map { FSRS.Memory(stability: stability, difficulty: $0) }
            }
            let elapsed = state.lastReviewed.map { $0.days(until: day) } ?? 0
            let updated = fsrs.next(state.isNew ? nil : memory, grade: grade, elapsedDays: elapsed)
            next.stability = updated.stability
            next.difficulty = updated.difficulty
            failed = grade == .again
            if failed, state.phase == .review { next.lapses += 1 }
            next.repetitions = failed ? 0 : state.repetitions + 1
        }
        next.reviews = state.reviews + 1
        next.lastReviewed = day
        next.introduced = state.introduced ?? day

        let wait: Double?
        switch state.phase {
        case .new, .learning:
            (next.step, wait) = Self.step(learningSteps, at: state.step ?? 0, grade: grade)
            next.phase = .learning
        case .relearning:
            (next.step, wait) = Self.step(relearningSteps, at: state.step ?? 0, grade: grade)
        case .review:
            if failed, let first = relearningSteps.first {
                (next.step, wait) = (0, Double(first))
                next.phase = .relearning
            } else {
                (next.step, wait) = (nil, nil)
            }
        }
        if let wait {
            let dueTime = Milliseconds.rounded(time.addingTimeInterval(wait))
            next.dueTime = dueTime
            next.due = day.adding(days: Int(wait / 86_400))
            if algorithm == .fsrs { next.interval = 0 }
        } else {
            next.phase = .review
            next.step = nil
            next.dueTime = nil
            if algorithm == .fsrs { next.interval = fsrs.interval(for: next.stability ?? FSRS.minimumStability) }
            next.due = day.adding(days: next.interval)
        }
        return next
    }

    /// The step a card moves to in `steps`, and the wait until it is due; `nil` for both when it
    /// graduates to days. The reference's rules: `hard` on the first step waits 1.5 times it, or
    /// halfway to the second.
    private static func step(_ steps: [Int], at step: Int, grade: Grade) -> (step: Int?, wait: Double?) {
        let step = max(0, step)
        if steps.isEmpty || (step >= steps.count && grade != .again) { return (nil, nil) }
        switch grade {
        case .again:
            return (0, Double(steps[0]))
        case .hard:
            if step == 0 {
                return (0, steps.count == 1 ? Double(steps[0]) * 1.5 : (Double(steps[0]) + Double(steps[1])) / 2.0)
            }
            return (step, Double(steps[step]))
        case .good:
            return step + 1 == steps.count ? (nil, nil) : (step + 1, Double(steps[step + 1]))
        case .easy:
            return (nil, nil)
        }
    }

    /// What each grade would do to a card in `state` answered at `time` on `day`, in grade order:
    /// the buttons' labels (`again 1m · hard 6m · good 10m · easy 4d`).
    public func previews(of state: CardState, at time: Date, on day: LocalDay) -> [IntervalPreview] {
        Grade.allCases.map { grade in
            let next = review(state, grade: grade, at: time, on: day)
            let wait: IntervalPreview.Wait =
                if next.isInSteps, let dueTime = next.dueTime {
                    .time(dueTime.timeIntervalSince(Milliseconds.rounded(time)))
                } else {
                    .days(day.days(until: next.due ?? day))
                }
            return IntervalPreview(grade: grade, wait: wait, state: next)
        }
    }
}

/// What one grade would do to a card: how long until it is due again, and its state then.
public struct IntervalPreview: Sendable, Hashable {
    /// How long a card waits.
    public enum Wait: Sendable, Hashable {
        /// A learning or relearning step: seconds.
        case time(TimeInterval)
        /// Days, counted from the day of the answer.
        case days(Int)
    }

    public var grade: Grade
    public var wait: Wait
    /// The state the grade would give.
    public var state: CardState

    public init(grade: Grade, wait: Wait, state: CardState) {
        self.grade = grade
        self.wait = wait
        self.state = state
    }

    /// The wait as a button shows it: `1m`, `10m`, `1h`, `4d`, `1.5mo`, `2.1y`.
    public var label: String {
        func decimal(_ value: Double, _ unit: String) -> String {
            let tenths = Int((value * 10).rounded())
            return (tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)") + unit
        }
        switch wait {
        case .time(let seconds):
            if seconds < 60 { return "\(Int(seconds.rounded()))s" }
            if seconds < 3600 { return "\(Int((seconds / 60).rounded()))m" }
            if seconds < 86_400 { return decimal(seconds / 3600, "h") }
            return decimal(seconds / 86_400, "d")
        case .days(let days):
            if days < 30 { return "\(days)d" }
            if days < 365 { return decimal(Double(days) / 30, "mo") }
            return decimal(Double(days) / 365, "y")
        }
    }
}
