/// How far along a run, a section or a subsection is.
public struct ChecklistProgress: Sendable, Hashable, Codable {
    public var checked: Int
    public var notApplicable: Int
    /// Items in the current checklist (items removed from the content are not counted).
    public var total: Int

    public init(checked: Int = 0, notApplicable: Int = 0, total: Int = 0) {
        self.checked = checked
        self.notApplicable = notApplicable
        self.total = total
    }

    /// Checked or not applicable.
    public var done: Int { checked + notApplicable }
    /// Still unchecked.
    public var open: Int { total - done }
    /// Whether every item is done (true for an empty part).
    public var isComplete: Bool { done == total }
    /// Done over total, from 0 to 1; 1 for an empty part.
    public var fraction: Double { total == 0 ? 1 : Double(done) / Double(total) }
    /// The whole percentage done, rounded down so 99.6 % never shows as 100 %.
    public var percent: Int { total == 0 ? 100 : done * 100 / total }

    mutating func count(_ state: ItemState) {
        total += 1
        switch state {
        case .checked: checked += 1
        case .notApplicable: notApplicable += 1
        case .unchecked: break
        }
    }
}
