import LockerKit

extension ContentKind {
    /// A page of the site, such as an app's landing page: rendered to HTML, never carried in bundles.
    static let page = ContentKind(rawValue: "page")
    /// Every kind a note can be: the bundle's kinds, and site pages.
    static let authored: [ContentKind] = known + [.page]
}

/// A landing page, read from the frontmatter of a `kind: page` note.
///
/// Every section but the hero is optional; the site template shows the ones a page has, in a
/// fixed order: hero, problem, features, audiences, how it works, the note's body, pricing, FAQ,
/// call to action.
struct LandingPage: Sendable, Hashable, Encodable {
    var id: String
    var locale: String
    var order: Int?
    /// The `<title>` and Open Graph title.
    var title: String
    /// The meta description.
    var description: String?
    /// The note's path inside the vault.
    var source: String
    var app: App
    var hero: Hero
    var problem: Prose?
    var features: Grid?
    var audiences: Grid?
    var howItWorks: Steps?
    var faq: FAQ?
    var pricing: Pricing?
    var callToAction: CallToAction?
    /// The vault path of the page's Open Graph image, if it names one.
    var image: String?
    /// The note's body, rendered between "how it works" and the pricing.
    var blocks: [Block]
    var sections: [Section]
    /// The counts its texts show (``PageCount``), filled in once the content is built; not part
    /// of what the page is made from, which holds the numbers.
    var counts: [PageCount] = []

    private enum CodingKeys: String, CodingKey {
        case id, locale, order, title, description, source, app, hero, problem, features, audiences, howItWorks, faq,
            pricing, callToAction, image, blocks, sections
    }

    /// The page with each of its texts passed through `fill`: the counts written as numbers.
    func filled(_ fill: (String) -> String) -> LandingPage {
        func grid(_ grid: Grid?) -> Grid? {
            grid.map { Grid(title: fill($0.title), items: $0.items.map(item)) }
        }
        func item(_ item: Grid.Item) -> Grid.Item {
            Grid.Item(title: fill(item.title), body: item.body.map(fill), link: item.link)
        }
        var page = self
        page.title = fill(title)
        page.description = description.map(fill)
        page.app.name = fill(app.name)
        page.app.tagline = app.tagline.map(fill)
        page.app.comingSoon = app.comingSoon.map(fill)
        page.hero = Hero(
            headlines: hero.headlines.map(fill), subheadline: hero.subheadline.map(fill), cta: hero.cta.map(fill))
        page.problem = problem.map { Prose(title: fill($0.title), paragraphs: $0.paragraphs.map(fill)) }
        page.features = grid(features)
        page.audiences = grid(audiences)
        page.howItWorks = howItWorks.map { Steps(title: fill($0.title), steps: $0.steps.map(item)) }
        page.faq = faq.map { faq in
            FAQ(
                title: fill(faq.title),
                items: faq.items.map { FAQ.Entry(question: fill($0.question), answer: fill($0.answer)) })
        }
        page.pricing = pricing.map { pricing in
            Pricing(
                title: fill(pricing.title), note: pricing.note.map(fill),
                plans: pricing.plans.map {
                    Pricing.Plan(
                        name: fill($0.name), price: fill($0.price), summary: $0.summary.map(fill),
                        features: $0.features.map(fill))
                })
        }
        page.callToAction = callToAction.map {
            CallToAction(title: fill($0.title), body: $0.body.map(fill), label: $0.label.map(fill))
        }
        return page
    }

    /// The app a page sells.
    struct App: Sendable, Hashable, Encodable {
        var name: String
        var tagline: String?
        /// The App Store ID (digits); the call-to-action buttons link to the App Store when given.
        var appStoreID: String?
        /// What the buttons say while there is no App Store ID.
        var comingSoon: String?

        /// The App Store page, when the app has an ID.
        var storeURL: String? { appStoreID.map { "https://apps.apple.com/app/id\($0)" } }
    }

    /// The top of the page. Each headline is a variant of the page (A/B testing): the first is the
    /// page itself, the others are served from `b/`, `c/`, … below it.
    struct Hero: Sendable, Hashable, Encodable {
        var headlines: [String]
        var subheadline: String?
        var cta: String?
    }

    /// A titled run of paragraphs.
    struct Prose: Sendable, Hashable, Encodable {
        var title: String
        var paragraphs: [String]
    }

    /// A titled grid of cards, each optionally linking to a document of the vault.
    struct Grid: Sendable, Hashable, Encodable {
        var title: String
        var items: [Item]

        struct Item: Sendable, Hashable, Encodable {
            var title: String
            var body: String?
            var link: LinkTarget?
        }
    }

    /// Numbered steps.
    struct Steps: Sendable, Hashable, Encodable {
        var title: String
        var steps: [Grid.Item]
    }

    /// Questions and answers.
    struct FAQ: Sendable, Hashable, Encodable {
        var title: String
        var items: [Entry]

        struct Entry: Sendable, Hashable, Encodable {
            var question: String
            var answer: String
        }
    }

    /// Prices, one card per plan.
    struct Pricing: Sendable, Hashable, Encodable {
        var title: String
        var note: String?
        var plans: [Plan]

        struct Plan: Sendable, Hashable, Encodable {
            var name: String
            var price: String
            var summary: String?
            var features: [String]
        }
    }

    /// The closing call to action.
    struct CallToAction: Sendable, Hashable, Encodable {
        var title: String
        var body: String?
        var label: String?
    }
}
