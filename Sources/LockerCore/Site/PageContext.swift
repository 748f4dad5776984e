import Foundation
import LockerKit

/// Builds what each template sees, and renders it. Objects are `[String: Any]` and lists
/// `[[String: Any]]`, `[Any]` or `[String]` (``TemplateValue``): the chrome and the skeletons
/// read them without casts, and a value of another type renders its page without a skeleton.
///
/// The values are plain strings, escaped by Mustache's `{{…}}`; the only HTML passed through
/// `{{{…}}}` comes from ``HTMLRenderer``.
struct PageContext {
    var builder: SiteBuilder
    /// The site icon, relative to the site root.
    var iconPath: String
    /// The style sheet, relative to the site root.
    var stylePath: String
    /// The search box's script, relative to the site root.
    var scriptPath: String
    /// The pages of one shape, rendered from one render of their template.
    let skeletons: PageSkeletons
    /// The header and footer, rendered once for each set of values they show; nil when pages
    /// come from skeletons, which hold the header and footer too.
    let chrome: SiteChrome?

    init(builder: SiteBuilder, iconPath: String, stylePath: String, scriptPath: String) {
        self.builder = builder
        self.iconPath = iconPath
        self.stylePath = stylePath
        self.scriptPath = scriptPath
        skeletons = PageSkeletons(
            sources: builder.templates.sources, enabled: builder.pageSkeletons, clock: builder.templateClock)
        chrome = skeletons.enabled ? nil : SiteChrome(templates: builder.templates)
    }

    private var config: VaultConfig { builder.config }

    private func strings(_ locale: String) -> SiteStrings { SiteStrings.forLocale(locale) }

    /// An optional value for a template: `false` when absent, so a section tag never falls back
    /// to a key of the same name further out in the context.
    private func present(_ value: String?) -> Any { value ?? false }

    private func renderer(from route: SiteBuilder.Route, link: @escaping (LinkTarget) -> String?) -> HTMLRenderer {
        HTMLRenderer(
            href: { target in link(target).map { Self.relativeWithAnchor(from: route.path, to: $0) } },
            assetHref: { SiteBuilder.relative(from: route.path, to: $0) })
    }

    /// A relative URL to `path#anchor`.
    static func relativeWithAnchor(from: String, to target: String) -> String {
        guard let hash = target.utf8.firstIndex(of: UInt8(ascii: "#")) else {
            return SiteBuilder.relative(from: from, to: target)
        }
        let fragment = Substring(target.utf8[target.utf8.index(after: hash)...])
        return SiteBuilder.relative(from: from, to: String(target[..<hash])) + "#" + encodedFragment(fragment)
    }

    /// Which ASCII bytes a URL fragment holds unescaped: RFC 3986's fragment characters
    /// (`CharacterSet.urlFragmentAllowed`) less `^`, which starts block anchors (`#^summary`).
    private static let fragmentBytes: [Bool] = {
        var allowed = [Bool](repeating: false, count: 128)
        for byte in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?".utf8 {
            allowed[Int(byte)] = true
        }
        return allowed
    }()

    private static func isFragmentByte(_ byte: UInt8) -> Bool { byte < 0x80 && fragmentBytes[Int(byte)] }

    /// Percent-encoding's digits, upper case as Foundation writes them.
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// A fragment with every byte outside ``fragmentBytes`` percent-encoded (`%5E`, `%D0%AF`), as
    /// `addingPercentEncoding(withAllowedCharacters:)` encodes it, without Foundation's round trip
    /// through `NSString` for every link on every page.
    static func encodedFragment(_ fragment: Substring) -> String {
        let bytes = fragment.utf8
        if bytes.allSatisfy(isFragmentByte) { return String(fragment) }
        var encoded: [UInt8] = []
        encoded.reserveCapacity(bytes.count * 3)
        for byte in bytes {
            if isFragmentByte(byte) {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// What every page has: `<head>` values, navigation and the language switch.
    private func common(
        route: SiteBuilder.Route, title: String, description: String?, canonical: String, alternates: [String: String],
        image: String?, type: String = "website", current: ContentKind? = nil
    ) -> [String: Any] {
        let words = strings(route.locale)
        let here = { (path: String) in SiteBuilder.relative(from: route.path, to: path) }
        let siteTitle = config.title ?? "Locker"
        var context: [String: Any] = [
            "lang": route.locale,
            "title": title == siteTitle ? title : "\(title) · \(siteTitle)",
            "pageTitle": title,
            "siteTitle": siteTitle,
            "homeHref": here(route.locale == config.defaultLocale ? "" : route.locale + "/"),
            "icon": here(iconPath),
            "stylesheet": here(stylePath),
            "searchScript": here(scriptPath),
            "ogType": type,
            "ogLocale": route.locale.replacingOccurrences(of: "-", with: "_"),
            "strings": TemplateStrings.of(route.locale),
            "skipHref": "#main",
        ]
        if let description { context["description"] = description }
        if let url = builder.baseURL.map({ $0 + canonical }) {
            context["canonical"] = url
        }
        let ordered = config.locales.compactMap { locale in alternates[locale].map { (locale, $0) } }
        if ordered.count > 1 {
            var links: [[String: Any]] = ordered.map { locale, path in
                ["hreflang": locale, "href": builder.baseURL.map { $0 + path } ?? here(path)]
            }
            if let fallback = alternates[config.defaultLocale] {
                links.append(["hreflang": "x-default", "href": builder.baseURL.map { $0 + fallback } ?? here(fallback)])
            }
            context["alternates"] = links
        }
        context["languages"] = ordered.map { locale, path -> [String: Any] in
            [
                "code": locale, "name": strings(locale).languageName, "href": here(path),
                "current": locale == route.locale,
            ]
        }
        context["hasLanguages"] = ordered.count > 1
        context["hasNav"] = !builder.documentKinds.isEmpty
        let apps = builder.landingPages(in: route.locale).map { page -> [String: Any] in
            ["name": page.app.name, "href": here(page.path), "current": page.path == route.path]
        }
        context["apps"] = apps.count > 1 ? ["items": apps] as [String: Any] : false
        context["nav"] = builder.documentKinds.map { kind -> [String: Any] in
            [
                "label": words.title(of: kind.rawValue),
                "href": here(builder.indexPath(kind, route.locale)),
                "current": kind == current,
            ]
        }
        if let image, let url = LinkResolver.scheme(of: image) != nil ? image : builder.baseURL.map({ $0 + image }) {
            context["image"] = url
            context["twitterCard"] = "summary_large_image"
        } else {
            context["twitterCard"] = "summary"
        }
        return context
    }

    private func render(_ template: String, _ context: [String: Any]) throws -> String {
        var context = context
        for part in SiteChrome.parts {
            // `false` when the layout is to include the template itself.
            context[part.key] = chrome?.html(part, context: context, clock: builder.templateClock) ?? false
        }
        let html = builder.templateClock.time {
            skeletons.render(template, context) { builder.templates.render(template, $0) }
        }
        guard let html else {
            throw LockerError.io("the site has no template named '\(template)'")
        }
        return html
    }

    // MARK: Landing pages

    func landing(
        _ page: LandingPage, variant: Int, route: SiteBuilder.Route, canonical: String, alternates: [String: String],
        link: @escaping (LinkTarget) -> String?
    ) throws -> String {
        let words = strings(page.locale)
        var context = common(
            route: route, title: page.title, description: page.description, canonical: canonical,
            alternates: alternates,
            image: page.image)
        let html = renderer(from: route, link: link)
        let store = page.app.storeURL
        let cta = { (label: String?) -> [String: Any] in
            if let store { return ["label": label ?? page.app.name, "storeHref": store] }
            return ["label": page.app.comingSoon ?? words.comingSoon, "storeHref": false]
        }
        var hero: [String: Any] = ["headline": page.hero.headlines[min(variant, page.hero.headlines.count - 1)]]
        hero["appName"] = page.app.name
        hero["tagline"] = present(page.app.tagline)
        hero["subheadline"] = present(page.hero.subheadline)
        hero["cta"] = cta(page.hero.cta)
        context["hero"] = hero
        context["variant"] = SiteBuilder.variantName(variant)
        // A variant is the page again: the search index takes the page alone.
        context["isVariant"] = variant > 0
        if let appStoreID = page.app.appStoreID { context["appStoreID"] = appStoreID }
        if let problem = page.problem {
            context["problem"] = ["title": problem.title, "paragraphs": problem.paragraphs]
        }
        func grid(_ grid: LandingPage.Grid?) -> [String: Any]? {
            guard let grid else { return nil }
            return ["title": grid.title, "items": grid.items.map { item(from: route, $0, link: link) }]
        }
        context["features"] = grid(page.features)
        context["audiences"] = grid(page.audiences)
        if let steps = page.howItWorks {
            context["howItWorks"] = [
                "title": steps.title,
                "steps": steps.steps.enumerated().map { offset, step -> [String: Any] in
                    var values = item(from: route, step, link: link)
                    values["number"] = offset + 1
                    return values
                },
            ]
        }
        let body = html.render(page.blocks) + html.render(page.sections)
        if !body.isEmpty { context["body"] = body }
        if let pricing = page.pricing {
            var values: [String: Any] = [
                "title": pricing.title,
                "plans": pricing.plans.map { plan -> [String: Any] in
                    var values: [String: Any] = ["name": plan.name, "price": plan.price, "features": plan.features]
                    values["summary"] = present(plan.summary)
                    values["cta"] = cta(page.callToAction?.label ?? page.hero.cta)
                    return values
                },
            ]
            values["note"] = present(pricing.note)
            context["pricing"] = values
        }
        if let faq = page.faq {
            context["faq"] = [
                "title": faq.title,
                "items": faq.items.map { item -> [String: Any] in ["question": item.question, "answer": item.answer] },
            ]
        }
        if let action = page.callToAction {
            var values: [String: Any] = ["title": action.title, "cta": cta(action.label)]
            values["body"] = present(action.body)
            context["callToAction"] = values
        }
        return try render("landing", context)
    }

    private func item(
        from route: SiteBuilder.Route, _ item: LandingPage.Grid.Item, link: (LinkTarget) -> String?
    ) -> [String: Any] {
        var values: [String: Any] = ["title": item.title, "body": present(item.body), "href": false]
        if let target = item.link, let path = link(target) {
            values["href"] = Self.relativeWithAnchor(from: route.path, to: path)
        }
        return values
    }

    // MARK: Documents

    func document(
        _ document: Document, route: SiteBuilder.Route, alternates: [String: String], image: String?,
        link: @escaping (LinkTarget) -> String?
    ) throws -> String {
        let words = strings(document.locale)
        let html = renderer(from: route, link: link)
        let title: String
        var description: String?
        var values: [String: Any] = [:]
        let uuid: String
        switch document {
        case .guide(let guide):
            title = guide.title
            description = guide.subtitle
            uuid = guide.uuid
            values["body"] = html.render(guide.blocks) + html.render(guide.sections)
            values["toc"] = toc(guide.sections.map { ($0.title, $0.anchor) })
            values["isGuide"] = true
        case .checklist(let checklist):
            title = checklist.title
            description = checklist.subtitle
            uuid = checklist.uuid
            values["meta"] = words.items(checklist.itemCount)
            values["intro"] = html.render(checklist.blocks)
            values["sections"] = checklist.sections.map { section -> [String: Any] in
                var sectionValues: [String: Any] = [
                    "anchor": section.anchor, "title": html.spans(section.titleSpans),
                    "count": words.items(section.itemCount), "note": html.render(section.note),
                ]
                sectionValues["subsections"] = section.subsections.map { subsection -> [String: Any] in
                    var subsectionValues: [String: Any] = [
                        "note": html.render(subsection.note), "hasAnchor": subsection.anchor != nil,
                        "anchor": subsection.anchor ?? "", "hasTitle": subsection.titleSpans != nil,
                        "title": subsection.titleSpans.map { html.spans($0) } ?? "",
                    ]
                    subsectionValues["items"] = subsection.items.map { item -> [String: Any] in
                        [
                            "id": ContentLinkFormat.elementID(of: .item(id: item.id)),
                            "title": html.spans(item.titleSpans),
                            "guidance": html.render(item.guidance),
                        ]
                    }
                    return subsectionValues
                }
                return sectionValues
            }
            values["toc"] = toc(checklist.sections.map { ($0.title, $0.anchor) })
            values["isChecklist"] = true
        case .deck(let deck):
            title = deck.title
            description = deck.description
            uuid = deck.uuid
            values["meta"] = words.cards(deck.cardCount)
            values["cards"] = deck.cards.map { card -> [String: Any] in
                [
                    "id": ContentLinkFormat.elementID(of: .card(id: card.id)), "front": html.itemHTML(card.front),
                    "back": html.render(card.back),
                ]
            }
            values["isDeck"] = true
        case .written:
            throw LockerError.io("the guide from \(document.source) was let go before its page was made")
        }
        var context = common(
            route: route, title: title, description: description, canonical: route.path, alternates: alternates,
            image: image, type: "article", current: document.kind)
        values["title"] = title
        values["subtitle"] = present(description)
        values["kindTitle"] = words.title(of: document.kind.rawValue)
        values["kindHref"] = SiteBuilder.relative(from: route.path, to: builder.indexPath(document.kind, route.locale))
        if let scheme = config.deepLinkScheme {
            values["deepLink"] = "\(scheme)://content/\(document.kind)/\(uuid)"
        } else {
            values["deepLink"] = false
        }
        context["document"] = values
        return try render(document.kind.rawValue, context)
    }

    /// A table of contents for three sections or more; `false` for fewer.
    private func toc(_ sections: [(title: String, anchor: String)]) -> Any {
        guard sections.count >= 3 else { return false }
        return [
            "items": sections.map { section -> [String: Any] in
                ["title": section.title, "href": Self.relativeWithAnchor(from: "", to: "#" + section.anchor)]
            }
        ] as [String: Any]
    }

    // MARK: Indexes

    func index(
        _ kind: ContentKind, entries: [(entry: ContentIndex.Entry, path: String)], route: SiteBuilder.Route,
        alternates: [String: String]
    ) throws -> String {
        let words = strings(route.locale)
        let title = words.title(of: kind.rawValue)
        var context = common(
            route: route, title: title, description: nil, canonical: route.path, alternates: alternates, image: nil,
            current: kind)
        context["index"] = [
            "title": title,
            "entries": entries.map { entry, path -> [String: Any] in
                var values: [String: Any] = [
                    "title": entry.title, "href": SiteBuilder.relative(from: route.path, to: path),
                    "subtitle": present(entry.subtitle),
                    "lang": entry.locale != route.locale ? entry.locale : false,
                    "meta": false,
                ]
                if let count = entry.itemCount { values["meta"] = words.items(count) }
                if let count = entry.cardCount { values["meta"] = words.cards(count) }
                return values
            },
        ]
        return try render("list", context)
    }

    /// The root of a site without landing pages: the kinds, linked.
    func home(route: SiteBuilder.Route, kinds: [(ContentKind, String)], alternates: [String: String]) throws -> String {
        let words = strings(route.locale)
        var context = common(
            route: route, title: config.title ?? "Locker", description: nil, canonical: route.path,
            alternates: alternates, image: nil)
        context["kinds"] = kinds.map { kind, path -> [String: Any] in
            ["title": words.title(of: kind.rawValue), "href": SiteBuilder.relative(from: route.path, to: path)]
        }
        return try render("home", context)
    }

    /// The page a host serves for any missing path, in every locale: it may be shown at any depth,
    /// so its links are root-relative (under the base URL's path, when there is one).
    func notFound() throws -> String {
        let route = SiteBuilder.Route(path: "", locale: config.defaultLocale)
        var context = common(
            route: route, title: strings(config.defaultLocale).notFoundTitle, description: nil, canonical: "404.html",
            alternates: [:], image: nil)
        context.removeValue(forKey: "canonical")
        context["robots"] = "noindex"
        context["nav"] = [Any]()
        context["hasNav"] = false
        context["apps"] = false
        // Root-relative: the same host serves the 404 page at any depth, under the base URL's path.
        let root = builder.baseURL.flatMap { URL(string: $0)?.path } ?? "/"
        let absolute = { (path: String) in (root.hasSuffix("/") ? root : root + "/") + path }
        context["icon"] = absolute(iconPath)
        context["stylesheet"] = absolute(stylePath)
        context["searchScript"] = absolute(scriptPath)
        context["homeHref"] = absolute("")
        context["messages"] = config.locales.map { locale -> [String: Any] in
            let words = strings(locale)
            return [
                "lang": locale, "title": words.notFoundTitle, "body": words.notFoundBody, "backHome": words.backHome,
                "href": absolute(locale == config.defaultLocale ? "" : locale + "/"),
            ]
        }
        return try render("notfound", context)
    }
}
