import Foundation

/// Draws a ``Drawing`` as a small SVG, to scale: 100 units to the metre, shapes at the sizes of
/// COLREGs Annex I, 6 (a ball 0.6 m across, a cone 0.6 m wide and high, a cylinder 0.6 m by
/// 1.2 m, a diamond two cones base to base) and 1.5 m apart. Whole numbers only, in a fixed
/// order: the same drawing gives the same bytes.
enum DrawingRenderer {
    /// The space between rows and between columns: Annex I, 6(a)(iv), 1.5 m.
    static let gap = 150
    static let margin = 40
    static let sky = "#e4edf5"
    static let ink = "#111111"

    /// The SVG document, its title (and alt text) the caption given.
    static func svg(_ drawing: Drawing, title: String) -> String {
        switch drawing.scene {
        case .day: daySVG(drawing, title: title)
        case .night: nightSVG(drawing, title: title)
        case .plan: planSVG(drawing, title: title)
        case .sound: soundSVG(drawing, title: title)
        }
    }

    /// The opening of the SVG document, its title and its background.
    static func header(width: Int, height: Int, title: String, background: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width / 2)\" height=\"\(height / 2)\" role=\"img\" aria-labelledby=\"title\">"
            + "<title id=\"title\">\(escaped(title))</title>"
            + "<rect width=\"\(width)\" height=\"\(height)\" fill=\"\(background)\"/>"
    }

    /// Black shapes on a light sky.
    private static func daySVG(_ drawing: Drawing, title: String) -> String {
        let columns = drawing.columnCount
        let widths = (0..<columns).map { column in
            drawing.rows.compactMap { column < $0.count ? $0[column].map(size) : nil }.map(\.width).max() ?? 60
        }
        let heights = drawing.rows.map { row in row.compactMap { $0.map(size) }.map(\.height).max() ?? 60 }
        let width = widths.reduce(0, +) + gap * max(columns - 1, 0) + 2 * margin
        let height = heights.reduce(0, +) + gap * max(heights.count - 1, 0) + 2 * margin
        var lefts: [Int] = []
        var x = margin
        for w in widths {
            lefts.append(x)
            x += w + gap
        }
        var tops: [Int] = []
        var y = margin
        for h in heights {
            tops.append(y)
            y += h + gap
        }
        var svg = header(width: width, height: height, title: title, background: sky)
        // The hoist between shapes one above the other in a column, drawn behind them.
        for column in 0..<columns {
            var previousBottom: Int?
            for (rowIndex, row) in drawing.rows.enumerated() {
                guard column < row.count, let shape = row[column] else { continue }
                let (_, h) = size(shape)
                let top = tops[rowIndex] + (heights[rowIndex] - h) / 2
                let centre = lefts[column] + widths[column] / 2
                if let previousBottom {
                    svg +=
                        "<line x1=\"\(centre)\" y1=\"\(previousBottom)\" x2=\"\(centre)\" y2=\"\(top)\" stroke=\"#5a6470\" stroke-width=\"4\"/>"
                }
                previousBottom = top + h
            }
        }
        for (rowIndex, row) in drawing.rows.enumerated() {
            for (column, shape) in row.enumerated() {
                guard let shape else { continue }
                let (w, h) = size(shape)
                let left = lefts[column] + (widths[column] - w) / 2
                let top = tops[rowIndex] + (heights[rowIndex] - h) / 2
                svg += element(shape, x: left, y: top)
            }
        }
        return svg + "</svg>\n"
    }

    /// A shape's width and height, in centimetres.
    static func size(_ shape: Drawing.Shape) -> (width: Int, height: Int) {
        switch shape {
        case .ball, .coneUp, .coneDown: (60, 60)
        case .cylinder, .diamond: (60, 120)
        // Rule 27(e)(ii): the replica of flag A at least 1 m high; a flag is half again as wide.
        case .flagA: (150, 100)
        case .squareFlag: (100, 100)
        }
    }

    private static func element(_ shape: Drawing.Shape, x: Int, y: Int) -> String {
        let fill = "fill=\"\(ink)\""
        switch shape {
        case .ball:
            return "<circle cx=\"\(x + 30)\" cy=\"\(y + 30)\" r=\"30\" \(fill)/>"
        case .coneUp:
            return "<polygon points=\"\(x),\(y + 60) \(x + 30),\(y) \(x + 60),\(y + 60)\" \(fill)/>"
        case .coneDown:
            return "<polygon points=\"\(x),\(y) \(x + 60),\(y) \(x + 30),\(y + 60)\" \(fill)/>"
        case .cylinder:
            return "<rect x=\"\(x)\" y=\"\(y)\" width=\"60\" height=\"120\" \(fill)/>"
        case .diamond:
            return
                "<polygon points=\"\(x + 30),\(y) \(x + 60),\(y + 60) \(x + 30),\(y + 120) \(x),\(y + 60)\" \(fill)/>"
        case .flagA:
            // White at the hoist, blue swallow-tailed fly (International Code of Signals).
            return
                "<rect x=\"\(x)\" y=\"\(y)\" width=\"70\" height=\"100\" fill=\"#ffffff\" stroke=\"\(ink)\" stroke-width=\"2\"/>"
                + "<polygon points=\"\(x + 70),\(y) \(x + 150),\(y) \(x + 110),\(y + 50) \(x + 150),\(y + 100) \(x + 70),\(y + 100)\" fill=\"#1d4f9c\"/>"
        case .squareFlag:
            return "<rect x=\"\(x)\" y=\"\(y)\" width=\"100\" height=\"100\" \(fill)/>"
        }
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
