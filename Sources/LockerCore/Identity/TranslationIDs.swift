import LockerKit

/// The IDs `locker ids --write` gives the items of a translated checklist, so the translations
/// pair by ID.
///
/// When two language versions of a checklist have the same shape (the same number of sections,
/// of subsections in each, and of items in each), an item without a written ID takes the ID its
/// counterpart in another version has written; failing that, the one its counterpart in the
/// default-locale version has. Otherwise it keeps its own derived ID.
enum TranslationIDs {
    /// The ID to write for each item without one, by note path and title line, where it differs
    /// from the item's own derived ID.
    static func adopted(_ notes: [ParsedNote], config: VaultConfig) -> [String: [Int: String]] {
        // The default locale's version first, then the others in the order a reader falls back.
        let preference = config.localePreference
        let rank = { (note: ParsedNote) in preference.rank(note.locale, for: config.defaultLocale) }
        let versions = notes.filter { $0.kind == .checklist && $0.checklist != nil }
        var result: [String: [Int: String]] = [:]
        for (_, group) in Dictionary(grouping: versions, by: \.id) where group.count > 1 {
            let sorted = group.sorted { rank($0) != rank($1) ? rank($0) < rank($1) : $0.path < $1.path }
            for version in sorted {
                guard let checklist = version.checklist else { continue }
                let shape = Self.shape(checklist)
                let others = sorted.filter { $0.path != version.path && $0.checklist.map(Self.shape) == shape }
                guard !others.isEmpty else { continue }
                let items = checklist.items
                // Every ID the version has now, written or derived, so no two items end up sharing one.
                var used = Set(items.map(\.id))
                for (position, item) in items.enumerated() where !item.isExplicit {
                    let counterparts = others.compactMap { $0.checklist?.items[position] }
                    let written = counterparts.first(where: \.isExplicit)?.id
                    let reference = others.first.flatMap {
                        rank($0) < rank(version) ? $0.checklist?.items[position].id : nil
                    }
                    guard let id = written ?? reference, id != item.id, !used.contains(id) else { continue }
                    used.insert(id)
                    result[version.path, default: [:]][item.titleLine] = id
                }
            }
        }
        return result
    }

    private static func shape(_ checklist: ParsedChecklist) -> [[Int]] {
        checklist.sections.map { $0.subsections.map(\.items.count) }
    }
}
