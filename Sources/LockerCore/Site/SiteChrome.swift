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
/// whose reads cannot be known from its text (it includes a partial, calls a transform, or
/// changes its delimiters) is rendered for each page, with the whole context.
final class SiteChrome: @unchecked Sendable {
    /// A part of the chrome: the template, and the key the layout shows it under.
    struct Part: Sendable {
        var template: String
        var key: String
    }

    static let parts = [Part(template: "header", key: "siteHeader"), Part(template: "footer", key: "siteFooter")]

    private let templates: TemplateSet
    /// The names each part's template reads, nil when they cannot be known.
    private let reads: [String: [String]]
    private let lock = NSLock()
    private var rendered: [String: String] = [:]

    init(templates: TemplateSet) {
        self.templates = templates
        var reads: [String: [String]] = [:]
        for part in Self.parts {
            reads[part.template] = templates.sources[part.template].flatMap(Self.names)
        }
        self.reads = reads
    }

    /// The part's HTML for a page whose context is `context`; nil when there is no template of
    /// that name.
    func html(_ part: Part, context: [String: Any], clock: TemplateClock) -> String? {
        guard let names = reads[part.template] else {
            return clock.time { templates.render(part.template, context) }
        }
        var values: [String: Any] = [:]
        for name in names {
            if let value = context[name] { values[name] = value }
        }
        var key = part.template + "\u{0}"
        guard Self.append(values, to: &key) else {
            return clock.time { templates.render(part.template, values) }
        }
        lock.lock()
        let known = rendered[key]
        lock.unlock()
        if let known { return known }
        guard let html = clock.time({ templates.render(part.template, values) }) else { return nil }
        lock.lock()
        rendered[key] = html
        lock.unlock()
        return html
    }

    /// The first component of every name the template's tags look up (`strings` for
    /// `{{strings.languages}}`); nil when what it reads cannot be told from its text.
    static func names(in template: String) -> [String]? {
        var names: Set<String> = []
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.range(of: "}}") else { return nil }
            var tag = afterOpen[..<close.lowerBound].trimmingCharacters(in: .whitespaces)[...]
            rest = afterOpen[close.upperBound...]
            guard let sigil = tag.first else { continue }
            switch sigil {
            case "!", "%":
                // A comment, a pragma.
                continue
            case ">", "<", "=", "$":
                // A partial or a parent (what it reads is in another template), new delimiters,
                // a block another template may fill.
                return nil
            case "#", "^", "/", "&", "{":
                tag = tag.dropFirst()
            default:
                break
            }
            let name = tag.trimmingCharacters(in: CharacterSet(charactersIn: " }"))
            // `{{.}}` reads the section's own value, which the names around it hold.
            if name == "." { continue }
            guard !name.isEmpty, !name.contains("("), !name.contains(" ") else { return nil }
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
