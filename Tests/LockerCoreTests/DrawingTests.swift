import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// `.drawing` descriptions: read with exact positions for their problems, drawn to scale,
/// captioned in the card's language, and carried into bundles like images.
@Suite struct DrawingTests {
    private func parse(_ text: String) -> (Drawing?, [Diagnostic]) {
        DrawingParser.parse(Data(text.utf8), file: "d.drawing")
    }

    @Test func readsRowsTopFirstWithEmptyPlaces() throws {
        let (drawing, diagnostics) = parse("# fishing, gear\nday\ncone-down -\ncone-up   cone-up\n")
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
        let read = try #require(drawing)
        #expect(read.scene == .day)
        #expect(read.rows == [[.coneDown, nil], [.coneUp, .coneUp]])
        #expect(read.columns == [[.coneDown, .coneUp], [.coneUp]])
    }

    @Test func reportsUnknownShapeAtItsColumn() {
        let (_, diagnostics) = parse("day\nball\nball  cone-sideways\n")
        #expect(diagnostics.count == 1, "\(diagnostics.rendered)")
        #expect(diagnostics.first?.code == .drawingUnknownShape)
        #expect(diagnostics.first?.position == SourcePosition(line: 3, column: 7))
        #expect(diagnostics.first?.severity == .error)
        #expect(diagnostics.first?.file == "d.drawing")
    }

    @Test func reportsUnknownSceneAtItsLine() {
        let (drawing, diagnostics) = parse("\n# comment\n  dusk\nball\n")
        #expect(drawing == nil)
        #expect(diagnostics.map(\.code) == [.drawingInvalid])
        #expect(diagnostics.first?.position == SourcePosition(line: 3, column: 3))
    }

    @Test func reportsEmptyAndShapelessDescriptions() {
        #expect(parse("").1.map(\.code) == [.drawingInvalid])
        #expect(parse("# only a comment\n").1.first?.position == .start)
        #expect(parse("day\n- -\n").1.map(\.code) == [.drawingInvalid])
    }

    @Test func boundsHostileDescriptions() {
        let rows = parse("day\n" + String(repeating: "ball\n", count: 20)).1
        #expect(rows.map(\.code) == [.drawingInvalid])
        #expect(rows.first?.position == SourcePosition(line: 10, column: 1))
        let wide = parse("day\n" + String(repeating: "ball ", count: 9) + "\n").1
        #expect(wide.first?.position == SourcePosition(line: 2, column: 41))
        let huge = parse("day\n" + String(repeating: "#", count: 10_000)).1
        #expect(huge.map(\.code) == [.drawingInvalid])
        #expect(
            DrawingParser.parse(Data([0x64, 0x61, 0x79, 0x0A, 0xFF]), file: "d.drawing").1.map(\.code) == [
                .drawingInvalid
            ])
    }

    @Test func drawsShapesToAnnexISizesAndTheSameBytesEachTime() throws {
        let drawing = try #require(parse("day\nball\ndiamond\ncone-up\ncylinder\n").0)
        let svg = DrawingRenderer.svg(drawing, title: "A & B")
        #expect(svg == DrawingRenderer.svg(drawing, title: "A & B"))
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("<title id=\"title\">A &amp; B</title>"))
        // A ball 0.6 m across at 100 units to the metre, then 1.5 m to the diamond, 1.2 m high.
        #expect(svg.contains("<circle cx=\"70\" cy=\"70\" r=\"30\""))
        #expect(svg.contains("<polygon points=\"70,250 100,310 70,370 40,310\""))
        #expect(svg.contains("<polygon points=\"40,580 70,520 100,580\""))
        #expect(svg.contains("<rect x=\"40\" y=\"730\" width=\"60\" height=\"120\""))
        #expect(svg.count < 2000)
    }

    @Test func captionsSayWhatIsDrawnInTheCardsLanguage() throws {
        let cones = try #require(parse("day\ncone-down\ncone-up\n").0)
        #expect(cones.caption(locale: "en") == "Two cones, points together, one above the other")
        #expect(cones.caption(locale: "ru") == "Два конуса, соединённые вершинами, один над другим")
        let dredging = try #require(parse("day\n- ball -\nball diamond diamond\nball ball diamond\n").0)
        #expect(
            dredging.caption(locale: "en")
                == "Side by side, left to right: two balls, one above the other; ball, diamond, ball, one above the other; two diamonds, one above the other"
        )
        #expect(try #require(parse("day\ncylinder\n").0).caption(locale: "de") == "A cylinder")
    }

    @Test func readsANightDrawingWithItsViews() throws {
        let (drawing, diagnostics) = parse("night ahead astern\nmasthead towing\nsidelights sternlight\n")
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
        let read = try #require(drawing)
        #expect(read.views == [.ahead, .astern])
        #expect(read.lightRows == [[.masthead, .towing], [.sidelights, .sternlight]])
        let unknown = parse("night sideways\nlamp\n").1
        #expect(unknown.map(\.code) == [.drawingInvalid, .drawingUnknownShape], "\(unknown.rendered)")
        #expect(unknown.map(\.position) == [SourcePosition(line: 1, column: 7), SourcePosition(line: 2, column: 1)])
        #expect(parse("night\nred\n").1.map(\.code) == [.drawingInvalid])
    }

    @Test func lightsShowTheColoursOfTheirArcsFromEachView() {
        #expect(Drawing.Light.sidelights.colours(from: .ahead) == [.green, .red])
        #expect(Drawing.Light.sidelights.colours(from: .starboard) == [.green])
        #expect(Drawing.Light.sidelights.colours(from: .port) == [.red])
        #expect(Drawing.Light.sidelights.colours(from: .astern) == [])
        #expect(Drawing.Light.masthead.colours(from: .astern) == [])
        #expect(Drawing.Light.sternlight.colours(from: .astern) == [.white])
        #expect(Drawing.Light.sternlight.colours(from: .starboard) == [])
        #expect(Drawing.Light.towing.colours(from: .astern) == [.yellow])
        #expect(Drawing.Light.red.colours(from: .port) == [.red])
        // Rule 21: 225° + 135° round the horizon; the sidelights share the masthead light's arc.
        let masthead = Drawing.Light.masthead.arcs.map { $0.to - $0.from }.reduce(0, +)
        let stern = Drawing.Light.sternlight.arcs.map { $0.to - $0.from }.reduce(0, +)
        #expect(masthead == 225 && stern == 135 && masthead + stern == 360)
        #expect(Drawing.Light.sidelights.arcs.map { $0.to - $0.from } == [112.5, 112.5])
    }

    @Test func drawsOnlyTheLightsSeenFromEachView() throws {
        let drawing = try #require(parse("night starboard astern\nsternlight sidelights\n").0)
        let svg = DrawingRenderer.svg(drawing, title: drawing.caption(locale: "en"))
        #expect(svg.contains(DrawingRenderer.hex(.green)) && !svg.contains(DrawingRenderer.hex(.red)))
        #expect(
            drawing.caption(locale: "en")
                == "Seen from starboard, top to bottom: green sidelight. Seen from astern, top to bottom: white sternlight"
        )
        let fishing = try #require(parse("night ahead\nred\nwhite\n").0)
        #expect(
            fishing.caption(locale: "ru") == "Вид спереди, сверху вниз: красный круговой огонь; белый круговой огонь")
        let plan = try #require(parse("plan\nmasthead\n").0)
        #expect(plan.caption(locale: "en") == "From above, bow up: white masthead light, 225° forward")
        #expect(DrawingRenderer.svg(plan, title: "x").contains("<path d=\"M"))
    }

    @Test func drawsSoundSignalsAsTimelinesAsLongAsTheySound() throws {
        let (drawing, diagnostics) = parse("sound\nprolonged short short\n")
        #expect(diagnostics.isEmpty, "\(diagnostics.rendered)")
        let read = try #require(drawing)
        #expect(read.soundRows == [[.prolonged, .short, .short]])
        #expect(read.caption(locale: "en") == "One prolonged blast, two short blasts")
        #expect(read.caption(locale: "ru") == "Один продолжительный гудок, два коротких гудка")
        let svg = DrawingRenderer.svg(read, title: "x")
        // Five seconds, then a second's pause, then one second, at 40 units to the second.
        #expect(svg.contains("<rect x=\"40\" y=\"40\" width=\"200\""))
        #expect(svg.contains("<rect x=\"280\" y=\"40\" width=\"40\""))
        let bell = try #require(parse("sound\nstroke stroke stroke bell stroke stroke stroke\n").0)
        #expect(
            bell.caption(locale: "en")
                == "Three strokes on the bell, rapid ringing of the bell, three strokes on the bell")
        let unknown = parse("sound\nshort hoot\n").1
        #expect(unknown.map(\.code) == [.drawingUnknownShape])
        #expect(unknown.first?.position == SourcePosition(line: 2, column: 7))
    }

    @Test func deckCardsCarryTheDrawingAsAnImageOnEitherSide() throws {
        let vault = try TestVault(
            [
                "Signals/_deck.md":
                    "---\ntype: deck\nlang: en\n---\n![[cones.drawing]]\nTwo cones::Fishing ^cones\nAt anchor?::A ball ^anchor\n![[ball.drawing]]\n",
                "Signals/_deck.ru.md":
                    "---\ntype: deck\nlang: ru\n---\n![[cones.drawing]]\nДва конуса::Лов рыбы ^cones\nНа якоре?::Шар ^anchor\n![[ball.drawing]]\n",
                "drawings/cones.drawing": "day\ncone-down\ncone-up\n",
                "drawings/ball.drawing": "day\nball\n",
            ], config: "locales: [en, ru]\n")
        defer { vault.remove() }
        let compilation = try vault.compile(strict: true)
        #expect(compilation.diagnostics.isEmpty, "\(compilation.diagnostics.rendered)")
        let files = Dictionary(uniqueKeysWithValues: compilation.files.map { ($0.path, $0.data) })
        for deck in compilation.decks {
            let cones = try #require(deck.cards.first { $0.id == "cones" })
            guard case .image(let image)? = cones.front.first?.content else {
                Issue.record("\(deck.locale): no drawing above the front: \(cones.front)")
                continue
            }
            #expect(cones.frontText == (deck.locale == "en" ? "Two cones" : "Два конуса"))
            #expect(image.src.hasPrefix("assets/") && image.src.hasSuffix(".svg"))
            let svg = try #require(files["bundles/v1/" + image.src]).utf8String
            #expect(svg.contains("<title id=\"title\">\(image.alt)</title>"))
            #expect(
                image.alt
                    == (deck.locale == "en"
                        ? "Two cones, points together, one above the other"
                        : "Два конуса, соединённые вершинами, один над другим"))
            let anchor = try #require(deck.cards.first { $0.id == "anchor" })
            guard case .image? = anchor.back.last?.content, anchor.back.count == 2 else {
                Issue.record("\(deck.locale): no drawing below the back: \(anchor.back)")
                continue
            }
        }
        #expect(compilation.files.contains { $0.path.hasPrefix("site/assets/") && $0.path.hasSuffix(".svg") })
    }

    @Test func anImageSharingItsLineWithACardIsThatCardsSideNotADrawingOfTheCardAbove() throws {
        let vault = try TestVault([
            "Signals/_deck.md": "---\ntype: deck\n---\nAlpha::Diver down ^a\n![[b.drawing]]::Ball ^b\n",
            "b.drawing": "day\nball\n",
        ])
        defer { vault.remove() }
        let compilation = try vault.compile()
        #expect(compilation.diagnostics.isEmpty, "\(compilation.diagnostics.rendered)")
        let deck = try #require(compilation.decks.first)
        #expect(deck.cards.map(\.id) == ["a", "b"])
        #expect(deck.cards.first?.back.count == 1)
        guard case .image? = deck.cards.last?.front.first?.content else {
            Issue.record("the image is not card b's front: \(deck.cards)")
            return
        }
    }

    @Test func reportsADescriptionsProblemsOnceWhereverItIsEmbedded() throws {
        let vault = try TestVault(
            [
                "Signals/_deck.md": "---\ntype: deck\nlang: en\n---\n![[bad.drawing]]\nBad::Shape ^bad\n",
                "Signals/_deck.ru.md": "---\ntype: deck\nlang: ru\n---\n![[bad.drawing]]\nПлохо::Знак ^bad\n",
                "bad.drawing": "day\nball\nsphere\n",
            ], config: "locales: [en, ru]\n")
        defer { vault.remove() }
        let diagnostics = try vault.diagnostics()
        #expect(diagnostics.map(\.code) == [.drawingUnknownShape], "\(diagnostics.rendered)")
        #expect(diagnostics.first?.file == "bad.drawing")
        #expect(diagnostics.first?.position == SourcePosition(line: 3, column: 1))
    }
}

extension Data {
    fileprivate var utf8String: String { String(decoding: self, as: UTF8.self) }
}
