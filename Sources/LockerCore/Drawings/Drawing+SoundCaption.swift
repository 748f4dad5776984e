/// The caption of a sound drawing: each signal's parts in order, repeats counted, in English or
/// Russian.
extension Drawing {
    func soundCaption(russian: Bool) -> String {
        let signals = soundRows.filter { !$0.isEmpty }.map { row in
            var runs: [(sound: Sound, count: Int)] = []
            for sound in row {
                if let last = runs.last, last.sound == sound, sound != .bell {
                    runs[runs.count - 1].count += 1
                } else {
                    runs.append((sound, 1))
                }
            }
            return runs.map { Self.soundName($0.sound, count: $0.count, russian: russian) }.joined(separator: ", ")
        }
        let text = signals.joined(separator: "; ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    private static func soundName(_ sound: Sound, count: Int, russian: Bool) -> String {
        if sound == .bell { return russian ? "частый звон колокола" : "rapid ringing of the bell" }
        if russian {
            let numbers = ["один", "два", "три", "четыре", "пять", "шесть", "семь", "восемь"]
            let number = count - 1 < numbers.count ? numbers[count - 1] : String(count)
            // Один takes the nominative, два–четыре the genitive singular, пять and more the plural.
            let form = count == 1 ? 0 : count < 5 ? 1 : 2
            let nouns: [String] =
                switch sound {
                case .short: ["короткий гудок", "коротких гудка", "коротких гудков"]
                case .prolonged: ["продолжительный гудок", "продолжительных гудка", "продолжительных гудков"]
                case .stroke, .bell: ["удар в колокол", "удара в колокол", "ударов в колокол"]
                }
            return number + " " + nouns[form]
        }
        let numbers = ["one", "two", "three", "four", "five", "six", "seven", "eight"]
        let number = count - 1 < numbers.count ? numbers[count - 1] : String(count)
        let plural = count == 1 ? "" : "s"
        switch sound {
        case .short: return "\(number) short blast\(plural)"
        case .prolonged: return "\(number) prolonged blast\(plural)"
        case .stroke, .bell: return "\(number) stroke\(plural) on the bell"
        }
    }
}
