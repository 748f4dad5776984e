import Foundation
import LockerKit

/// The header and footer every page shows through the layout (`{{{siteHeader}}}` and
/// `{{{siteFooter}}}`), rendered once for each set of values they read rather than once a page:
/// the guides of a folder share one header, and the header and footer took a fifth of each
/// page's time in its templates.
///
/// What a template can read is found in its own text: every name a tag of it looks up. Its
/// output depends on the values of those names in the page's context and on nothing else, so
/// the values are its key, and two pages with the same values get the same HTML. A template
/// whose reads cannot be known from its text (it includes a partial, holds a block a page could
/// fill, calls a transform, prints `{{.}}`, or changes its delimiters) gets no HTML here: the
/// layout then includes it as a partial (`{{^siteHeader}}{{>header}}{{/siteHeader}}`), with
/// the whole page as before.
final class SiteChrome: @unchecked Sendable {
    /// A part of the chrome: the template, and the key the layout shows it under.
    struct Part: Sendable {
        var template: String
        var key: String
    }

    static let parts = [Part(template: "header", key: "siteHeader"), Part(template: "footer", key: "siteFooter")]

    /// How many renders of one part are kept: a header that shows something of every page
    /// (its title) is rendered for every page, and is not worth keeping.
    static let capacity = 256

    private let templates: TemplateSet
    /// The names each part's template reads, for the parts that are rendered here: those whose
    /// reads are known and whose key a template shows.
    private let reads: [String: [String]]
    private let lock = NSLock()
    private var rendered: [String: String] = [:]

    init(templates: TemplateSet) {
        self.templates = templates
        var reads: [String: [String]] = [:]
        for part in Self.parts where templates.sources.values.contains(where: { $0.contains(part.key) }) {
            reads[part.template] = templates.sources[part.template].flatMap(Self.names)
        }
        self.reads = reads
    }

    /// The part's HTML for a page whose context is `context`; nil when the layout is to include
    /// the template itself.
    func html(_ part: Part, context: [String: Any], clock: TemplateClock) -> String? {
        guard let names = reads[part.template] else { return nil }
        var values: [String: Any] = [:]
        for name in names {
            if let value = context[name] { values[name] = value }
        }
        var key = part.template + "\u{0}"
        guard Self.append(values, to: &key) else {
            return clock.time(counting: false) { templates.render(part.template, values) }
        }
        lock.lock()
        let known = rendered[key]
        lock.unlock()
        if let known { return known }
        guard let html = clock.time(counting: false, { templates.render(part.template, values) }) else { return nil }
        lock.lock()
        if rendered.count < Self.capacity * Self.parts.count { rendered[key] = html }
        lock.unlock()
        return html
    }

    /// What swift-mustache reads as a name: letters, digits and `.-_?*`, and `()` around a
    /// transform's argument.
    private static let nameCharacters = Set<Character>("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?()*")

    /// The first component of every name the template's tags look up (`strings` for
    /// `{{strings.languages}}`); nil when what it reads cannot be told from its text. Tags are
    /// read as swift-mustache reads them: the kind right after `{{`, then a name between any
    /// white space.
    static func names(in template: String) -> [String]? {
        var names: Set<String> = []
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            var tag = rest[open.upperBound...]
            guard let sigil = tag.first else { return nil }
            var closing = "}}"
            switch sigil {
            case "!", "%":
                // A comment, a pragma: to the end of the tag.
                guard let close = tag.range(of: "}}") else { return nil }
                rest = tag[close.upperBound...]
                continue
            case ">", "<", "=", "$":
                // A partial or a parent (what it reads is in another template), new delimiters,
                // a block a page may fill.
                return nil
            case "#", "^", "/", "&":
                tag = tag.dropFirst()
            case "{":
                tag = tag.dropFirst()
                closing = "}}}"
            default:
                break
            }
            tag = tag.drop(while: \.isWhitespace)
            let name = tag.prefix(while: nameCharacters.contains)
            tag = tag.dropFirst(name.count).drop(while: \.isWhitespace)
            guard tag.hasPrefix(closing) else { return nil }
            rest = tag.dropFirst(closing.count)
            // `{{.}}` is whatever is innermost, the page itself outside a section; a transform
            // reads what its function makes of it.
            guard !name.isEmpty, name != ".", !name.contains("("), !name.contains(")") else { return nil }
            if let first = name.split(separator: ".").first { names.insert(String(first)) }
        }
        return names.sorted()
    }

    /// Appends a value of a page's context to a key that tells it from any other value; false
    /// for a value of a kind a context does not hold.
    private static func append(_ value: Any, to key: inout String) -> Bool {
        switch value {
        case let text as String:
            key += "s\(text.utf8.count):"
            key += text
        case let flag as Bool:
            key += flag ? "t" : "f"
        case let keyed as any TemplateKeyed:
            let text = keyed.templateKey
            key += "k\(text.utf8.count):"
            key += text
        case let number as Int:
            key += "i\(number);"
        case let list as [[String: Any]]:
            key += "[\(list.count):"
            for element in list {
                guard append(element, to: &key) else { return false }
            }
        case let dictionary as [String: Any]:
            key += "{\(dictionary.count):"
            for name in dictionary.keys.sorted(by: { $0.utf8Precedes($1) }) {
                key += "\(name.utf8.count):"
                key += name
                guard let element = dictionary[name], append(element, to: &key) else { return false }
            }
        case let list as [Any]:
            key += "[\(list.count):"
            for element in list {
                guard append(element, to: &key) else { return false }
            }
        default:
            return false
        }
        return true
    }
}

/// A value of a page's context that one string tells from every other value of its kind, so
/// that ``SiteChrome`` keys it by that string rather than by its contents.
protocol TemplateKeyed {
    var templateKey: String { get }
}
