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
    var comingSoon: String
    var items: @Sendable (Int) -> String
    var cards: @Sendable (Int) -> String
    var sections: @Sendable (Int) -> String

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
