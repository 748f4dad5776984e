/// A drawing described in a `.drawing` file: what a card about a signal shows, laid out on a
/// grid, top row first (see docs/content-format.md, "Drawings").
struct Drawing: Sendable, Hashable {
    /// What the drawing shows, written on its first line.
    enum Scene: String, Sendable, Hashable, CaseIterable {
        /// Day shapes: black shapes on a light sky.
        case day
        /// Lights at night, as seen from the views its line names, on a dark sky.
        case night
        /// The arcs of lights from above, bow up, on a dark sea.
        case plan
        /// Sound signals as a timeline, left to right, a row per signal.
        case sound
    }

    /// A part of a sound signal (Rules 32–35).
    enum Sound: String, Sendable, Hashable, CaseIterable {
        /// A blast of about one second.
        case short
        /// A blast of four to six seconds.
        case prolonged
        /// One stroke on the bell.
        case stroke
        /// The bell rung rapidly for about five seconds.
        case bell
    }

    /// Where a night drawing is seen from, relative to the vessel.
    enum View: String, Sendable, Hashable, CaseIterable {
        case ahead, starboard, astern, port
    }

    /// A light of COLREGs Rule 21, or an all-round light of one colour.
    enum Light: String, Sendable, Hashable, CaseIterable {
        /// White, over 225° forward.
        case masthead
        /// Green to starboard, red to port, each over 112.5° from right ahead.
        case sidelights
        /// White, over 135° aft.
        case sternlight
        /// Yellow, over the sternlight's 135° aft.
        case towing
        /// Sidelights and a sternlight in one lantern at the masthead (Rule 25(b)).
        case tricolour
        case white, red, green, yellow
        /// All-round, flashing (Rule 23(b)).
        case flashingYellow = "flashing-yellow"
    }

    /// A colour a light shows.
    enum Colour: String, Sendable, Hashable {
        case white, red, green, yellow
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
    /// The grid of a day drawing, top row first; nil is an empty place (`-`).
    var rows: [[Shape?]]
    /// The grid of a night or plan drawing, top row first.
    var lightRows: [[Light?]] = []
    /// The views of a night drawing, one panel each, left to right.
    var views: [View] = []
    /// The signals of a sound drawing, top row first, each in the order sounded.
    var soundRows: [[Sound]] = []

    /// The lights of each column, top to bottom, left to right.
    var lightColumns: [[Light]] {
        let count = lightRows.map(\.count).max() ?? 0
        return (0..<count).map { column in lightRows.compactMap { column < $0.count ? $0[column] : nil } }
    }

    /// How many columns the widest row has.
    var columnCount: Int { rows.map(\.count).max() ?? 0 }

    /// The shapes of each column, top to bottom, left to right: how a reader takes the drawing in.
    var columns: [[Shape]] {
        (0..<columnCount).map { column in rows.compactMap { column < $0.count ? $0[column] : nil } }
    }
}
