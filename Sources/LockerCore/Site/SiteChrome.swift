import Foundation
import LockerKit

/// The header and footer every page shows through the layout (`siteHeader` and `siteFooter`),
/// rendered once for each set of values they read rather than once a page:
/// the guides of a folder share one header, and the header and footer were a large share of each
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
    private let condition = NSCondition()
    /// Each part's renders, by the values they were rendered from.
    private var rendered: [String: [String: Render]] = [:]

    /// A render kept, or under way on some thread.
    private enum Render {
        case underway
        case done(String)
    }

    init(templates: TemplateSet) {
        self.templates = templates
        var reads: [String: [String]] = [:]
        // A page that includes the layout inside a section shows the header in that section.
        if !templates.sources.values.contains(where: Self.includesLayoutInASection) {
            for part in Self.parts where templates.sources.values.contains(where: { $0.contains(part.key) }) {
                reads[part.template] = templates.sources[part.template].flatMap(Self.names)
            }
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
        // The values' shape and their strings: the shape a skeleton is kept by, with the text.
        var key = ""
        var strings: [String] = []
        guard PageSkeletons.shape(values, key: &key, strings: &strings) else {
            return clock.time(counting: false) { templates.render(part.template, values) }
        }
        for text in strings {
            key += "\(text.utf8.count):"
            key += text
        }
        // A render another thread has under way is waited for, not done again: two pages
        // rendered at once rendered their shared header twice.
        condition.lock()
        while case .underway? = rendered[part.template]?[key] { condition.wait() }
        if case .done(let html)? = rendered[part.template]?[key] {
            condition.unlock()
            return html
        }
        let keeps = rendered[part.template, default: [:]].count < Self.capacity
        if keeps { rendered[part.template, default: [:]][key] = .underway }
        condition.unlock()
        let html = clock.time(counting: false) { templates.render(part.template, values) }
        if keeps {
            condition.lock()
            rendered[part.template]?[key] = html.map(Render.done)
            condition.unlock()
            condition.broadcast()
        }
        return html
    }

    /// What swift-mustache reads as a name: letters, digits and `.-_?*`, and `()` around a
    /// transform's argument.
    private static let nameCharacters = Set<Character>(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?()*")

    /// A tag of a template: its kind (`#`, `^`, `/`, `&`, `{`, `>`, `<`, `$`; nil for a
    /// variable) and its name.
    struct Tag: Equatable {
        var kind: Character?
        var name: String
    }

    /// The tags of a template, comments and pragmas left out, read as swift-mustache reads
    /// them: the kind right after `{{`, then a name between any white space. Nil when a tag is
    /// not whole, or the delimiters change (what follows is not read as `{{…}}`).
    static func tags(in template: String) -> [Tag]? {
        // Every template is read here as a site starts (``PageSkeletons/canStandFor(_:)``): an
        // ASCII one as bytes, each character a byte, several times faster than by characters
        // and Foundation's search. That time was a rebuild's, on its way to its pages.
        let bytes = Array(template.utf8)
        return bytes.contains { $0 >= 0x80 } ? characterTags(in: template) : asciiTags(in: bytes)
    }

    /// ``tags(in:)`` read character by character, as swift-mustache reads a template.
    static func characterTags(in template: String) -> [Tag]? {
        var tags: [Tag] = []
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            var tag = rest[open.upperBound...]
            guard let sigil = tag.first else { return nil }
            var kind: Character? = sigil
            var closing = "}}"
            switch sigil {
            case "!", "%":
                // A comment, a pragma: to the end of the tag.
                guard let close = tag.range(of: "}}") else { return nil }
                rest = tag[close.upperBound...]
                continue
            case "=":
                return nil
            case ">", "<", "$":
                // A partial, a parent, a block: named up to the end of the tag.
                guard let close = tag.range(of: "}}") else { return nil }
                // Trimmed by `Character`, not Foundation's `trimmingCharacters`, whose first use in a
                // process (its generic code's metadata) was a cost every build paid.
                var name = tag.dropFirst()[..<close.lowerBound].drop(while: \.isWhitespace)
                while name.last?.isWhitespace == true { name = name.dropLast() }
                tags.append(Tag(kind: sigil, name: String(name)))
                rest = tag[close.upperBound...]
                continue
            case "#", "^", "/", "&":
                tag = tag.dropFirst()
            case "{":
                tag = tag.dropFirst()
                closing = "}}}"
            default:
                kind = nil
            }
            tag = tag.drop(while: \.isWhitespace)
            let name = tag.prefix(while: nameCharacters.contains)
            tag = tag.dropFirst(name.count).drop(while: \.isWhitespace)
            guard tag.hasPrefix(closing) else { return nil }
            rest = tag.dropFirst(closing.count)
            tags.append(Tag(kind: kind, name: String(name)))
        }
        return tags
    }

    /// ``tags(in:)`` of an ASCII template's bytes, read the same way: the white space around a
    /// name is ASCII's (a tab, a line break, a vertical tab, a form feed, a carriage return, a
    /// space), as `Character.isWhitespace` and `whitespacesAndNewlines` have it there.
    static func asciiTags(in bytes: [UInt8]) -> [Tag]? {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        /// Where `pattern` next starts at or after `start`.
        func find(_ pattern: [UInt8], from start: Int) -> Int? {
            var index = start
            while index + pattern.count <= bytes.count {
                if bytes[index] == pattern[0], bytes[index..<index + pattern.count].elementsEqual(pattern) {
                    return index
                }
                index += 1
            }
            return nil
        }
        let (open, close, closeTriple) = (Array("{{".utf8), Array("}}".utf8), Array("}}}".utf8))
        var tags: [Tag] = []
        var rest = 0
        while let start = find(open, from: rest) {
            var tag = start + 2
            guard tag < bytes.count else { return nil }
            let sigil = bytes[tag]
            var kind: Character? = Character(Unicode.Scalar(sigil))
            var closing = close
            switch sigil {
            case UInt8(ascii: "!"), UInt8(ascii: "%"):
                guard let end = find(close, from: tag) else { return nil }
                rest = end + 2
                continue
            case UInt8(ascii: "="):
                return nil
            case UInt8(ascii: ">"), UInt8(ascii: "<"), UInt8(ascii: "$"):
                guard let end = find(close, from: tag) else { return nil }
                var (first, last) = (tag + 1, end)
                while first < last, isSpace(bytes[first]) { first += 1 }
                while last > first, isSpace(bytes[last - 1]) { last -= 1 }
                tags.append(Tag(kind: kind, name: String(decoding: bytes[first..<last], as: UTF8.self)))
                rest = end + 2
                continue
            case UInt8(ascii: "#"), UInt8(ascii: "^"), UInt8(ascii: "/"), UInt8(ascii: "&"):
                tag += 1
            case UInt8(ascii: "{"):
                tag += 1
                closing = closeTriple
            default:
                kind = nil
            }
            while tag < bytes.count, isSpace(bytes[tag]) { tag += 1 }
            let nameStart = tag
            while tag < bytes.count, nameBytes[Int(bytes[tag])] { tag += 1 }
            let name = String(decoding: bytes[nameStart..<tag], as: UTF8.self)
            while tag < bytes.count, isSpace(bytes[tag]) { tag += 1 }
            guard tag + closing.count <= bytes.count, bytes[tag..<tag + closing.count].elementsEqual(closing) else {
                return nil
            }
            rest = tag + closing.count
            tags.append(Tag(kind: kind, name: name))
        }
        return tags
    }

    /// ``nameCharacters`` by byte: none past ASCII.
    private static let nameBytes: [Bool] = (0..<256).map { byte in
        byte < 0x80 && nameCharacters.contains(Character(Unicode.Scalar(UInt8(byte))))
    }

    /// The first component of every name the template's tags look up (`strings` for
    /// `{{strings.languages}}`); nil when what it reads cannot be told from its text.
    static func names(in template: String) -> [String]? {
        guard let tags = tags(in: template) else { return nil }
        var names: Set<String> = []
        for tag in tags {
            // A partial or a parent reads what another template reads; a block, what a page
            // puts in it.
            if let kind = tag.kind, [">", "<", "$"].contains(kind) { return nil }
            // A name of dots alone (`{{.}}`) is whatever is innermost, the page itself outside
            // a section; a transform reads what its function makes of it.
            guard let first = tag.name.split(separator: ".").first, !tag.name.contains("("), !tag.name.contains(")")
            else { return nil }
            names.insert(String(first))
        }
        return names.sorted()
    }

    /// Whether the template includes the layout inside a section (`{{#document}}{{<layout}}`):
    /// there the header and footer see the section's values before the page's, which a render
    /// of their own would not. True when the template cannot be read.
    static func includesLayoutInASection(_ template: String) -> Bool {
        guard template.contains("layout") else { return false }
        guard let tags = tags(in: template) else { return true }
        var open: [Character] = []
        for tag in tags {
            switch tag.kind {
            case "#", "^", "$", "<":
                if tag.kind == "<", tag.name == "layout", open.contains(where: { $0 == "#" || $0 == "^" }) {
                    return true
                }
                if let kind = tag.kind { open.append(kind) }
            case "/":
                _ = open.popLast()
            default:
                break
            }
        }
        return false
    }
}
