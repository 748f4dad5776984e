import Foundation
import Testing

@testable import LockerCore

/// The default vault's drawings against their cards: every card of a deck learned by eye has a
/// drawing, the same in every language, and the drawing shows what the card's English text
/// says, read with a small table of phrases.
@Suite struct DrawingCardAgreementTests {
    static let decks = DefaultContentTests.vault.appendingPathComponent("decks")

    /// A card of a deck's source and the drawing on one of its sides.
    struct DrawnCard {
        var id: String
        /// The text of the side the drawing is on.
        var text: String
        var drawing: String?
    }

    /// The cards of a deck note, each with the drawing on the line above it (its front's) or
    /// below it (its back's).
    static func cards(_ deck: String, file: String) throws -> [DrawnCard] {
        let lines = try String(contentsOf: decks.appendingPathComponent("\(deck)/\(file)"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func drawing(_ index: Int) -> String? {
            guard lines.indices.contains(index), lines[index].hasPrefix("![["), lines[index].hasSuffix(".drawing]]")
            else { return nil }
            return String(lines[index].dropFirst(3).dropLast(2))
        }
        var cards: [DrawnCard] = []
        for (index, line) in lines.enumerated() {
            guard let split = line.range(of: "::"), let caret = line.range(of: " ^", options: .backwards) else {
                continue
            }
            let id = String(line[caret.upperBound...])
            if let above = drawing(index - 1) {
                cards.append(DrawnCard(id: id, text: String(line[..<split.lowerBound]), drawing: above))
            } else {
                cards.append(
                    DrawnCard(
                        id: id, text: String(line[split.upperBound..<caret.lowerBound]), drawing: drawing(index + 1)))
            }
        }
        return cards
    }

    /// What a card's words say is shown, longest phrases first: each phrase is taken out of the
    /// text once found, so "two balls" is not also "a ball".
    static let shapePhrases: [(phrase: String, shapes: [Drawing.Shape])] = [
        ("two cones with their points together", [.coneDown, .coneUp]),
        ("two cones, points together", [.coneDown, .coneUp]),
        ("the fishing shape", [.coneDown, .coneUp]),
        ("ball, diamond, ball", [.ball, .diamond, .ball]),
        ("a ball, or anything resembling a ball", [.ball]),
        ("three balls", [.ball, .ball, .ball]),
        ("two balls", [.ball, .ball]),
        ("two diamonds", [.diamond, .diamond]),
        ("one ball", [.ball]),
        ("a ball", [.ball]),
        ("cone point upwards", [.coneUp]),
        ("cone, point upwards", [.coneUp]),
        ("cone point downwards", [.coneDown]),
        ("cone, point downwards", [.coneDown]),
        ("cylinder", [.cylinder]),
        ("diamond", [.diamond]),
        ("code flag a", [.flagA]),
        ("square flag", [.squareFlag]),
    ]

    /// The shapes a text names, counted by kind.
    static func shapes(in text: String) -> [Drawing.Shape: Int] {
        var rest = text.lowercased()
        var counts: [Drawing.Shape: Int] = [:]
        for (phrase, shapes) in shapePhrases {
            while let range = rest.range(of: phrase) {
                for shape in shapes { counts[shape, default: 0] += 1 }
                rest.replaceSubrange(range, with: " | ")
            }
        }
        return counts
    }

    static func drawing(_ deck: String, _ name: String) throws -> Drawing {
        let path = "decks/\(deck)/drawings/\(name)"
        let data = try Data(contentsOf: DefaultContentTests.vault.appendingPathComponent(path))
        let (drawing, diagnostics) = DrawingParser.parse(data, file: path)
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
        return try #require(drawing, "\(path) draws nothing")
    }

    @Test func everyDayShapeCardHasTheSameDrawingInEveryLanguage() throws {
        let english = try Self.cards("day-shapes", file: "_deck.md")
        let russian = try Self.cards("day-shapes", file: "_deck.ru.md")
        #expect(english.count >= 16)
        #expect(english.filter { $0.drawing == nil }.map(\.id) == [], "cards without a drawing")
        #expect(english.map(\.id) == russian.map(\.id))
        #expect(english.map(\.drawing) == russian.map(\.drawing), "the same drawings in Russian")
    }

    @Test func dayShapeDrawingsShowWhatTheirCardsSay() throws {
        for card in try Self.cards("day-shapes", file: "_deck.md") {
            guard let name = card.drawing else { continue }
            let drawing = try Self.drawing("day-shapes", name)
            #expect(drawing.scene == .day, "\(card.id): a day shape is drawn by day")
            let drawn = Dictionary(drawing.columns.joined().map { ($0, 1) }, uniquingKeysWith: +)
            let said = Self.shapes(in: card.text)
            #expect(!said.isEmpty, "\(card.id): the phrase table names no shape in '\(card.text)'")
            #expect(drawn == said, "\(card.id): '\(card.text)' says \(said), \(name) draws \(drawn)")
            let text = card.text.lowercased()
            if text.contains("points together") || text.contains("fishing shape") {
                #expect(
                    drawing.columns.contains { column in
                        column.indices.dropLast().contains { column[$0] == .coneDown && column[$0 + 1] == .coneUp }
                    }, "\(card.id): two cones with their points together, one above the other")
            }
            if text.contains("vertical line") && !text.contains("on the other") {
                #expect(drawing.columns.count { !$0.isEmpty } == 1, "\(card.id): one above the other")
            }
            if text.contains("beside") || text.contains("on one side") {
                #expect(drawing.columns.count { !$0.isEmpty } > 1, "\(card.id): side by side")
            }
        }
    }

    /// What a card's words say is lit, longest phrases first, as ``shapePhrases``.
    static let lightPhrases: [(phrase: String, lights: [Drawing.Light])] = [
        ("no masthead light", []),
        ("two masthead lights", [.masthead, .masthead]),
        ("masthead light", [.masthead]),
        ("power-driven vessel lights", [.masthead, .sidelights, .sternlight]),
        ("sidelights", [.sidelights]),
        ("sternlight", [.sternlight]),
        ("towing light", [.towing]),
        ("combined lantern", [.tricolour]),
        ("red, white, red", [.red, .white, .red]),
        ("red over green", [.red, .green]),
        ("green over white", [.green, .white]),
        ("red over white", [.red, .white]),
        ("white over red", [.white, .red]),
        ("three all-round red lights", [.red, .red, .red]),
        ("two all-round red lights", [.red, .red]),
        ("anchor lights", [.white, .white]),
        ("all-round flashing yellow light", [.flashingYellow]),
        ("all-round white light", [.white]),
        ("an all-round light", [.white]),
        ("white light", [.white]),
    ]

    /// The lights a text names, counted by kind; a side's text up to its first rule citation.
    static func lights(in text: String) -> [Drawing.Light: Int] {
        var rest = String(text.lowercased().prefix { $0 != "(" })
        var counts: [Drawing.Light: Int] = [:]
        for (phrase, lights) in lightPhrases {
            while let range = rest.range(of: phrase) {
                for light in lights { counts[light, default: 0] += 1 }
                rest.replaceSubrange(range, with: " | ")
            }
        }
        return counts
    }

    @Test func everyNavigationLightCardHasTheSameDrawingInEveryLanguage() throws {
        let english = try Self.cards("navigation-lights", file: "_deck.md")
        let russian = try Self.cards("navigation-lights", file: "_deck.ru.md")
        #expect(english.count >= 24)
        #expect(english.filter { $0.drawing == nil }.map(\.id) == [], "cards without a drawing")
        #expect(english.map(\.id) == russian.map(\.id))
        #expect(english.map(\.drawing) == russian.map(\.drawing), "the same drawings in Russian")
    }

    @Test func navigationLightDrawingsShowWhatTheirCardsSay() throws {
        for card in try Self.cards("navigation-lights", file: "_deck.md") {
            guard let name = card.drawing else { continue }
            let drawing = try Self.drawing("navigation-lights", name)
            #expect(drawing.scene != .day, "\(card.id): lights are drawn at night or from above")
            let drawn = Dictionary(drawing.lightColumns.joined().map { ($0, 1) }, uniquingKeysWith: +)
            let said = Self.lights(in: card.text)
            #expect(!said.isEmpty, "\(card.id): the phrase table names no light in '\(card.text)'")
            #expect(drawn == said, "\(card.id): '\(card.text)' says \(said), \(name) draws \(drawn)")
            let text = String(card.text.lowercased().prefix { $0 != "(" })
            // "X over Y", "X, Y, Z in a vertical line", "X above Y": one directly above the other.
            let orders: [(String, [Drawing.Light])] = [
                ("red over green", [.red, .green]), ("green over white", [.green, .white]),
                ("red over white", [.red, .white]), ("white over red", [.white, .red]),
                ("red, white, red", [.red, .white, .red]),
                ("towing light above the sternlight", [.towing, .sternlight]),
                ("masthead light abaft and higher", [.masthead, .masthead]),
            ]
            for (phrase, order) in orders where text.contains(phrase) {
                #expect(
                    drawing.lightRows.indices.contains { top in
                        (0..<(drawing.lightRows[top].count)).contains { column in
                            order.indices.allSatisfy { step in
                                let row = top + step
                                return row < drawing.lightRows.count && column < drawing.lightRows[row].count
                                    && drawing.lightRows[row][column] == order[step]
                            }
                        }
                    } || phrase.hasPrefix("masthead"), "\(card.id): \(phrase), one above the other")
            }
            for view in Drawing.View.allCases where text.contains("seen from \(view.rawValue)") {
                #expect(drawing.views.contains(view), "\(card.id): seen from \(view.rawValue)")
            }
            // Whatever the view, some light of the drawing is seen.
            for view in drawing.views {
                #expect(
                    drawing.lightRows.joined().contains { $0.map { !$0.colours(from: view).isEmpty } ?? false },
                    "\(card.id): nothing is seen from \(view.rawValue)")
            }
        }
    }

    /// The sound cards that are drawn: a signal of blasts or of the bell. The rest ask what a
    /// small vessel must sound, or name a fog horn and a gun, which a timeline does not show.
    static let undrawnSounds: Set<String> = ["fog-12-to-20", "fog-under-12", "distress-sound"]

    /// The signal a text names, in order, read word by word: a number and `short`, `prolonged`
    /// or `(separate) strokes` gives that many; a bare `short` or `prolonged` one; "rapid
    /// ringing" or "rung rapidly" the bell. A side's text up to its first rule citation.
    static func signal(in text: String) -> [Drawing.Sound] {
        let numbers = ["a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5]
        let words = text.lowercased().prefix { $0 != "(" }.split { !$0.isLetter && $0 != "-" }.map(String.init)
        var signal: [Drawing.Sound] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            var count = 1
            var next = index
            if let number = numbers[word], index + 1 < words.count {
                count = number
                next = index + 1
                if words[next] == "separate", next + 1 < words.count { next += 1 }
            }
            // "At least five short and rapid blasts": five short.
            switch words[next] {
            case "short": signal += Array(repeating: .short, count: count)
            case "prolonged": signal += Array(repeating: .prolonged, count: count)
            case "strokes", "stroke": signal += Array(repeating: .stroke, count: count)
            case "ringing" where word == "rapid" || (index > 0 && words[index - 1] == "rapid"): signal.append(.bell)
            case "rung" where next + 1 < words.count && words[next + 1] == "rapidly": signal.append(.bell)
            default:
                index += 1
                continue
            }
            index = next + 1
        }
        return signal
    }

    @Test func everySoundSignalCardHasTheSameDrawingInEveryLanguage() throws {
        let english = try Self.cards("sound-signals", file: "_deck.md")
        let russian = try Self.cards("sound-signals", file: "_deck.ru.md")
        #expect(english.count >= 23)
        #expect(
            english.filter { ($0.drawing == nil) != Self.undrawnSounds.contains($0.id) }.map(\.id) == [],
            "cards with a drawing where there is none to make, or without one")
        #expect(english.map(\.id) == russian.map(\.id))
        #expect(english.map(\.drawing) == russian.map(\.drawing), "the same drawings in Russian")
    }

    @Test func soundDrawingsSoundWhatTheirCardsSay() throws {
        for card in try Self.cards("sound-signals", file: "_deck.md") {
            guard let name = card.drawing else { continue }
            let drawing = try Self.drawing("sound-signals", name)
            #expect(drawing.scene == .sound, "\(card.id): a sound signal is drawn as sounds")
            let said = Self.signal(in: card.text)
            #expect(!said.isEmpty, "\(card.id): no signal read in '\(card.text)'")
            #expect(
                drawing.soundRows == [said],
                "\(card.id): '\(card.text)' says \(said), \(name) sounds \(drawing.soundRows)")
        }
    }
}
