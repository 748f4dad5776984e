/// What a drawing shows, in words: its SVG title and its alt text, in the card's language
/// (English or Russian; English for a language it has no words for).
extension Drawing {
    /// The caption in `locale`'s language.
    func caption(locale: String) -> String {
        let russian = locale.lowercased().hasPrefix("ru")
        switch scene {
        case .day: break
        case .night: return nightCaption(russian: russian)
        case .plan: return planCaption(russian: russian)
        case .sound: return soundCaption(russian: russian)
        }
        let words = russian ? Words.russian : Words.english
        let phrases = columns.filter { !$0.isEmpty }.map { words.column($0) }
        guard phrases.count > 1 else { return Self.capitalized(phrases.first ?? "") }
        return words.sideBySide + phrases.joined(separator: "; ")
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }

    /// A language's names of shapes and the phrases that join them.
    private struct Words: Sendable {
        /// One shape alone, as the first words of a caption.
        var one: [Shape: String]
        /// A shape in a list (`ball, diamond, ball`).
        var named: [Shape: String]
        /// Several shapes of one kind: the count and the plural for that count.
        var several: @Sendable (Int, Shape) -> String
        var pointsTogether: String
        var basesTogether: String
        var aboveEachOther: String
        var sideBySide: String

        func column(_ shapes: [Shape]) -> String {
            if shapes.count == 1, let shape = shapes.first { return one[shape] ?? shape.rawValue }
            if shapes == [.coneDown, .coneUp] { return pointsTogether }
            if shapes == [.coneUp, .coneDown] { return basesTogether }
            if let first = shapes.first, shapes.allSatisfy({ $0 == first }) {
                return several(shapes.count, first) + aboveEachOther
            }
            return shapes.map { named[$0] ?? $0.rawValue }.joined(separator: ", ") + aboveEachOther
        }

        static let english = Words(
            one: [
                .ball: "a ball", .coneUp: "a cone, point upwards", .coneDown: "a cone, point downwards",
                .cylinder: "a cylinder", .diamond: "a diamond", .flagA: "code flag A", .squareFlag: "a square flag",
            ],
            named: [
                .ball: "ball", .coneUp: "cone point upwards", .coneDown: "cone point downwards",
                .cylinder: "cylinder", .diamond: "diamond", .flagA: "code flag A", .squareFlag: "square flag",
            ],
            several: { count, shape in
                let numbers = ["two", "three", "four", "five", "six", "seven", "eight"]
                let number = count - 2 < numbers.count ? numbers[count - 2] : String(count)
                let plural: [Shape: String] = [
                    .ball: "balls", .coneUp: "cones, points upwards", .coneDown: "cones, points downwards",
                    .cylinder: "cylinders", .diamond: "diamonds", .flagA: "code flags A", .squareFlag: "square flags",
                ]
                return number + " " + (plural[shape] ?? shape.rawValue)
            },
            pointsTogether: "two cones, points together, one above the other",
            basesTogether: "two cones, bases together, one above the other",
            aboveEachOther: ", one above the other",
            sideBySide: "Side by side, left to right: ")

        static let russian = Words(
            one: [
                .ball: "шар", .coneUp: "конус вершиной вверх", .coneDown: "конус вершиной вниз",
                .cylinder: "цилиндр", .diamond: "ромб", .flagA: "флаг «A» Международного свода сигналов",
                .squareFlag: "квадратный флаг",
            ],
            named: [
                .ball: "шар", .coneUp: "конус вершиной вверх", .coneDown: "конус вершиной вниз",
                .cylinder: "цилиндр", .diamond: "ромб", .flagA: "флаг «A»", .squareFlag: "квадратный флаг",
            ],
            several: { count, shape in
                let numbers = ["два", "три", "четыре", "пять", "шесть", "семь", "восемь"]
                let number = count - 2 < numbers.count ? numbers[count - 2] : String(count)
                // Два–четыре take the genitive singular, пять and more the genitive plural.
                let few = count < 5
                let noun: String =
                    switch shape {
                    case .ball: few ? "шара" : "шаров"
                    case .coneUp: (few ? "конуса" : "конусов") + " вершинами вверх"
                    case .coneDown: (few ? "конуса" : "конусов") + " вершинами вниз"
                    case .cylinder: few ? "цилиндра" : "цилиндров"
                    case .diamond: few ? "ромба" : "ромбов"
                    case .flagA: (few ? "флага" : "флагов") + " «A»"
                    case .squareFlag: few ? "квадратных флага" : "квадратных флагов"
                    }
                return number + " " + noun
            },
            pointsTogether: "два конуса, соединённые вершинами, один над другим",
            basesTogether: "два конуса, соединённые основаниями, один над другим",
            aboveEachOther: ", один над другим",
            sideBySide: "Рядом, слева направо: ")
    }
}
