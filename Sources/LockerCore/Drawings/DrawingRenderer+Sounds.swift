/// Sound drawings: each signal a timeline at 40 units to the second, a blast a bar as long as it
/// sounds (a short blast one second, a prolonged one five, within Rule 32's four to six), a
/// stroke on the bell a dot, rapid ringing a zigzag of five seconds, a second between each.
extension DrawingRenderer {
    /// Units to the second.
    static let second = 40
    static let blast = "#1d4f9c"
    static let bellColour = "#8a5a00"

    static func soundSVG(_ drawing: Drawing, title: String) -> String {
        let rows = drawing.soundRows
        let lengths = rows.map { row in row.map(length).reduce(0, +) + second * max(row.count - 1, 0) }
        let width = (lengths.max() ?? 0) + 2 * margin
        let height = rows.count * 80 + 2 * margin - 40
        var svg = header(width: width, height: height, title: title, background: sky)
        for (index, row) in rows.enumerated() {
            let top = margin + index * 80
            svg +=
                "<line x1=\"\(margin)\" y1=\"\(top + 44)\" x2=\"\(margin + lengths[index])\" y2=\"\(top + 44)\" stroke=\"#9aa6b4\" stroke-width=\"2\"/>"
            var x = margin
            for sound in row {
                svg += element(sound, x: x, top: top)
                x += length(sound) + second
            }
        }
        return svg + "</svg>\n"
    }

    /// How long a part sounds, in units.
    static func length(_ sound: Drawing.Sound) -> Int {
        switch sound {
        case .short: second
        case .prolonged, .bell: 5 * second
        case .stroke: 24
        }
    }

    private static func element(_ sound: Drawing.Sound, x: Int, top: Int) -> String {
        switch sound {
        case .short, .prolonged:
            return "<rect x=\"\(x)\" y=\"\(top)\" width=\"\(length(sound))\" height=\"40\" rx=\"8\" fill=\"\(blast)\"/>"
        case .stroke:
            return "<circle cx=\"\(x + 12)\" cy=\"\(top + 20)\" r=\"12\" fill=\"\(bellColour)\"/>"
        case .bell:
            let points = (0...20).map { step in "\(x + step * 10),\(top + (step % 2 == 0 ? 34 : 6))" }
            return
                "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(bellColour)\" stroke-width=\"5\"/>"
        }
    }
}
