/// What a light shows from each side (COLREGs Rule 21): the colours an observer sees, left to
/// right, and the arc each colour covers from above.
extension Drawing.Light {
    /// The colours seen from `view`, left to right as the observer sees them: from ahead the
    /// vessel's starboard side, and so its green sidelight, is on the observer's left.
    func colours(from view: Drawing.View) -> [Drawing.Colour] {
        switch (self, view) {
        case (.masthead, .astern): []
        case (.masthead, _): [.white]
        case (.sidelights, .ahead), (.tricolour, .ahead): [.green, .red]
        case (.sidelights, .starboard), (.tricolour, .starboard): [.green]
        case (.sidelights, .port), (.tricolour, .port): [.red]
        case (.sidelights, .astern): []
        case (.tricolour, .astern): [.white]
        case (.sternlight, .astern): [.white]
        case (.towing, .astern): [.yellow]
        case (.sternlight, _), (.towing, _): []
        case (.white, _): [.white]
        case (.red, _): [.red]
        case (.green, _): [.green]
        case (.yellow, _), (.flashingYellow, _): [.yellow]
        }
    }

    /// The sectors the light shows, from above: a colour, and the bearings from right ahead,
    /// clockwise in degrees, between which it shows.
    var arcs: [(colour: Drawing.Colour, from: Double, to: Double)] {
        switch self {
        case .masthead: [(.white, -112.5, 112.5)]
        case .sidelights: [(.green, 0, 112.5), (.red, -112.5, 0)]
        case .tricolour: [(.green, 0, 112.5), (.red, -112.5, 0), (.white, 112.5, 247.5)]
        case .sternlight: [(.white, 112.5, 247.5)]
        case .towing: [(.yellow, 112.5, 247.5)]
        case .white: [(.white, 0, 360)]
        case .red: [(.red, 0, 360)]
        case .green: [(.green, 0, 360)]
        case .yellow, .flashingYellow: [(.yellow, 0, 360)]
        }
    }
}
