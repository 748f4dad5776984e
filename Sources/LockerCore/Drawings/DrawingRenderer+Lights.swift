import Foundation

/// Night and plan drawings: lights on a dark sky as seen from each view the drawing names, and
/// the arcs of lights from above.
extension DrawingRenderer {
    static let night = "#0b1526"
    /// The space between rows of lights and between their columns.
    static let lightPitch = 100

    static func hex(_ colour: Drawing.Colour) -> String {
        switch colour {
        case .white: "#f4f4e8"
        case .red: "#e8262b"
        case .green: "#1fbf4f"
        case .yellow: "#f2c21b"
        }
    }

    /// One panel per view, side by side; each light in the colours it shows from there (Rule 21),
    /// nothing where its arc does not reach.
    static func nightSVG(_ drawing: Drawing, title: String) -> String {
        let rows = drawing.lightRows
        let columns = rows.map(\.count).max() ?? 0
        // A column is as wide as the most colours one of its lights shows from any view.
        let widths = (0..<columns).map { column in
            max(
                1,
                rows.compactMap { column < $0.count ? $0[column] : nil }.map { light in
                    drawing.views.map { light.colours(from: $0).count }.max() ?? 1
                }.max() ?? 1) * 60
        }
        let panelWidth = widths.reduce(0, +) + lightPitch * max(columns - 1, 0) + 2 * margin
        let height = rows.count * lightPitch + 2 * margin
        let width = panelWidth * drawing.views.count
        var svg = header(width: width, height: height, title: title, background: night)
        for (panel, view) in drawing.views.enumerated() {
            let panelLeft = panel * panelWidth
            if panel > 0 {
                svg +=
                    "<line x1=\"\(panelLeft)\" y1=\"0\" x2=\"\(panelLeft)\" y2=\"\(height)\" stroke=\"#3a4658\" stroke-width=\"2\"/>"
            }
            // The sea's edge below the lights.
            svg +=
                "<line x1=\"\(panelLeft + 20)\" y1=\"\(height - margin / 2)\" x2=\"\(panelLeft + panelWidth - 20)\" y2=\"\(height - margin / 2)\" stroke=\"#26354d\" stroke-width=\"4\"/>"
            var left = panelLeft + margin
            for column in 0..<columns {
                for (rowIndex, row) in rows.enumerated() {
                    guard column < row.count, let light = row[column] else { continue }
                    let colours = light.colours(from: view)
                    let y = margin + rowIndex * lightPitch + lightPitch / 2
                    let start = left + (widths[column] - colours.count * 60) / 2 + 30
                    for (index, colour) in colours.enumerated() {
                        svg += lamp(colour, x: start + index * 60, y: y, flashing: light == .flashingYellow)
                    }
                }
                left += widths[column] + lightPitch
            }
        }
        return svg + "</svg>\n"
    }

    private static func lamp(_ colour: Drawing.Colour, x: Int, y: Int, flashing: Bool) -> String {
        var lamp =
            "<circle cx=\"\(x)\" cy=\"\(y)\" r=\"26\" fill=\"\(hex(colour))\" fill-opacity=\"0.3\"/><circle cx=\"\(x)\" cy=\"\(y)\" r=\"13\" fill=\"\(hex(colour))\"/>"
        if flashing {
            lamp +=
                "<circle cx=\"\(x)\" cy=\"\(y)\" r=\"34\" fill=\"none\" stroke=\"\(hex(colour))\" stroke-width=\"3\" stroke-dasharray=\"8 8\"/>"
        }
        return lamp
    }

    /// The vessel from above, bow up, and each light's arcs around it, one ring per light.
    static func planSVG(_ drawing: Drawing, title: String) -> String {
        let lights = drawing.lightRows.joined().compactMap { $0 }
        let outer = 70 + 30 * lights.count
        let size = 2 * (outer + margin)
        let centre = size / 2
        var svg = header(width: size, height: size, title: title, background: night)
        svg +=
            "<polygon points=\"\(centre),\(centre - 44) \(centre + 16),\(centre - 14) \(centre + 14),\(centre + 40) \(centre - 14),\(centre + 40) \(centre - 16),\(centre - 14)\" fill=\"#8a96a8\"/>"
        for (index, light) in lights.enumerated() {
            let radius = 80 + 30 * index
            for arc in light.arcs {
                let colour = hex(arc.colour)
                if arc.to - arc.from >= 360 {
                    svg +=
                        "<circle cx=\"\(centre)\" cy=\"\(centre)\" r=\"\(radius)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"14\"/>"
                    continue
                }
                let (x1, y1) = point(centre, radius, arc.from)
                let (x2, y2) = point(centre, radius, arc.to)
                let large = arc.to - arc.from > 180 ? 1 : 0
                svg +=
                    "<path d=\"M\(x1) \(y1)A\(radius) \(radius) 0 \(large) 1 \(x2) \(y2)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"14\"/>"
            }
        }
        return svg + "</svg>\n"
    }

    /// The point at `bearing` degrees clockwise from right ahead (up), in whole units.
    private static func point(_ centre: Int, _ radius: Int, _ bearing: Double) -> (Int, Int) {
        let radians = bearing * .pi / 180
        return (
            centre + Int((Double(radius) * sin(radians)).rounded()),
            centre - Int((Double(radius) * cos(radians)).rounded())
        )
    }
}
