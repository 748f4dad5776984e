import ArgumentParser
import Foundation
import LockerKit

/// Options that choose how the progress database schedules reviews. Each changes the scheduling
/// the database keeps; a change replays its review log under the new one.
struct SchedulingOptions: ParsableArguments {
    @Option(help: "The scheduler: sm2 or fsrs. Switching replays the review log; nothing is lost.")
    var scheduler: Scheduling.Algorithm?

    @Option(
        help: ArgumentHelp(
            "A new card's learning steps, each up to a day: '1m,10m', '30s,5m,1h', or 'none'.", valueName: "steps"))
    var steps: StepList?

    @Option(help: ArgumentHelp("A forgotten card's relearning steps: '10m', or 'none'.", valueName: "steps"))
    var relearningSteps: StepList?

    @Option(help: "FSRS: the probability of recall to aim at, from 0.7 to 0.99.")
    var retention: Double?

    @Option(help: "FSRS: the longest interval, in days.")
    var maximumInterval: Int?

    /// The store's scheduling with these options applied; saves (and replays) it when it changed,
    /// and says so on standard error.
    func apply(to store: ProgressStore) throws -> Scheduling {
        let current = try store.scheduling()
        var wanted = current
        if let scheduler { wanted.algorithm = scheduler }
        if let steps { wanted.learningSteps = steps.seconds }
        if let relearningSteps { wanted.relearningSteps = relearningSteps.seconds }
        if let retention { wanted.fsrs.desiredRetention = retention }
        if let maximumInterval { wanted.fsrs.maximumInterval = maximumInterval }
        guard wanted != current else { return current }
        let problems = wanted.problems
        guard problems.isEmpty else { throw ValidationError(problems.joined(separator: "; ") + ".") }
        let cards = try store.setScheduling(wanted)
        printError(
            "locker: scheduling with \(Self.describe(wanted)) from now on; replayed the reviews of \(cards) card\(cards == 1 ? "" : "s")"
        )
        return wanted
    }

    /// `FSRS (retention 0.9), steps 1m 10m, relearning 10m`.
    static func describe(_ scheduling: Scheduling) -> String {
        func steps(_ list: [Int]) -> String {
            list.isEmpty ? "none" : list.map { IntervalPreview.Wait.time(Double($0)).label }.joined(separator: " ")
        }
        let name =
            switch scheduling.algorithm {
            case .sm2: "SM-2"
            case .fsrs: "FSRS (retention \(scheduling.fsrs.desiredRetention))"
            }
        return "\(name), steps \(steps(scheduling.learningSteps)), relearning \(steps(scheduling.relearningSteps))"
    }
}

extension Scheduling.Algorithm: ExpressibleByArgument {}

extension IntervalPreview.Wait {
    /// The wait as a button shows it.
    var label: String { IntervalPreview(grade: .good, wait: self, state: .new).label }
}

/// Steps as written on the command line: durations with a unit (`30s`, `1m`, `2h`, `1d`), comma
/// separated, or `none`.
struct StepList: ExpressibleByArgument {
    var seconds: [Int]

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "none" || text.isEmpty {
            seconds = []
            return
        }
        var seconds: [Int] = []
        for part in text.split(separator: ",") {
            let part = part.trimmingCharacters(in: .whitespaces)
            guard let unit = part.last, let value = Int(part.dropLast()), value > 0,
                let scale = ["s": 1, "m": 60, "h": 3600, "d": 86_400][String(unit)],
                value <= Scheduling.maximumStep / scale
            else { return nil }
            seconds.append(value * scale)
        }
        self.seconds = seconds
    }
}
