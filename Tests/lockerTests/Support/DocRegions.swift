import Foundation

/// The generated regions of a Markdown document: the lines between a line
/// `<!-- generated: NAME … -->` and the next line `<!-- end generated -->`.
///
/// NAME is the first word after `generated:`; what follows it on the marker line is for people
/// and is kept as written. The marker lines are never rewritten, only the lines between them.
struct DocRegions {
    /// One region: its name, the text between its markers (whole lines, each ending in a
    /// newline) and the line of its opening marker.
    struct Region {
        var name: String
        var body: String
        var line: Int
    }

    enum Failure: Error, CustomStringConvertible {
        case unclosed(name: String, line: Int)
        case stray(line: Int)
        case nameless(line: Int)
        case duplicate(name: String, line: Int)

        var description: String {
            switch self {
            case .unclosed(let name, let line): "line \(line): region '\(name)' has no '\(DocRegions.end)' after it"
            case .stray(let line): "line \(line): '\(DocRegions.end)' without a region before it"
            case .nameless(let line): "line \(line): a '<!-- generated: -->' marker without a name"
            case .duplicate(let name, let line): "line \(line): region '\(name)' twice in one document"
            }
        }
    }

    static let start = "<!-- generated:"
    static let end = "<!-- end generated -->"

    /// The document's lines, each with its newline (the last one may have none).
    private let lines: [Substring]
    /// The regions, in document order, with the index of each one's opening marker.
    let regions: [Region]
    private let markers: [(open: Int, close: Int)]

    init(_ text: String) throws {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
            // Keeps the newline on every line but the text after the last one.
            let end = line.endIndex < text.endIndex ? text.index(after: line.endIndex) : line.endIndex
            return text[line.startIndex..<end]
        }
        var regions: [Region] = []
        var markers: [(open: Int, close: Int)] = []
        var open: (name: String, index: Int)?
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.hasPrefix(Self.start), trimmed.hasSuffix("-->") {
                if let open { throw Failure.unclosed(name: open.name, line: open.index + 1) }
                let words = trimmed.dropFirst(Self.start.count).dropLast(3).split(separator: " ")
                guard let name = words.first else { throw Failure.nameless(line: index + 1) }
                if regions.contains(where: { $0.name == name }) {
                    throw Failure.duplicate(name: String(name), line: index + 1)
                }
                open = (String(name), index)
            } else if trimmed == Self.end {
                guard let opened = open else { throw Failure.stray(line: index + 1) }
                regions.append(
                    Region(
                        name: opened.name, body: lines[(opened.index + 1)..<index].joined(),
                        line: opened.index + 1))
                markers.append((opened.index, index))
                open = nil
            }
        }
        if let open { throw Failure.unclosed(name: open.name, line: open.index + 1) }
        self.regions = regions
        self.markers = markers
    }

    /// The document with each region's body replaced by `bodies[name]` (kept when absent).
    func rewritten(with bodies: [String: String]) -> String {
        var result = ""
        var next = 0
        for (region, marker) in zip(regions, markers) {
            result += lines[next...marker.open].joined()
            result += bodies[region.name] ?? region.body
            next = marker.close
        }
        result += lines[next...].joined()
        return result
    }
}
