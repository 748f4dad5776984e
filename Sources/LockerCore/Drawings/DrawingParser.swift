import Foundation

/// Reads a `.drawing` file into a ``Drawing``, reporting what is wrong with it at its line and
/// column: a scene (`day`, `night` and its views, `plan`, `sound`) on the first line that is not a
/// comment, then a row of the grid per line, its places separated by spaces, `-` for an empty one.
enum DrawingParser {
    /// The largest description read: a drawing is a few short lines.
    static let maxSize = 4096
    /// The most rows and places in a row: a signal is a few shapes.
    static let maxRows = 8
    static let maxColumns = 8

    /// The drawing the text describes, or nil when it describes none; with its problems.
    static func parse(_ data: Data, file: String) -> (drawing: Drawing?, diagnostics: [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        func invalid(_ message: String, at position: SourcePosition = .start, hint: String? = nil) {
            diagnostics.append(Diagnostic(.error, .drawingInvalid, message, file: file, at: position, hint: hint))
        }
        guard data.count <= maxSize else {
            invalid("drawing is \(data.count) bytes; a description holds at most \(maxSize)")
            return (nil, diagnostics)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            invalid("drawing is not valid UTF-8")
            return (nil, diagnostics)
        }
        var scene: Drawing.Scene?
        var views: [Drawing.View] = []
        var rows: [[Drawing.Shape?]] = []
        var lightRows: [[Drawing.Light?]] = []
        var soundRows: [[Drawing.Sound]] = []
        // One kind of row per drawing, as its scene says: one count of them.
        var rowCount = 0
        /// A row's places, `-` an empty one where `emptyPlaces`; a word that names nothing is
        /// reported and left empty.
        func read<Place: RawRepresentable & CaseIterable>(
            _ words: ArraySlice<(text: String, column: Int)>, as _: Place.Type, _ noun: String,
            emptyPlaces: Bool = false,
            at position: (Int) -> SourcePosition
        ) -> [Place?] where Place.RawValue == String {
            words.map { word in
                if emptyPlaces, word.text == "-" { return nil }
                if let place = Place(rawValue: word.text) { return place }
                let names = Place.allCases.map(\.rawValue).joined(separator: ", ")
                diagnostics.append(
                    Diagnostic(
                        .error, .drawingUnknownShape, "unknown \(noun) '\(word.text)'", file: file,
                        at: position(word.column),
                        hint: "use one of: \(names)" + (emptyPlaces ? ", or - for an empty place" : "")))
                return nil
            }
        }
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(
            separator: "\n", omittingEmptySubsequences: false)
        for (offset, line) in lines.enumerated() {
            let words = Self.words(line)
            guard let first = words.first, !first.text.hasPrefix("#") else { continue }
            let position = { (column: Int) in SourcePosition(line: offset + 1, column: column) }
            guard scene != nil else {
                guard let found = Drawing.Scene(rawValue: first.text) else {
                    invalid(
                        "'\(first.text)' is not a scene", at: position(first.column),
                        hint: "start with one of: \(Drawing.Scene.allCases.map(\.rawValue).joined(separator: ", "))")
                    return (nil, diagnostics)
                }
                if found == .night {
                    for word in words.dropFirst() {
                        guard let view = Drawing.View(rawValue: word.text), !views.contains(view) else {
                            invalid(
                                "'\(word.text)' is not a view, or is named twice", at: position(word.column),
                                hint:
                                    "name where the lights are seen from: \(Drawing.View.allCases.map(\.rawValue).joined(separator: ", "))"
                            )
                            continue
                        }
                        views.append(view)
                    }
                    if views.isEmpty && words.count == 1 {
                        invalid(
                            "a night drawing names where it is seen from", at: position(first.column),
                            hint: "write e.g. 'night ahead' or 'night starboard astern'")
                    }
                } else if words.count > 1 {
                    invalid("the scene line holds only '\(first.text)'", at: position(words[1].column))
                }
                scene = found
                continue
            }
            guard rowCount < maxRows else {
                invalid("a drawing has at most \(maxRows) rows", at: position(first.column))
                break
            }
            rowCount += 1
            if words.count > maxColumns {
                invalid("a row has at most \(maxColumns) places", at: position(words[maxColumns].column))
            }
            let places = words.prefix(maxColumns)
            switch scene {
            case .sound: soundRows.append(read(places, as: Drawing.Sound.self, "sound", at: position).compactMap { $0 })
            case .day: rows.append(read(places, as: Drawing.Shape.self, "shape", emptyPlaces: true, at: position))
            default: lightRows.append(read(places, as: Drawing.Light.self, "light", emptyPlaces: true, at: position))
            }
        }
        guard let scene else {
            invalid("drawing is empty", hint: "write a scene (day) on the first line, then a row of shapes per line")
            return (nil, diagnostics)
        }
        guard
            rows.contains(where: { $0.contains { $0 != nil } })
                || lightRows.contains(where: { $0.contains { $0 != nil } })
                || soundRows.contains(where: { !$0.isEmpty })
        else {
            if diagnostics.isEmpty {
                invalid(
                    "drawing shows nothing", hint: "write a row of shapes, lights or sounds below '\(scene.rawValue)'")
            }
            return (nil, diagnostics)
        }
        guard scene != .night || !views.isEmpty else { return (nil, diagnostics) }
        return (
            Drawing(scene: scene, rows: rows, lightRows: lightRows, views: views, soundRows: soundRows), diagnostics
        )
    }

    /// The words of a line, split at spaces and tabs, with the column (in Unicode scalars) each starts at.
    private static func words(_ line: Substring) -> [(text: String, column: Int)] {
        var words: [(text: String, column: Int)] = []
        var current = ""
        var start = 0
        for (index, scalar) in line.unicodeScalars.enumerated() {
            if scalar == " " || scalar == "\t" {
                if !current.isEmpty { words.append((current, start)) }
                current = ""
            } else {
                if current.isEmpty { start = index + 1 }
                current.unicodeScalars.append(scalar)
            }
        }
        if !current.isEmpty { words.append((current, start)) }
        return words
    }
}
