import Foundation
import Mustache

/// The words the site's own furniture uses (navigation, counts, the 404 page), per locale.
///
/// English and Russian are built in; any other locale uses English until it is added here.
struct SiteStrings: Sendable {
    var languageName: String
    var guides: String
    var checklists: String
    var decks: String
    var home: String
    var openInApp: String
    var openInAppHint: String
    var languages: String
    var skipToContent: String
    var notFoundTitle: String
    var notFoundBody: String
    var backHome: String
    var onThisSite: String
    var onThisPage: String
    var moreApps: String
    var showAnswer: String
    /// The header's search box: its label, placeholder and the messages Pagefind's UI shows.
    /// `[SEARCH_TERM]` and `[COUNT]` are filled in by the UI. They reach the box through its
    /// script (the `search` template), not the pages.
    var search: Search
    var comingSoon: String
    var items: @Sendable (Int) -> String
    var cards: @Sendable (Int) -> String
    var sections: @Sendable (Int) -> String

    /// The words of the search box.
    struct Search: Sendable {
        var label: String
        var placeholder: String
        var clear: String
        var more: String
        var searching: String
        var none: String
        var one: String
        var many: String

        /// The words by the keys of Pagefind's UI translations (`translations` of `PagefindUI`).
        var translations: [String: String] {
            [
                "search_label": label, "placeholder": placeholder, "clear_search": clear, "load_more": more,
                "searching": searching, "zero_results": none, "one_result": one, "many_results": many,
            ]
        }

        /// The search box's words in each locale, as the `search` template sees them: a JSON
        /// object by locale, each Pagefind's translations, keys sorted.
        static func json(locales: [String]) -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let words = Dictionary(
                locales.map { ($0, SiteStrings.forLocale($0).search.translations) },
                uniquingKeysWith: { first, _ in first })
            return (try? encoder.encode(words)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
    }

    static func forLocale(_ locale: String) -> SiteStrings {
        switch locale.split(separator: "-").first.map(String.init) ?? locale {
        case "ru": russian
        default: english(name: locale == "en" || locale.hasPrefix("en-") ? "English" : locale)
        }
    }

    static func english(name: String) -> SiteStrings {
        SiteStrings(
            languageName: name, guides: "Guides", checklists: "Checklists", decks: "Flashcards", home: "Home",
            openInApp: "Open in the app", openInAppHint: "Opens this page in the app when it is installed.",
            languages: "Language", skipToContent: "Skip to content", notFoundTitle: "Page not found",
            notFoundBody: "There is no page at this address. It may have moved when the content was updated.",
            backHome: "Go to the home page", onThisSite: "On this site", onThisPage: "On this page", moreApps: "Apps",
            showAnswer: "Show the answer",
            search: Search(
                label: "Search this site", placeholder: "Search guides, checklists, cards", clear: "Clear",
                more: "More results", searching: "Searching for “[SEARCH_TERM]”…",
                none: "Nothing found for “[SEARCH_TERM]”", one: "[COUNT] result for “[SEARCH_TERM]”",
                many: "[COUNT] results for “[SEARCH_TERM]”"),
            comingSoon: "Coming soon to the App Store",
            items: { "\($0) item\($0 == 1 ? "" : "s")" }, cards: { "\($0) card\($0 == 1 ? "" : "s")" },
            sections: { "\($0) section\($0 == 1 ? "" : "s")" })
    }

    static let russian = SiteStrings(
        languageName: "Русский", guides: "Руководства", checklists: "Чек-листы", decks: "Карточки", home: "Главная",
        openInApp: "Открыть в приложении", openInAppHint: "Открывает эту страницу в приложении, если оно установлено.",
        languages: "Язык", skipToContent: "К содержимому", notFoundTitle: "Страница не найдена",
        notFoundBody: "По этому адресу страницы нет. Возможно, она переехала при обновлении содержимого.",
        backHome: "На главную", onThisSite: "На сайте", onThisPage: "На этой странице", moreApps: "Приложения",
        showAnswer: "Показать ответ",
        // The counts name no noun: Pagefind's UI has one form for one result and one for the
        // rest, and Russian needs three ("2 результата", "5 результатов").
        search: Search(
            label: "Поиск по сайту", placeholder: "Поиск по руководствам, чек-листам, карточкам", clear: "Очистить",
            more: "Ещё результаты", searching: "Ищем «[SEARCH_TERM]»…",
            none: "По запросу «[SEARCH_TERM]» ничего не найдено", one: "По запросу «[SEARCH_TERM]» найдено: [COUNT]",
            many: "По запросу «[SEARCH_TERM]» найдено: [COUNT]"),
        comingSoon: "Скоро в App Store",
        items: { "\($0) \(russianPlural($0, "пункт", "пункта", "пунктов"))" },
        cards: { "\($0) \(russianPlural($0, "карточка", "карточки", "карточек"))" },
        sections: { "\($0) \(russianPlural($0, "раздел", "раздела", "разделов"))" })

    /// The Russian plural form for a count: 1 пункт, 2 пункта, 5 пунктов, 21 пункт, 11 пунктов.
    static func russianPlural(_ count: Int, _ one: String, _ few: String, _ many: String) -> String {
        let lastTwo = abs(count) % 100
        let last = abs(count) % 10
        if (11...14).contains(lastTwo) { return many }
        if last == 1 { return one }
        if (2...4).contains(last) { return few }
        return many
    }

    /// The heading of a kind's index.
    func title(of kind: String) -> String {
        switch kind {
        case "checklist": checklists
        case "deck": decks
        default: guides
        }
    }

    /// What the templates see as `strings`.
    var values: [String: String] {
        [
            "guides": guides, "checklists": checklists, "decks": decks, "home": home, "openInApp": openInApp,
            "openInAppHint": openInAppHint, "languages": languages, "skipToContent": skipToContent,
            "notFoundTitle": notFoundTitle, "notFoundBody": notFoundBody, "backHome": backHome,
            "onThisSite": onThisSite,
            "onThisPage": onThisPage, "moreApps": moreApps,
            "showAnswer": showAnswer,
        ]
    }
}

/// A locale's ``SiteStrings`` as the templates see them (`{{strings.languages}}`): made once per
/// locale, and known by the locale as a key of ``SiteChrome``, which the words follow from.
final class TemplateStrings: MustacheParent, Sendable {
    let locale: String
    private let values: [String: String]

    private init(locale: String) {
        self.locale = locale
        values = SiteStrings.forLocale(locale).values
    }

    func child(named name: String) -> Any? { values[name] }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: [String: TemplateStrings] = [:]

    /// The strings of `locale`.
    static func of(_ locale: String) -> TemplateStrings {
        lock.lock()
        defer { lock.unlock() }
        if let known = made[locale] { return known }
        let strings = TemplateStrings(locale: locale)
        made[locale] = strings
        return strings
    }
}
