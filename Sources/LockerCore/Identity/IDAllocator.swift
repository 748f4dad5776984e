/// Hands out IDs unique within a checklist or deck: `base`, else `base-2`, `base-3`, ….
///
/// Remembers the last number tried per base, so many items with the same text cost linear time.
struct IDAllocator {
    private(set) var used: Set<String>
    private var next: [String: Int] = [:]

    init(used: Set<String> = []) { self.used = used }

    func isFree(_ id: String) -> Bool { !used.contains(id) }

    /// Marks an ID as used; false when it already was.
    @discardableResult
    mutating func take(_ id: String) -> Bool { used.insert(id).inserted }

    /// The first free ID among `base`, `base-2`, `base-3`, …, now marked used; with `pairedSuffix`,
    /// the first whose `<id><pairedSuffix>` is free too (a card and its `-reverse`).
    mutating func claim(_ base: String, pairedSuffix: String? = nil) -> String {
        func fits(_ id: String) -> Bool { isFree(id) && pairedSuffix.map { isFree(id + $0) } ?? true }
        if fits(base) {
            take(base)
            return base
        }
        var counter = next[base] ?? 2
        while !fits("\(base)-\(counter)") { counter += 1 }
        next[base] = counter + 1
        let id = "\(base)-\(counter)"
        take(id)
        return id
    }
}
