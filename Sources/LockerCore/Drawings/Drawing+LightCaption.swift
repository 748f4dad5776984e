/// The captions of night and plan drawings: the lights seen from each view, top to bottom, and
/// the arcs of each light, in English or Russian.
extension Drawing {
    func nightCaption(russian: Bool) -> String {
        views.map { view in
            let seen = lightRows.map { row in
                row.compactMap { $0 }.flatMap { light in
                    light.colours(from: view).map { Self.name(light, $0, russian: russian) }
                }
            }.filter { !$0.isEmpty }.map { $0.joined(separator: ", ") }
            let from = Self.viewName(view, russian: russian)
            if seen.isEmpty { return russian ? "Вид \(from): огней не видно" : "Seen from \(from): no light" }
            return (russian ? "Вид \(from), сверху вниз: " : "Seen from \(from), top to bottom: ")
                + seen.joined(separator: "; ")
        }.joined(separator: ". ")
    }

    func planCaption(russian: Bool) -> String {
        (russian ? "Вид сверху, нос вверх: " : "From above, bow up: ")
            + lightRows.joined().compactMap { $0 }.map { Self.arcName($0, russian: russian) }.joined(separator: "; ")
    }

    private static func viewName(_ view: View, russian: Bool) -> String {
        switch view {
        case .ahead: russian ? "спереди" : "ahead"
        case .starboard: russian ? "с правого борта" : "starboard"
        case .astern: russian ? "с кормы" : "astern"
        case .port: russian ? "с левого борта" : "port"
        }
    }

    private static func colourName(_ colour: Colour, russian: Bool) -> String {
        guard russian else { return colour.rawValue }
        switch colour {
        case .white: return "белый"
        case .red: return "красный"
        case .green: return "зелёный"
        case .yellow: return "жёлтый"
        }
    }

    /// A light as seen showing one colour.
    private static func name(_ light: Light, _ colour: Colour, russian: Bool) -> String {
        let hue = colourName(colour, russian: russian)
        switch light {
        case .masthead: return russian ? "белый топовый огонь" : "white masthead light"
        case .sidelights: return russian ? "\(hue) бортовой огонь" : "\(hue) sidelight"
        case .sternlight: return russian ? "белый кормовой огонь" : "white sternlight"
        case .towing: return russian ? "жёлтый буксировочный огонь" : "yellow towing light"
        case .tricolour: return russian ? "трёхцветный фонарь: \(hue)" : "tricolour showing \(hue)"
        case .white, .red, .green, .yellow: return russian ? "\(hue) круговой огонь" : "all-round \(hue)"
        case .flashingYellow: return russian ? "жёлтый проблесковый круговой огонь" : "all-round flashing yellow"
        }
    }

    /// A light and the arcs it shows over, from above.
    private static func arcName(_ light: Light, russian: Bool) -> String {
        switch light {
        case .masthead: return russian ? "белый топовый огонь, 225° вперёд" : "white masthead light, 225° forward"
        case .sidelights:
            return russian
                ? "зелёный бортовой огонь справа и красный слева, по 112,5°"
                : "green sidelight to starboard and red to port, 112.5° each"
        case .sternlight: return russian ? "белый кормовой огонь, 135° назад" : "white sternlight, 135° aft"
        case .towing: return russian ? "жёлтый буксировочный огонь, 135° назад" : "yellow towing light, 135° aft"
        case .tricolour:
            return russian
                ? "трёхцветный фонарь: зелёный справа, красный слева, белый назад"
                : "tricolour: green to starboard, red to port, white aft"
        case .white, .red, .green, .yellow, .flashingYellow:
            let hue = colourName(light.colours(from: .ahead).first ?? .white, russian: russian)
            let flashing = light == .flashingYellow ? (russian ? " проблесковый" : " flashing") : ""
            return russian ? "\(hue)\(flashing) круговой огонь, 360°" : "all-round\(flashing) \(hue) light, 360°"
        }
    }
}
