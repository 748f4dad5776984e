import Foundation
import LockerKit

/// A number a landing page shows from the built content, written in a text value as
/// `{{items check-in}}`, `{{cards sound-signals}}`, `{{guides}}`: "a {{items check-in}}-item
/// check-in" cannot drift from the checklist as a number typed in would. Forms of a word after
/// `|` are chosen by the number, as the page's language says: `{{items check-in | item | items}}`,
/// `{{items check-in | пункт | пункта | пунктов}}`.
struct PageCount: Sendable, Hashable {
    /// What is counted.
    enum Counter: String, Sendable, CaseIterable {
        /// Guides, checklists or decks of the site: one each, however many languages it has.
        case guides, checklists, decks
        /// The items of the checklist named, or of every checklist.
        case items
        /// The cards of the deck named (reverse cards included, as the deck's `cardCount`), or
        /// of every deck.
        case cards
    }

    var counter: Counter
    /// The checklist's or deck's ID, for `items` and `cards`; nil counts them all.
    var id: String?
    /// The text value it is written in.
    var position: SourcePosition

    /// Every count written in `text`, and what is wrong with the others: `{{…}}` naming no
    /// counter, or an ID after a counter that takes none.
    static func scan(_ text: String, at position: SourcePosition) -> (counts: [PageCount], problems: [String]) {
        var counts: [PageCount] = []
        var problems: [String] = []
        for (words, _) in placeholders(in: text) {
            guard let counter = Counter(rawValue: words[0]), words.count <= 2 else {
                let known = Counter.allCases.map(\.rawValue).joined(separator: ", ")
                problems.append("'{{\(words.joined(separator: " "))}}' counts nothing: write one of \(known)")
                continue
            }
            if words.count == 2, counter != .items, counter != .cards {
                problems.append(
                    "'{{\(words.joined(separator: " "))}}': \(counter.rawValue) are counted whole, by no ID")
                continue
            }
            counts.append(PageCount(counter: counter, id: words.count == 2 ? words[1] : nil, position: position))
        }
        return (counts, problems)
    }

    /// The words of each `{{…}}` of `text` before any `|`, and the word forms after, in order.
    /// Braces inside do not open one.
    static func placeholders(in text: String) -> [(words: [String], forms: [String])] {
        parts(of: text).compactMap { part in
            guard case .count(let words, let forms, _) = part else { return nil }
            return (words, forms)
        }
    }

    /// A text cut into what is written as it is and the `{{…}}` in it.
    enum Part {
        case text(Substring)
        case count(words: [String], forms: [String], written: Substring)
    }

    static func parts(of text: String) -> [Part] {
        var parts: [Part] = []
        var rest = text[...]
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            let inner = rest[open.upperBound..<close.lowerBound]
            let pieces = inner.split(separator: "|", omittingEmptySubsequences: false)
            let words = pieces[0].split(whereSeparator: \.isWhitespace).map(String.init)
            parts.append(.text(rest[..<open.lowerBound]))
            if inner.contains("{") || words.isEmpty {
                parts.append(.text(rest[open.lowerBound..<close.upperBound]))
            } else {
                let forms = pieces.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
                parts.append(.count(words: words, forms: forms, written: rest[open.lowerBound..<close.upperBound]))
            }
            rest = rest[close.upperBound...]
        }
        parts.append(.text(rest))
        return parts
    }

    /// The form of a word for `number` in `locale`, from the forms written (Unicode CLDR's
    /// plural categories: Russian and Ukrainian one, few, many; other languages one, other).
    static func form(_ forms: [String], for number: Int, locale: String) -> String? {
        guard let last = forms.last else { return nil }
        let language = locale.split(separator: "-").first.map(String.init) ?? locale
        if ["ru", "uk", "be"].contains(language), forms.count == 3 {
            let units = number % 10
            let tens = number % 100
            if units == 1 && tens != 11 { return forms[0] }
            if (2...4).contains(units) && !(12...14).contains(tens) { return forms[1] }
            return forms[2]
        }
        return number == 1 ? forms[0] : last
    }
}

/// The counts of the built content in one language of the site, which fill in a landing page's
/// ``PageCount``s.
struct ContentCounts: Sendable {
    var guides = 0
    var checklists = 0
    var decks = 0
    /// Each checklist's items, by its ID.
    var items: [String: Int] = [:]
    /// Each deck's cards, by its ID.
    var cards: [String: Int] = [:]

    /// The page's language, which chooses the forms of words.
    var locale: String

    /// The counts in `locale`: each checklist and deck in its version for that language (else
    /// the one the site shows in its place), every guide however many languages it has.
    init(guideIDs: Set<String>, checklists: [Checklist], decks: [Deck], locale: String, preference: LocalePreference) {
        self.locale = locale
        guides = guideIDs.count
        for versions in Dictionary(grouping: checklists, by: \.id).values {
            guard let checklist = preference.preferred(versions, in: locale, localeOf: \.locale) else { continue }
            items[checklist.id] = checklist.itemCount
        }
        for versions in Dictionary(grouping: decks, by: \.id).values {
            guard let deck = preference.preferred(versions, in: locale, localeOf: \.locale) else { continue }
            cards[deck.id] = deck.cardCount
        }
        self.checklists = items.count
        self.decks = cards.count
    }

    /// The number `count` stands for; nil when it names a checklist or deck there is none of.
    func value(of count: PageCount) -> Int? {
        switch count.counter {
        case .guides: guides
        case .checklists: checklists
        case .decks: decks
        case .items: count.id.map { items[$0] } ?? items.values.reduce(0, +)
        case .cards: count.id.map { cards[$0] } ?? cards.values.reduce(0, +)
        }
    }

    /// `text` with each count that can be worked out written as its number, followed by the
    /// form of the word it names, if any.
    func filling(_ text: String) -> String {
        guard text.contains("{{") else { return text }
        var result = ""
        for part in PageCount.parts(of: text) {
            switch part {
            case .text(let text): result += text
            case .count(let words, let forms, let written):
                guard let counter = PageCount.Counter(rawValue: words[0]), words.count <= 2,
                    let number = value(of: PageCount(counter: counter, id: words.dropFirst().first, position: .start))
                else {
                    result += written
                    continue
                }
                result += String(number)
                if let form = PageCount.form(forms, for: number, locale: locale) { result += " " + form }
            }
        }
        return result
    }
}
