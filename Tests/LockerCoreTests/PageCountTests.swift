import LockerKit
import Testing

@testable import LockerCore

/// Counts in landing pages' texts: how they are read, and the number and word forms they become.
@Suite struct PageCountTests {
    static let counts: ContentCounts = {
        var counts = ContentCounts(
            guideIDs: [], checklists: [], decks: [], locale: "ru",
            preference: .init(locales: ["ru"], defaultLocale: "ru"))
        counts.guides = 10
        counts.items = ["check-in": 102, "daily": 21]
        counts.cards = ["knots": 5]
        counts.checklists = 2
        counts.decks = 1
        return counts
    }()

    @Test func countsAreReadWithTheirIDsAndWhatCountsNothingIsAProblem() {
        let (counts, problems) = PageCount.scan(
            "A {{items check-in}}-item check-in, {{ cards }} cards, {{guides x}}, {{pages}}, {{ }} and {{a {b}}.",
            at: .start)
        #expect(counts.map(\.counter) == [.items, .cards])
        #expect(counts.map(\.id) == ["check-in", nil])
        #expect(
            problems == [
                "'{{guides x}}': guides are counted whole, by no ID",
                "'{{pages}}' counts nothing: write one of guides, checklists, decks, items, cards",
            ])
    }

    @Test func numbersAndWordFormsAreFilledIn() {
        var counts = Self.counts
        #expect(counts.filling("a {{items check-in}}-item check-in") == "a 102-item check-in")
        #expect(
            counts.filling("{{items}} items, {{cards}}, {{guides}}, {{checklists}}, {{decks}}")
                == "123 items, 5, 10, 2, 1")
        #expect(counts.filling("из {{items check-in | пункта | пунктов | пунктов}}") == "из 102 пунктов")
        #expect(counts.filling("{{items daily | пункт | пункта | пунктов}}") == "21 пункт")
        #expect(counts.filling("{{items check-in | пункт | пункта | пунктов}}") == "102 пункта")
        #expect(counts.filling("{{cards knots|карточка|карточки|карточек}}") == "5 карточек")
        // What cannot be worked out is left as written, for the diagnostic to name.
        #expect(counts.filling("{{items nowhere}} and {{pages}}") == "{{items nowhere}} and {{pages}}")
        counts.locale = "en"
        #expect(counts.filling("{{items daily | item | items}}, {{cards knots | card | cards}}") == "21 items, 5 cards")
        counts.items["one"] = 1
        #expect(counts.filling("{{items one | item | items}}") == "1 item")
    }

    @Test(arguments: [
        (1, "one"), (2, "few"), (4, "few"), (5, "many"), (11, "many"), (12, "many"), (14, "many"), (21, "one"),
        (22, "few"), (101, "one"), (111, "many"), (112, "many"), (0, "many"),
    ])
    func russianFormsFollowUnicodesPluralRules(_ number: Int, _ form: String) {
        #expect(PageCount.form(["one", "few", "many"], for: number, locale: "ru") == form)
    }
}
