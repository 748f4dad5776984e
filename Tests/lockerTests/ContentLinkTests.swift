import Foundation
import LockerKit
import LockerTestSupport
import Testing

/// `ContentLink`: the app and web forms of deep links, on the bundle of `content/` and on small
/// vaults built for one outcome each.
@Suite struct ContentLinkTests {
    /// Every document, section, item and card of every version in the bundle, as targets.
    static func targets(in bundle: ContentBundle) throws -> [ContentTarget] {
        var targets: [ContentTarget] = []
        for kind in ContentKind.known {
            for id in bundle.ids(of: kind) {
                for locale in bundle.locales(of: kind, id: id) {
                    switch kind {
                    case .guide:
                        let guide = try bundle.version(kind: kind, id: id, locale: locale, as: Guide.self)
                        let document = ContentTarget(
                            kind: kind, id: id, uuid: guide.uuid, locale: locale, title: guide.title)
                        targets.append(document)
                        func walk(_ sections: [Section]) {
                            for section in sections {
                                var target = document
                                (target.part, target.partTitle) = (.section(anchor: section.anchor), section.title)
                                targets.append(target)
                                walk(section.sections)
                            }
                        }
                        walk(guide.sections)
                    case .checklist:
                        let checklist = try bundle.version(kind: kind, id: id, locale: locale, as: Checklist.self)
                        let document = ContentTarget(
                            kind: kind, id: id, uuid: checklist.uuid, locale: locale, title: checklist.title)
                        targets.append(document)
                        for section in checklist.sections {
                            targets.append(
                                part(of: document, .section(anchor: section.anchor), section.title, section.uuid))
                            for subsection in section.subsections {
                                if let anchor = subsection.anchor {
                                    targets.append(
                                        part(of: document, .section(anchor: anchor), subsection.title, subsection.uuid))
                                }
                                for item in subsection.items {
                                    targets.append(part(of: document, .item(id: item.id), item.title, item.uuid))
                                }
                            }
                        }
                    default:
                        let deck = try bundle.version(kind: kind, id: id, locale: locale, as: Deck.self)
                        let document = ContentTarget(
                            kind: kind, id: id, uuid: deck.uuid, locale: locale, title: deck.title)
                        targets.append(document)
                        for card in deck.cards {
                            targets.append(part(of: document, .card(id: card.id), card.frontText, card.uuid))
                        }
                    }
                }
            }
        }
        return targets
    }

    private static func part(
        of document: ContentTarget, _ part: ContentLink.Part, _ title: String?, _ uuid: String
    ) -> ContentTarget {
        var target = document
        (target.part, target.partTitle, target.partUUID) = (part, title, uuid)
        return target
    }

    @Test func everyDocumentSectionItemAndCardOfTheContentRoundTripsInBothForms() throws {
        let bundle = try BuiltContent.bundle()
        let format = bundle.linkFormat
        #expect(format.scheme == "mothership")
        #expect(format.siteURL == "https://captainslocker.example/")
        let targets = try Self.targets(in: bundle)
        let site = try BuiltContent.folder().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("site")
        var pages: [String: String] = [:]
        let counts = Dictionary(grouping: targets) { $0.part?.name ?? "document" }.mapValues(\.count)
        // Both languages of 18 documents, and their parts: enough that no kind is missed.
        #expect(counts["document"] == 36)
        #expect(try #require(counts["section"]) > 100)
        #expect(try #require(counts["item"]) > 200)
        #expect(try #require(counts["card"]) > 50)
        for target in targets {
            let app = try #require(format.appURL(for: target))
            let web = try #require(format.webURL(for: target))
            #expect(app.allSatisfy { $0.isASCII } && web.allSatisfy { $0.isASCII })
            for text in [app, web] {
                let link = try format.link(from: text)
                #expect(bundle.resolve(link, locale: target.locale) == .found(target), "\(text)")
            }
            // The web form lands on the built site: its page, and the element its fragment names.
            let address = try #require(web.split(separator: "#", maxSplits: 1).first)
            let page = site.appendingPathComponent(String(address.dropFirst("https://captainslocker.example/".count)))
                .appendingPathComponent("index.html")
            let html = try #require(pages[page.path] ?? (try? String(contentsOf: page, encoding: .utf8)), "\(web)")
            pages[page.path] = html
            if let fragment = web.split(separator: "#", maxSplits: 1).dropFirst().first {
                let id = try #require(fragment.removingPercentEncoding)
                #expect(html.contains(" id=\"\(id)\""), "\(web): no element \(id)")
            }
            // In the other language: an item or card by the same ID, a section at the same place.
            for other in bundle.locales where other != target.locale {
                let resolution = bundle.resolve(try format.link(from: app), locale: other)
                guard case .found(let found) = resolution else {
                    Issue.record("\(app) for \(other): \(resolution)")
                    continue
                }
                #expect(found.locale == other && found.id == target.id)
                if case .section = target.part {
                    guard case .section = found.part else {
                        Issue.record("\(app) for \(other): \(found)")
                        continue
                    }
                } else {
                    #expect(found.part == target.part && found.partUUID == target.partUUID)
                }
            }
        }
    }

    @Test func linksOfTheContentAreTheDocumentedOnes() throws {
        let bundle = try BuiltContent.bundle()
        let format = bundle.linkFormat
        let resolution = bundle.resolve(
            "mothership://content/checklist/6fde2e4a-acd5-5489-a413-11c0d7bc9950/item/windlass", locale: "en")
        let target = try #require(try resolution.get().target)
        #expect(target.id == "check-in" && target.locale == "en" && target.part == .item(id: "windlass"))
        #expect(format.webURL(for: target) == "https://captainslocker.example/en/checklists/check-in/#item-windlass")
        let russian = try #require(
            try bundle.resolve("https://captainslocker.example/checklists/check-in/#item-windlass", locale: "en").get()
                .target)
        #expect(russian == target)
        let guide = try #require(
            try bundle.resolve("https://captainslocker.example/en/guides/anchoring/#the-snubber", locale: "ru").get()
                .target)
        #expect(guide.locale == "ru" && guide.partTitle == "Демпферный конец")
        #expect(
            format.appURL(for: guide)
                == "mothership://content/guide/66f6f032-5930-57ea-bdd2-54de8fd0a29c/section/%D0%B4%D0%B5%D0%BC%D0%BF%D1%84%D0%B5%D1%80%D0%BD%D1%8B%D0%B9-%D0%BA%D0%BE%D0%BD%D0%B5%D1%86?locale=ru"
        )
    }

    @Test func lockerOpenPrintsWhatALinkNamesAndFailsOnOneThatNamesNothing() throws {
        let folder = try BuiltContent.folder()
        let link = "https://captainslocker.example/decks/sound-signals/#card-one-short"
        let run = try LockerRun(["open", link, "--bundle", folder.path, "--locale", "en"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                Sound signals › In sight of another vessel, a power-driven vessel sounds one short blast. What does it mean?  card
                  deck sound-signals, en, card one-short
                  mothership://content/deck/4d4b2b5c-e3f5-5c99-8315-d529b2e2e0ee/card/one-short
                  https://captainslocker.example/en/decks/sound-signals/#card-one-short

                """)
        let json = try LockerRun(
            ["open", link, "--bundle", folder.path, "--locale", "ru", "--format", "json"], in: folder)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let target = try #require(report["target"] as? [String: Any])
        #expect(report["outcome"] as? String == "found" && target["locale"] as? String == "ru")
        #expect(
            target["partUUID"] as? String
                == ContentIdentity.uuidString(kind: .deck, id: "sound-signals", part: ["card", "one-short"]))
        for (text, reason) in [
            (
                "mothership://content/deck/4d4b2b5c-e3f5-5c99-8315-d529b2e2e0ee/card/none",
                "  no version of deck sound-signals has card 'none'"
            ),
            ("mothership://content/guide/4d4b2b5c", "'4d4b2b5c' is not a UUID"),
        ] {
            let failed = try LockerRun(["open", text, "--bundle", folder.path], in: folder)
            #expect(failed.status == 1)
            #expect(failed.stdout.hasSuffix(reason + "\n"), "\(failed.stdout)")
        }
    }

    @Test func everyMalformedLinkHasItsOwnError() throws {
        let format = ContentLinkFormat(
            scheme: "mothership", siteURL: "https://example.org/sail/", defaultLocale: "ru", locales: ["ru", "en"])
        let uuid = "66f6f032-5930-57ea-bdd2-54de8fd0a29c"
        let cases: [(String, ContentLinkError)] = [
            ("  ", .empty),
            ("mothership://content/guide/" + String(repeating: "a", count: 5000), .tooLong),
            ("anchoring", .unknownScheme("anchoring")),
            ("ftp://example.org/sail/guides/a/", .unknownScheme("ftp")),
            ("https://example.com/sail/guides/a/", .otherSite),
            ("https://example.org/other/guides/a/", .otherSite),
            ("mothership://contents/guide/\(uuid)", .unknownHost("contents")),
            ("mothership://content/guide", .malformedPath("content/guide")),
            ("mothership://content/guide/\(uuid)/section", .malformedPath("content/guide/\(uuid)/section")),
            ("mothership://content/guide//", .malformedPath("content/guide//")),
            ("mothership://content/guide/\(uuid)#top", .malformedPath("content/guide/\(uuid)")),
            ("mothership://content/page/\(uuid)", .unknownKind("page")),
            ("mothership://content/guide/66f6f032", .malformedUUID("66f6f032")),
            ("mothership://content/guide/\(uuid)/item/x", .unknownPart("item")),
            ("mothership://content/deck/\(uuid)/section/x", .unknownPart("section")),
            ("mothership://content/deck/\(uuid)/block/x", .unknownPart("block")),
            ("mothership://content/deck/\(uuid)/card/%ZZ", .malformedEncoding("%ZZ")),
            ("mothership://content/deck/\(uuid)/card/%D0", .malformedEncoding("%D0")),
            ("mothership://content/deck/\(uuid)/card/a%0Ab", .malformedEncoding("a%0Ab")),
            ("mothership://content/guide/\(uuid)/section/a?locale=e%20n", .malformedLocale("e n")),
            ("https://example.org/sail/pages/a/", .unknownKind("pages")),
            ("https://example.org/sail/en/guides/", .malformedPath("/sail/en/guides/")),
            ("https://example.org/sail/decks/sound-signals/#one-short", .unknownPart("one-short")),
        ]
        for (text, error) in cases {
            #expect(throws: error, "\(text)") { try format.link(from: text) }
        }
        // And what does parse, however it is written.
        #expect(
            try format.link(from: "MOTHERSHIP://Content/guide/\(uuid.uppercased())/section/%5Esummary?x=1&locale=en")
                == ContentLink(kind: .guide, document: .uuid(uuid), part: .section(anchor: "^summary"), locale: "en"))
        #expect(
            try format.link(from: "HTTP://EXAMPLE.org/sail/en/checklists/check-in/index.html?utm=x#item-oil")
                == ContentLink(kind: .checklist, document: .id("check-in"), part: .item(id: "oil"), locale: "en"))
        #expect(
            try format.link(from: "https://example.org/sail/guides/anchoring")
                == ContentLink(kind: .guide, document: .id("anchoring"), locale: "ru"))
        #expect(
            try format.link(from: "https://example.org:443/sail/guides/anchoring/")
                == ContentLink(kind: .guide, document: .id("anchoring"), locale: "ru"))
        #expect(throws: ContentLinkError.otherSite) { try format.link(from: "https://example.org:8443/sail/guides/a/") }
        // An app scheme of http or https would take every web link: it is none.
        #expect(ContentLinkFormat(scheme: "HTTPS", siteURL: nil, defaultLocale: "en", locales: ["en"]).scheme == nil)
    }

    /// A note without an `id:` takes its folders into its ID (`seamanship/knots`): the site's
    /// page is `guides/seamanship/knots/`, and the web form is that page.
    @Test func anIDWithFoldersIsTheSitesFoldersInTheWebForm() throws {
        let workspace = try Workspace([
            "seamanship/knots.md": "# Knots\n\n## Bowline\n\nA loop.\n",
            "locker.yml": "locales: [en]\ndefaultLocale: en\ndeepLinkScheme: sail\nbaseURL: https://sail.example/\n",
        ])
        defer { workspace.remove() }
        let build = try LockerRun(["build", "vault", "--out", "build"], in: workspace.root)
        try #require(build.status == 0, "\(build.stdout)\(build.stderr)")
        #expect(
            FileManager.default.fileExists(
                atPath: workspace.root.appendingPathComponent("build/site/guides/seamanship/knots/index.html").path))
        let bundle = try ContentBundle(contentsOf: workspace.root.appendingPathComponent("build/bundles/v1"))
        let page = "https://sail.example/guides/seamanship/knots/#bowline"
        let target = try #require(try bundle.resolve(page, locale: "en").get().target)
        #expect(target.id == "seamanship/knots" && target.partTitle == "Bowline")
        #expect(bundle.linkFormat.webURL(for: target) == page)
    }

    /// A vault whose translations differ: a section and an item only the English version has.
    static let unevenVault: [String: String] = [
        "guides/knots.md": "---\nid: knots\n---\n# Knots\n\n## Bowline\n\nA loop.\n\n## Cleat hitch\n\nOn a cleat.\n",
        "guides/knots.ru.md": "---\nid: knots\n---\n# Узлы\n\n## Беседочный узел\n\nПетля.\n",
        "checklists/daily.md":
            "---\ntype: checklist\nid: daily\n---\n# Daily\n\n## Engine\n\n- [ ] Oil ^oil\n- [ ] Belt ^belt\n",
        "checklists/daily.ru.md":
            "---\ntype: checklist\nid: daily\n---\n# Ежедневно\n\n## Двигатель\n\n- [ ] Масло ^oil\n",
        "locker.yml": "locales: [en, ru]\ndefaultLocale: en\ndeepLinkScheme: sail\nbaseURL: https://sail.example/\n",
    ]

    @Test func eachOutcomeOfResolvingIsTyped() throws {
        let workspace = try Workspace(Self.unevenVault)
        defer { workspace.remove() }
        let build = try LockerRun(["build", "vault", "--out", "build"], in: workspace.root)
        try #require(build.status == 0, "\(build.stdout)\(build.stderr)")
        let bundle = try ContentBundle(contentsOf: workspace.root.appendingPathComponent("build/bundles/v1"))
        let guide = ContentIdentity.uuidString(kind: .guide, id: "knots")
        let checklist = ContentIdentity.uuidString(kind: .checklist, id: "daily")
        func resolve(_ text: String, _ locale: String) throws -> LinkResolution {
            try bundle.resolve(text, locale: locale).get()
        }

        // A section the Russian version lacks: found in English, for a Russian reader.
        let cleat = try resolve("sail://content/guide/\(guide)/section/cleat-hitch?locale=en", "ru")
        #expect(
            cleat
                == .otherLocale(
                    ContentTarget(
                        kind: .guide, id: "knots", uuid: guide, locale: "en", title: "Knots",
                        part: .section(anchor: "cleat-hitch"),
                        partTitle: "Cleat hitch")))
        // One the versions share by place, though the shapes differ: not mapped, named in its own language.
        let bowline = try resolve("https://sail.example/guides/knots/#bowline", "ru")
        #expect(bowline.target?.locale == "en" && bowline.target?.partTitle == "Bowline")
        guard case .otherLocale = bowline else {
            Issue.record("\(bowline)")
            return
        }
        // An item only the English version has.
        let belt = try resolve("sail://content/checklist/\(checklist)/item/belt", "ru")
        #expect(belt.target?.locale == "en" && belt.target?.partTitle == "Belt")
        guard case .otherLocale = belt else {
            Issue.record("\(belt)")
            return
        }
        // And one both have: the reader's.
        #expect(try resolve("https://sail.example/checklists/daily/#item-oil", "ru").target?.partTitle == "Масло")
        // A part no version has.
        guard
            case .partNotFound(let document, .item(id: "sails")) = try resolve(
                "sail://content/checklist/\(checklist)/item/sails", "ru")
        else {
            Issue.record("an unknown item")
            return
        }
        #expect(document.id == "daily" && document.locale == "ru" && document.title == "Ежедневно")
        // A document of another kind, and none at all.
        #expect(
            try resolve("sail://content/checklist/\(guide)", "en")
                == .wrongKind(link: .checklist, actual: .guide, id: "knots"))
        #expect(
            try resolve("https://sail.example/decks/daily/", "en")
                == .wrongKind(link: .deck, actual: .checklist, id: "daily"))
        let unknown = ContentIdentity.uuidString(kind: .guide, id: "nowhere")
        #expect(try resolve("sail://content/guide/\(unknown)", "en") == .notFound(kind: .guide, document: unknown))
        #expect(
            try resolve("https://sail.example/ru/guides/nowhere/", "en") == .notFound(kind: .guide, document: "nowhere")
        )
    }

    /// Valid links of the content, cut, spliced and garbled, and random bytes: each gets a typed
    /// outcome, and whatever resolves gives a link that resolves to the same target again.
    @Test func tenThousandRandomAndMalformedLinksEachGetATypedOutcome() throws {
        let bundle = try BuiltContent.bundle()
        let format = bundle.linkFormat
        let valid = try Self.targets(in: bundle).flatMap { [format.appURL(for: $0), format.webURL(for: $0)] }
            .compactMap { $0 }
        var random = SplitMix64(seed: 48)
        let alphabet = Array("abcz09-_.~%/#?=&:;@!$'()*+, \t\nяё\u{301}\u{0}\u{7F}ABCDEF/%D0%B0%ZZ%")
        var outcomes: [String: Int] = [:]
        for round in 0..<10_000 {
            var text = Array(valid[Int(random.next() % UInt64(valid.count))])
            switch round % 5 {
            case 0:  // cut
                text = Array(text.prefix(Int(random.next() % UInt64(text.count + 1))))
            case 1:  // a few characters replaced
                for _ in 0..<(1 + random.next() % 4) where !text.isEmpty {
                    text[Int(random.next() % UInt64(text.count))] =
                        alphabet[Int(random.next() % UInt64(alphabet.count))]
                }
            case 2:  // spliced with another link
                let other = Array(valid[Int(random.next() % UInt64(valid.count))])
                text =
                    Array(text.prefix(Int(random.next() % UInt64(text.count + 1))))
                    + other.suffix(Int(random.next() % UInt64(other.count + 1)))
            case 3:  // characters inserted
                for _ in 0..<(1 + random.next() % 6) {
                    text.insert(
                        alphabet[Int(random.next() % UInt64(alphabet.count))],
                        at: Int(random.next() % UInt64(text.count + 1)))
                }
            default:  // random text
                text = (0..<(random.next() % 80)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            }
            let link = String(text)
            let outcome: String
            switch bundle.resolve(link, locale: round % 2 == 0 ? "ru" : "en") {
            case .failure: outcome = "malformed"
            case .success(let resolution):
                switch resolution {
                case .found(let target), .otherLocale(let target):
                    outcome = resolution == .found(target) ? "found" : "otherLocale"
                    let again = try #require(format.appURL(for: target))
                    #expect(bundle.resolve(again, locale: target.locale) == .success(.found(target)), "\(link)")
                case .notFound: outcome = "notFound"
                case .wrongKind: outcome = "wrongKind"
                case .partNotFound: outcome = "partNotFound"
                case .unreadable(let error):
                    outcome = "unreadable"
                    Issue.record("\(link): \(error)")
                }
            }
            outcomes[outcome, default: 0] += 1
        }
        // The generator reached every typed outcome a verified bundle can give.
        for expected in ["found", "notFound", "partNotFound", "malformed"] {
            #expect(outcomes[expected, default: 0] > 0, "\(outcomes)")
        }
        #expect(outcomes.values.reduce(0, +) == 10_000)
    }
}
