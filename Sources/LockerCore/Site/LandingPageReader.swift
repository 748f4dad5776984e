import Foundation
import LockerKit

/// Reads a landing page from a note's frontmatter, reporting every missing, mistyped or unknown
/// key at its position.
///
/// Links (`link: "[[check-in]]"`) and the image are read and resolved beforehand by the document
/// builder, which checks them exactly like the links of a note's body; the reader looks them up
/// by where they are written.
struct LandingPageReader {
    var file: String
    /// The target of every `link:` value that is a wikilink, by the value's position; nil where
    /// it names no note (already reported).
    var links: [SourcePosition: LinkTarget?]
    /// The site path of every `image:` value, by the value's position; nil where it names no file
    /// (already reported).
    var images: [SourcePosition: String?]
    private(set) var diagnostics: [Diagnostic] = []
    /// The counts its texts show, each where it is written.
    private(set) var counts: [PageCount] = []

    init(file: String, links: [SourcePosition: LinkTarget?], images: [SourcePosition: String?]) {
        self.file = file
        self.links = links
        self.images = images
    }

    mutating func read(_ note: ParsedNote, blocks: [Block], sections: [Section]) -> LandingPage {
        let top = Dictionary(
            note.frontmatter.extraEntries.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        for entry in note.frontmatter.extraEntries where !Self.pageKeys.contains(entry.key) {
            warnUnknown(entry, known: Self.pageKeys.sorted())
        }
        let app = mapping(top["app"], "app", keys: ["name", "tagline", "appStoreID", "comingSoon"]).map { fields in
            LandingPage.App(
                name: requiredText(fields, "name", in: "app", at: top["app"]?.keyPosition) ?? note.title,
                tagline: text(fields["tagline"]), appStoreID: appStoreID(fields["appStoreID"]),
                comingSoon: text(fields["comingSoon"]))
        }
        if app == nil {
            missing(
                "app.name", at: top["app"]?.keyPosition ?? note.idPosition, hint: "add 'app:' with at least 'name:'")
        }

        var hero = LandingPage.Hero(headlines: [])
        if let fields = mapping(top["hero"], "hero", keys: ["headline", "headlines", "subheadline", "cta"]) {
            hero.headlines = texts(fields["headline"]) + texts(fields["headlines"])
            hero.subheadline = text(fields["subheadline"])
            hero.cta = text(fields["cta"])
        }
        if hero.headlines.isEmpty {
            missing(
                "hero.headlines", at: top["hero"]?.keyPosition ?? note.idPosition,
                hint: "add 'hero:' with 'headlines:', at least one")
        }

        for (text, position) in [
            (note.frontmatter.title, note.frontmatter.titlePosition),
            (note.frontmatter.description, note.frontmatter.descriptionPosition),
        ] {
            if let text, let position { scanCounts(text, at: position) }
        }
        var page = LandingPage(
            id: note.id, locale: note.locale, order: note.frontmatter.order, title: note.title,
            description: note.frontmatter.description, source: note.path,
            app: app ?? LandingPage.App(name: note.title), hero: hero,
            problem: mapping(top["problem"], "problem", keys: ["title", "body"]).flatMap { fields in
                requiredText(fields, "title", in: "problem", at: top["problem"]?.keyPosition).map {
                    LandingPage.Prose(title: $0, paragraphs: texts(fields["body"]))
                }
            },
            features: grid(top["features"], "features"),
            audiences: grid(top["audiences"], "audiences"),
            howItWorks: mapping(top["howItWorks"], "howItWorks", keys: ["title", "steps"]).flatMap { fields in
                requiredText(fields, "title", in: "howItWorks", at: top["howItWorks"]?.keyPosition).map {
                    LandingPage.Steps(title: $0, steps: items(fields["steps"], "howItWorks.steps"))
                }
            },
            faq: mapping(top["faq"], "faq", keys: ["title", "items"]).flatMap { fields in
                requiredText(fields, "title", in: "faq", at: top["faq"]?.keyPosition).map { title in
                    LandingPage.FAQ(
                        title: title,
                        items: list(fields["items"], "faq.items").compactMap { value in
                            let entry = mapping(value, "faq item", keys: ["question", "answer"])
                            guard let entry else { return nil }
                            guard let question = requiredText(entry, "question", in: "faq item", at: value.position),
                                let answer = requiredText(entry, "answer", in: "faq item", at: value.position)
                            else { return nil }
                            return LandingPage.FAQ.Entry(question: question, answer: answer)
                        })
                }
            },
            pricing: mapping(top["pricing"], "pricing", keys: ["title", "note", "plans"]).flatMap { fields in
                requiredText(fields, "title", in: "pricing", at: top["pricing"]?.keyPosition).map { title in
                    LandingPage.Pricing(
                        title: title, note: text(fields["note"]),
                        plans: list(fields["plans"], "pricing.plans").compactMap { value in
                            guard let plan = mapping(value, "plan", keys: ["name", "price", "summary", "features"]),
                                let name = requiredText(plan, "name", in: "plan", at: value.position),
                                let price = requiredText(plan, "price", in: "plan", at: value.position)
                            else { return nil }
                            return LandingPage.Pricing.Plan(
                                name: name, price: price, summary: text(plan["summary"]),
                                features: texts(plan["features"]))
                        })
                }
            },
            callToAction: mapping(top["cta"], "cta", keys: ["title", "body", "label"]).flatMap { fields in
                requiredText(fields, "title", in: "cta", at: top["cta"]?.keyPosition).map {
                    LandingPage.CallToAction(title: $0, body: text(fields["body"]), label: text(fields["label"]))
                }
            },
            image: top["image"].flatMap { entry in
                text(entry).flatMap { _ in images[entry.value.position] ?? nil }
            },
            blocks: blocks, sections: sections)
        page.counts = counts
        return page
    }

    /// Every key a page reads beyond the note keys.
    static let pageKeys: Set<String> = [
        "app", "hero", "problem", "features", "audiences", "howItWorks", "faq", "pricing", "cta", "image",
    ]

    // MARK: Sections

    private mutating func grid(_ entry: YAMLValue.Entry?, _ key: String) -> LandingPage.Grid? {
        guard let fields = mapping(entry, key, keys: ["title", "items"]),
            let title = requiredText(fields, "title", in: key, at: entry?.keyPosition)
        else { return nil }
        return LandingPage.Grid(title: title, items: items(fields["items"], key + ".items"))
    }

    private mutating func items(_ entry: YAMLValue.Entry?, _ key: String) -> [LandingPage.Grid.Item] {
        list(entry, key).compactMap { value in
            guard let fields = mapping(value, key, keys: ["title", "body", "link"]),
                let title = requiredText(fields, "title", in: key, at: value.position)
            else { return nil }
            var link: LinkTarget?
            if let linkEntry = fields["link"], text(linkEntry) != nil {
                if let target = links[linkEntry.value.position] {
                    link = target
                } else {
                    invalid(linkEntry.value, "'link' must be a wikilink to a note, such as \"[[check-in]]\"")
                }
            }
            return LandingPage.Grid.Item(title: title, body: text(fields["body"]), link: link)
        }
    }

    // MARK: Values

    /// A mapping's entries by key, warning about keys not in `keys`; nil (reported) when not a mapping.
    private mutating func mapping(_ entry: YAMLValue.Entry?, _ key: String, keys: [String]) -> [String: YAMLValue
        .Entry]?
    {
        guard let entry else { return nil }
        return mapping(entry.value, key, keys: keys)
    }

    private mutating func mapping(_ value: YAMLValue, _ key: String, keys: [String]) -> [String: YAMLValue.Entry]? {
        guard case .mapping(let entries, _) = value else {
            if case .scalar(_, .null, _) = value { return nil }
            invalid(value, "'\(key)' must be a mapping of 'key: value' lines, not \(value.typeName)")
            return nil
        }
        var fields: [String: YAMLValue.Entry] = [:]
        for entry in entries {
            if keys.contains(entry.key) {
                fields[entry.key] = fields[entry.key] ?? entry
            } else {
                warnUnknown(entry, known: keys, in: key)
            }
        }
        return fields
    }

    private mutating func list(_ entry: YAMLValue.Entry?, _ key: String) -> [YAMLValue] {
        guard let entry else { return [] }
        switch entry.value {
        case .sequence(let values, _): return values
        case .scalar(_, .null, _): return []
        default:
            invalid(entry.value, "'\(key)' must be a list, not \(entry.value.typeName)")
            return []
        }
    }

    private mutating func text(_ entry: YAMLValue.Entry?) -> String? {
        guard let entry else { return nil }
        switch entry.value {
        case .scalar(_, .null, _): return nil
        case .scalar(let text, _, let position):
            let trimmed = text.trimmingWhitespace
            scanCounts(trimmed, at: position)
            return trimmed.isEmpty ? nil : trimmed
        default:
            invalid(entry.value, "'\(entry.key)' must be text, not \(entry.value.typeName)")
            return nil
        }
    }

    /// Text or a list of texts.
    private mutating func texts(_ entry: YAMLValue.Entry?) -> [String] {
        guard let entry else { return [] }
        if case .sequence(let values, _) = entry.value {
            return values.compactMap { value in
                text(YAMLValue.Entry(key: entry.key, keyPosition: entry.keyPosition, value: value))
            }
        }
        return text(entry).map { [$0] } ?? []
    }

    private mutating func requiredText(
        _ fields: [String: YAMLValue.Entry], _ key: String, in parent: String, at position: SourcePosition?
    ) -> String? {
        if let value = text(fields[key]) { return value }
        if fields[key] == nil { missing("\(parent).\(key)", at: position ?? .start) }
        return nil
    }

    private mutating func appStoreID(_ entry: YAMLValue.Entry?) -> String? {
        guard let entry, let raw = text(entry) else { return nil }
        let digits = raw.hasPrefix("id") ? String(raw.dropFirst(2)) : raw
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            invalid(entry.value, "'appStoreID' must be the app's numeric App Store ID, such as 1234567890")
            return nil
        }
        return digits
    }

    // MARK: Links

    /// `[[target#fragment|text]]` as a link, or nil when the text is not one wikilink.
    static func wikiLink(_ raw: String, at position: SourcePosition) -> WikiLink? {
        guard raw.hasPrefix("[["), raw.hasSuffix("]]"), raw.count > 4 else { return nil }
        var inner = String(raw.dropFirst(2).dropLast(2))
        guard !inner.containsBytes("[["), !inner.containsBytes("]]") else { return nil }
        var display: String?
        if let bar = inner.firstIndex(of: "|") {
            display = String(inner[inner.index(after: bar)...])
            inner = String(inner[..<bar])
        }
        var fragment: String?
        if let hash = inner.firstIndex(of: "#") {
            fragment = String(inner[inner.index(after: hash)...])
            inner = String(inner[..<hash])
        }
        let target = inner.trimmingWhitespace
        guard !target.isEmpty else { return nil }
        return WikiLink(
            target: target.precomposedStringWithCanonicalMapping, fragment: fragment, display: display, isEmbed: false,
            position: position)
    }

    /// A path written as `[[file.png]]` or `![[file.png]]`, without the brackets.
    static func unwrapLink(_ raw: String) -> String {
        var text = raw
        if text.hasPrefix("!") { text.removeFirst() }
        if text.hasPrefix("[["), text.hasSuffix("]]") { text = String(text.dropFirst(2).dropLast(2)) }
        if let bar = text.firstIndex(of: "|") { text = String(text[..<bar]) }
        return text.trimmingWhitespace
    }

    /// Records the counts `text` shows, and reports the `{{…}}` that count nothing.
    private mutating func scanCounts(_ text: String, at position: SourcePosition) {
        guard text.contains("{{") else { return }
        let (found, problems) = PageCount.scan(text, at: position)
        counts += found
        for problem in problems {
            diagnostics.append(
                Diagnostic(
                    .error, .pageInvalidCount, problem, file: file, at: position,
                    hint: "{{items ID}}, {{cards ID}}: a checklist's items, a deck's cards; {{guides}}, "
                        + "{{checklists}}, {{decks}}, {{items}}, {{cards}}: the whole site's"))
        }
    }

    // MARK: Reporting

    private mutating func missing(_ key: String, at position: SourcePosition, hint: String? = nil) {
        diagnostics.append(
            Diagnostic(.error, .pageMissingKey, "a landing page needs '\(key)'", file: file, at: position, hint: hint))
    }

    private mutating func invalid(_ value: YAMLValue, _ message: String) {
        diagnostics.append(Diagnostic(.error, .frontmatterInvalidValue, message, file: file, at: value.position))
    }

    private mutating func warnUnknown(_ entry: YAMLValue.Entry, known: [String], in parent: String? = nil) {
        let name = parent.map { "\($0).\(entry.key)" } ?? entry.key
        diagnostics.append(
            Diagnostic(
                .warning, .pageUnknownKey, "a landing page has no '\(name)'; it would not be shown", file: file,
                at: entry.keyPosition, hint: "known keys here: " + known.joined(separator: ", ")))
    }
}
