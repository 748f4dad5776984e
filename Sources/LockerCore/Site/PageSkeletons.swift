import Foundation

/// Renders the pages of one shape from one render of their template: a skeleton.
///
/// A page's HTML depends on the strings of its context only through their text, wherever a tag
/// prints them. Which sections show, how often a list repeats and which names are there follow
/// from the rest of the context: its flags, numbers, lists' lengths and objects' names, its
/// shape. Two pages of one shape get the same output with each string's text in its place. So
/// a template is rendered once for each shape, with a marker in place of every string, and each
/// page of that shape is the skeleton with its own strings put in, escaped where the marker came
/// out escaped. Mustache looks each tag's name up through the context with several dynamic
/// casts for every tag; a page from a skeleton is a copy.
///
/// A marker is `U+FDD0`, the string's number, `&'`, `U+FDD1`: two noncharacters, which Unicode
/// keeps for a program's own use, around an ampersand and an apostrophe, which escaping turns
/// into `&amp;&#39;`. A marker that comes out otherwise was printed some other way: inside a
/// list or an object that `{{list}}` prints as Swift writes it, quoting its strings and putting
/// a backslash before an apostrophe. Then there is no skeleton of that shape, and its pages are
/// rendered as they are. An empty string stays empty, and the marker of a string that ends in a
/// line break ends in one: a partial's indentation goes before output that is not empty, after a
/// line break.
///
/// Where a skeleton could not stand for its pages, every page is rendered as it is. That is a
/// template that transforms a value (`{{uppercased(title)}}` of a marker is not of the text),
/// picks a partial or a parent by a value (`{{>*name}}`, `{{<*name}}`), sets a content type
/// (`{{%…}}`), changes its delimiters, has a tag that is not whole or holds a marker's
/// noncharacter in its own text; a context with a value of a kind ``TemplateValue`` does not
/// know; and a string that ends in a carriage return or is a line feed alone, which could make
/// one character with the text next to it (`\r\n`), as a marker would not.
final class PageSkeletons: @unchecked Sendable {
    /// How many shapes are kept for one template: past that, pages of new shapes are rendered
    /// as they are, without a skeleton.
    static let capacity = 512
    /// The most strings a page can have to be rendered from a skeleton: a page with more (the
    /// index of a large vault) is one of a kind, and its skeleton would only be thrown away.
    static let maximumStrings = 4096

    /// A template's output with the markers taken out: `parts` around `slots`.
    struct Skeleton {
        var parts: [String]
        var slots: [Slot]
    }

    /// Where a string goes in a skeleton.
    struct Slot: Equatable {
        /// The string's number, in the order ``shape(_:key:strings:)`` finds them.
        var string: Int
        var escaped: Bool
    }

    /// Whether pages are rendered from skeletons: the templates allow it and the build wants it.
    let enabled: Bool
    private let clock: TemplateClock
    private let lock = NSLock()
    /// Each template's skeletons, by the shape of the context they were rendered from; nil for
    /// a shape that has none (its markers did not come out as markers).
    private var skeletons: [String: [String: Skeleton?]] = [:]

    init(sources: [String: String], enabled: Bool = true, clock: TemplateClock) {
        self.enabled = enabled && Self.canStandFor(sources)
        self.clock = clock
    }

    /// The HTML of `template` for `context`, which `render` renders as it is; nil when `render`
    /// gives nil (there is no such template).
    func render(_ template: String, _ context: [String: Any], with render: ([String: Any]) -> String?) -> String? {
        guard enabled else { return render(context) }
        var key = ""
        var strings: [String] = []
        guard Self.shape(context, key: &key, strings: &strings), strings.count <= Self.maximumStrings else {
            return render(context)
        }
        lock.lock()
        let known = skeletons[template]?[key]
        let full = skeletons[template]?.count ?? 0 >= Self.capacity
        lock.unlock()
        switch known {
        case .some(.some(let skeleton)):
            guard let html = Self.fill(skeleton, with: strings) else { return render(context) }
            clock.countSkeletonPage(made: false)
            return html
        case .some(.none):
            return render(context)
        case .none:
            if full { return render(context) }
        }

        var next = 0
        guard let marked = render(Self.marked(context, next: &next)) else { return nil }
        let skeleton = Self.skeleton(of: marked, strings: strings)
        lock.lock()
        if skeletons[template, default: [:]].count < Self.capacity { skeletons[template, default: [:]][key] = skeleton }
        lock.unlock()
        guard let skeleton, let html = Self.fill(skeleton, with: strings) else { return render(context) }
        clock.countSkeletonPage(made: true)
        return html
    }

    // MARK: Templates

    /// The noncharacters around a marker, `U+FDD0` and `U+FDD1`, in UTF-8 (Swift's literals
    /// do not take noncharacters).
    static let markerStart: [UInt8] = [0xEF, 0xB7, 0x90]
    static let markerEnd: [UInt8] = [0xEF, 0xB7, 0x91]
    private static let markerStartText = String(decoding: markerStart, as: UTF8.self)
    private static let markerEndText = String(decoding: markerEnd, as: UTF8.self)

    /// Whether a skeleton stands for its pages with these templates (see the type's summary).
    ///
    /// Mustache finds its tags by characters; here the text is read by bytes, at every `{{`,
    /// even one inside what another `{{` would start, up to the next `}}`. That finds every tag
    /// Mustache would and perhaps more (a `{` joined to the character before it, a tag inside a
    /// comment), so what could be a transform, a dynamic name, a pragma or a change of
    /// delimiters is taken to be one: a `(` or `)` anywhere in a tag, a `*` anywhere in a
    /// partial or a parent (Mustache skips any white space before the name, not only ASCII's),
    /// a tag that starts with `=` or `%`.
    static func canStandFor(_ sources: [String: String]) -> Bool {
        sources.values.allSatisfy { text in
            guard !text.containsBytes(markerStartText), SiteChrome.tags(in: text) != nil
            else { return false }
            return tagContents(text).allSatisfy { tag in
                let sigil = tag.first { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
                if let sigil, [UInt8(ascii: "="), UInt8(ascii: "%")].contains(sigil) { return false }
                if let sigil, [UInt8(ascii: ">"), UInt8(ascii: "<")].contains(sigil), tag.contains(UInt8(ascii: "*")) {
                    return false
                }
                return !tag.contains(UInt8(ascii: "(")) && !tag.contains(UInt8(ascii: ")"))
            }
        }
    }

    /// The bytes from each `{{` (every one: `{{{` holds two) to the next `}}`, or to the end.
    static func tagContents(_ text: String) -> [ArraySlice<UInt8>] {
        let bytes = Array(text.utf8)
        var contents: [ArraySlice<UInt8>] = []
        var index = 0
        while index + 1 < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "{"), bytes[index + 1] == UInt8(ascii: "{") else { continue }
            var end = index + 2
            while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "}") && bytes[end + 1] == UInt8(ascii: "}")) {
                end += 1
            }
            // `index + 2 <= end <= bytes.count`: the loop stops short of the last byte.
            contents.append(bytes[(index + 2)..<end])
        }
        return contents
    }

    // MARK: Shapes

    /// Appends the shape of `value` to `key`, and its strings to `strings` in the order
    /// ``marked(_:next:)`` numbers them; false for a value of a kind not known.
    static func shape(_ value: Any, key: inout String, strings: inout [String]) -> Bool {
        switch TemplateValue(value) {
        case .text(let text):
            if text.isEmpty {
                key += "e"
            } else {
                // A carriage return at the end, or a line feed alone, could join the text
                // beside it into one character (`\r\n`), which a marker would not.
                guard text.utf8.last != UInt8(ascii: "\r"), !text.utf8.elementsEqual([UInt8(ascii: "\n")]) else {
                    return false
                }
                key += endsInLineBreak(text) ? "n" : "s"
                strings.append(text)
            }
        case .flag(let flag):
            key += flag ? "t" : "f"
        case .number(let number):
            key += "i\(number);"
        case .strings(let words):
            // The same words for every page in the locale: printed into the skeleton.
            key += "w\(words.locale.utf8.count):"
            key += words.locale
        case .object(let object):
            // In one order for all pages: two dictionaries of the same names list them in
            // orders of their own.
            key += "{\(object.count):"
            for name in TemplateValue.names(of: object) {
                key += "\(name.utf8.count):"
                key += name
                guard let element = object[name], shape(element, key: &key, strings: &strings) else { return false }
            }
        case .objects(let list):
            return shape(list: list, key: &key, strings: &strings)
        case .list(let list):
            return shape(list: list, key: &key, strings: &strings)
        case .texts(let list):
            return shape(list: list, key: &key, strings: &strings)
        case nil:
            return false
        }
        return true
    }

    private static func shape<Element>(list: [Element], key: inout String, strings: inout [String]) -> Bool {
        key += "[\(list.count):"
        return list.allSatisfy { shape($0, key: &key, strings: &strings) }
    }

    /// The context with a marker in place of each string that is not empty, numbered from
    /// `next` as ``shape(_:key:strings:)`` finds them.
    static func marked(_ object: [String: Any], next: inout Int) -> [String: Any] {
        var marked: [String: Any] = [:]
        marked.reserveCapacity(object.count)
        for name in TemplateValue.names(of: object) {
            guard let value = object[name] else { continue }
            marked[name] = self.marked(value: value, next: &next)
        }
        return marked
    }

    private static func marked(value: Any, next: inout Int) -> Any {
        switch TemplateValue(value) {
        case .text(let text):
            return marked(text: text, next: &next)
        case .object(let object):
            return marked(object, next: &next)
        case .objects(let list):
            return list.map { marked($0, next: &next) }
        case .list(let list):
            return list.map { marked(value: $0, next: &next) }
        case .texts(let list):
            return list.map { marked(text: $0, next: &next) }
        case .flag, .number, .strings, nil:
            return value
        }
    }

    private static func marked(text: String, next: inout Int) -> String {
        guard !text.isEmpty else { return text }
        defer { next += 1 }
        var marker = markerStart + Array("\(next)&'".utf8) + markerEnd
        if endsInLineBreak(text) { marker.append(UInt8(ascii: "\n")) }
        return String(decoding: marker, as: UTF8.self)
    }

    /// Whether the text's last character is a line feed (`text.last == "\n"`, which a partial's
    /// indentation looks at), told from its bytes: a line feed is a character of its own unless
    /// a carriage return comes before it.
    static func endsInLineBreak(_ text: String) -> Bool {
        let bytes = text.utf8
        guard bytes.last == UInt8(ascii: "\n") else { return false }
        return bytes.dropLast().last != UInt8(ascii: "\r")
    }

    // MARK: Skeletons

    /// The skeleton of a template's output for a marked context; nil when a marker is not whole
    /// or names no string.
    static func skeleton(of marked: String, strings: [String]) -> Skeleton? {
        let bytes = Array(marked.utf8)
        let start = markerStart
        let end = markerEnd
        let escapedMiddle = Array("&amp;&#39;".utf8)
        let rawMiddle = Array("&'".utf8)
        var parts: [String] = []
        var slots: [Slot] = []
        var partStart = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] == start[0], bytes[index...].starts(with: start) else {
                index += 1
                continue
            }
            var cursor = index + start.count
            var number = 0
            var digits = 0
            while cursor < bytes.count, digits < 9, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[cursor]) {
                number = number * 10 + Int(bytes[cursor] - UInt8(ascii: "0"))
                cursor += 1
                digits += 1
            }
            guard digits > 0, number < strings.count else { return nil }
            let escaped = bytes[cursor...].starts(with: escapedMiddle)
            if escaped {
                cursor += escapedMiddle.count
            } else if bytes[cursor...].starts(with: rawMiddle) {
                cursor += rawMiddle.count
            } else {
                return nil
            }
            guard bytes[cursor...].starts(with: end) else { return nil }
            cursor += end.count
            if endsInLineBreak(strings[number]) {
                guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\n") else { return nil }
                cursor += 1
            }
            parts.append(String(decoding: bytes[partStart..<index], as: UTF8.self))
            slots.append(Slot(string: number, escaped: escaped))
            index = cursor
            partStart = cursor
        }
        parts.append(String(decoding: bytes[partStart...], as: UTF8.self))
        // What is left of a marker that came out some other way.
        guard !parts.contains(where: { $0.containsBytes(markerEndText) }) else { return nil }
        return Skeleton(parts: parts, slots: slots)
    }

    /// A page from its skeleton and its strings; nil when a slot names no string.
    static func fill(_ skeleton: Skeleton, with strings: [String]) -> String? {
        var html = ""
        html.reserveCapacity(
            skeleton.parts.reduce(0) { $0 + $1.utf8.count }
                + skeleton.slots.reduce(0) {
                    $0 + (strings.indices.contains($1.string) ? strings[$1.string].utf8.count : 0)
                })
        let escaping = PageEscaping()
        for (part, slot) in zip(skeleton.parts, skeleton.slots) {
            guard strings.indices.contains(slot.string) else { return nil }
            html += part
            html += slot.escaped ? escaping.escapeText(strings[slot.string]) : strings[slot.string]
        }
        html += skeleton.parts.last ?? ""
        return html
    }
}
