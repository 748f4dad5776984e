/// How a checklist changed since a run last saw it, when a new bundle brought a new version.
///
/// States follow item IDs: an item still there keeps its state; a new item starts unchecked; a
/// removed item keeps its state in storage, out of the counts, and gets it back if it returns.
public struct ChecklistMigration: Sendable, Hashable, Codable {
    /// Items the run had not seen, in checklist order.
    public var added: [String]
    /// Items the run had seen that are no longer in the checklist, in the order the run saw them.
    public var removed: [String]
    /// Of `removed`, those that had been checked, marked not applicable or given a note.
    public var removedWithProgress: [String]

    public init(added: [String] = [], removed: [String] = [], removedWithProgress: [String] = []) {
        self.added = added
        self.removed = removed
        self.removedWithProgress = removedWithProgress
    }

    /// Whether the checklist is the same as the run last saw it.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty }
}
