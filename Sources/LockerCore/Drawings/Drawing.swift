/// A drawing described in a `.drawing` file: what a card about a signal shows, laid out on a
/// grid, top row first (see docs/content-format.md, "Drawings").
struct Drawing: Sendable, Hashable {
    /// What the drawing shows, written on its first line.
    enum Scene: String, Sendable, Hashable, CaseIterable {
        /// Day shapes: black shapes on a light sky.
        case day
    }

    /// One thing a vessel shows by day, at its COLREGs size (Annex I, 6).
    enum Shape: String, Sendable, Hashable, CaseIterable {
        case ball
        case coneUp = "cone-up"
        case coneDown = "cone-down"
        case cylinder
        case diamond
        case flagA = "flag-a"
        case squareFlag = "square-flag"
    }

    var scene: Scene
    /// The grid, top row first; nil is an empty place (`-`).
    var rows: [[Shape?]]

    /// How many columns the widest row has.
    var columnCount: Int { rows.map(\.count).max() ?? 0 }

    /// The shapes of each column, top to bottom, left to right: how a reader takes the drawing in.
    var columns: [[Shape]] {
        (0..<columnCount).map { column in rows.compactMap { column < $0.count ? $0[column] : nil } }
    }
}
