/// How well a card was recalled: the four answer buttons.
public enum Grade: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Forgotten: the card starts over.
    case again = 0
    /// Recalled with serious difficulty; counts as a lapse, like `again`, but costs less ease.
    case hard = 1
    /// Recalled.
    case good = 2
    /// Recalled without effort.
    case easy = 3

    /// Whether the review counts as a success (`good` or `easy`).
    public var isSuccess: Bool { rawValue >= 2 }

    /// `again`, `hard`, `good` or `easy`.
    public var name: String {
        switch self {
        case .again: "again"
        case .hard: "hard"
        case .good: "good"
        case .easy: "easy"
        }
    }

    /// The grade named `name` (case-insensitive).
    public init?(name: String) {
        guard let grade = Grade.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = grade
    }

    public var description: String { name }
}
