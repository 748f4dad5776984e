import Foundation

/// One checklist being worked through for one charter: the checklist as the bundle has it now, and
/// the state of each of its items.
public struct ChecklistRun: Sendable, Hashable {
    public var charter: Charter
    public var checklist: Checklist
    /// Every stored record by item ID, including those of items no longer in the checklist.
    public var records: [String: ItemRecord]

    public init(charter: Charter, checklist: Checklist, records: [String: ItemRecord]) {
        self.charter = charter
        self.checklist = checklist
        self.records = records
    }

    /// The record of an item; untouched when there is none.
    public func record(of itemID: String) -> ItemRecord { records[itemID] ?? .untouched }

    /// The state of an item.
    public func state(of itemID: String) -> ItemState { record(of: itemID).state }

    /// Progress over the whole checklist.
    public var progress: ChecklistProgress { progress(of: checklist.items) }

    /// Progress over one section.
    public func progress(of section: ChecklistSection) -> ChecklistProgress {
        progress(of: section.subsections.flatMap(\.items))
    }

    /// Progress over one subsection.
    public func progress(of subsection: ChecklistSubsection) -> ChecklistProgress { progress(of: subsection.items) }

    /// Records of items that are no longer in the checklist, by item ID: kept, not counted.
    public var orphans: [String: ItemRecord] {
        let current = Set(checklist.items.map(\.id))
        return records.filter { !current.contains($0.key) }
    }

    private func progress(of items: [ChecklistItem]) -> ChecklistProgress {
        var progress = ChecklistProgress()
        for item in items { progress.count(state(of: item.id)) }
        return progress
    }
}
