import Foundation

/// The written forms of a bundle's ``ContentLink``s, from its manifest's `deepLinkScheme` and
/// `siteURL`:
///
/// ```
/// <scheme>://content/<kind>/<uuid>[/section/<anchor>?locale=<locale> | /item/<id> | /card/<id>]
/// <siteURL>[<locale>/]<guides|checklists|decks>/<id>/[#<anchor> | #item-<id> | #card-<id>]
/// ```
///
/// The web form's locale folder is left out for the default locale, as the site does; its
/// fragment is the element ID the page gives the section, item or card. IDs and anchors are
/// percent-encoded (UTF-8) but for letters, digits and `-._~`.
public struct ContentLinkFormat: Hashable, Sendable {
    /// The app's URL scheme, lowercase; `nil` when the bundle has none (no app form).
    public let scheme: String?
    /// The site's address, ending in `/`; `nil` when the bundle has none (no web form).
    public let siteURL: String?
    public let defaultLocale: String
    public let locales: [String]

    /// The longest text ``link(from:)`` reads, in UTF-8 bytes.
    public static let maximumLength = 4096

    public init(scheme: String?, siteURL: String?, defaultLocale: String, locales: [String]) {
        // http and https are the web form's: never an app's scheme.
        self.scheme = scheme.map { $0.lowercased() }.flatMap { $0 == "http" || $0 == "https" ? nil : $0 }
        self.siteURL = siteURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        self.defaultLocale = defaultLocale
        self.locales = locales
    }

    /// The forms of the bundle with this manifest.
    public init(manifest: Manifest) {
        self.init(
            scheme: manifest.deepLinkScheme, siteURL: manifest.siteURL, defaultLocale: manifest.defaultLocale,
            locales: manifest.locales)
    }

    // MARK: - Writing

    /// The app form of the link to `target`; `nil` without a scheme.
    public func appURL(for target: ContentTarget) -> String? {
        guard let scheme else { return nil }
        var url = "\(scheme)://content/\(target.kind.rawValue)/\(target.uuid)"
        if let part = target.part {
            url += "/\(part.name)/\(Self.escape(part.value))"
            if case .section = part { url += "?locale=\(Self.escape(target.locale))" }
        }
        return url
    }

    /// The web form of the link to `target`, the page of its locale; `nil` without a site URL.
    public func webURL(for target: ContentTarget) -> String? {
        guard let siteURL else { return nil }
        var url = siteURL
        if target.locale != defaultLocale { url += Self.escape(target.locale) + "/" }
        // An ID's `/`s are the site's folders (`guides/seamanship/knots/`), not escaped.
        let path = target.id.split(separator: "/", omittingEmptySubsequences: false).map { Self.escape(String($0)) }
        url += "\(Self.folder(of: target.kind))/\(path.joined(separator: "/"))/"
        if let part = target.part { url += "#" + Self.escape(Self.elementID(of: part)) }
        return url
    }

    /// The ID of the element a part is on its page, as the site writes it: a heading's anchor,
    /// `item-<id>` for a checklist item, `card-<id>` for a card.
    public static func elementID(of part: ContentLink.Part) -> String {
        switch part {
        case .section(let anchor): anchor
        case .item(let id): itemPrefix + id
        case .card(let id): cardPrefix + id
        }
    }

    private static let itemPrefix = "item-"
    private static let cardPrefix = "card-"

    /// The site's folder of a kind's pages.
    public static func folder(of kind: ContentKind) -> String {
        switch kind {
        case .checklist: "checklists"
        case .deck: "decks"
        default: "guides"
        }
    }

    // MARK: - Reading

    /// The link a text spells, in either form.
    public func link(from text: String) throws(ContentLinkError) -> ContentLink {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .empty }
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong }
        guard let separator = text.range(of: "://") else { throw .unknownScheme(String(text.prefix(32))) }
        let linkScheme = text[..<separator.lowerBound].lowercased()
        var rest = text[separator.upperBound...]
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        if let scheme, linkScheme == scheme {
            return try appLink(rest, query: query, fragment: fragment)
        }
        if linkScheme == "https" || linkScheme == "http" {
            return try webLink(rest, scheme: Substring(linkScheme), fragment: fragment)
        }
        throw .unknownScheme(String(linkScheme.prefix(32)))
    }

    private func appLink(_ rest: Substring, query: Substring?, fragment: Substring?) throws(ContentLinkError)
        -> ContentLink
    {
        let segments = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard let host = segments.first else { throw .malformedPath(String(rest)) }
        guard host.lowercased() == "content" else { throw .unknownHost(String(host.prefix(64))) }
        let path = segments.dropFirst()
        guard fragment == nil, path.count == 2 || path.count == 4, !path.contains(where: \.isEmpty) else {
            throw .malformedPath(String(rest.prefix(256)))
        }
        let kind = try Self.kind(named: String(path[path.startIndex]))
        let uuid = String(path[path.startIndex + 1])
        guard Self.isUUID(uuid) else { throw .malformedUUID(String(uuid.prefix(64))) }
        var link = ContentLink(kind: kind, document: .uuid(uuid.lowercased()))
        if path.count == 4 {
            let value = try Self.unescape(path[path.startIndex + 3])
            let part: ContentLink.Part =
                switch path[path.startIndex + 2] {
                case "section": .section(anchor: value)
                case "item": .item(id: value)
                case "card": .card(id: value)
                case let other: throw .unknownPart(String(other.prefix(64)))
                }
            guard part.belongs(to: kind) else { throw .unknownPart(part.name) }
            link.part = part
        }
        for pair in (query ?? "").split(separator: "&") {
            let (key, value) =
                pair.firstIndex(of: "=").map { (pair[..<$0], pair[pair.index(after: $0)...]) }
                ?? (pair, "")
            guard key == "locale" else { continue }
            let locale = try Self.unescape(value)
            guard Self.isLanguageTag(locale) else { throw .malformedLocale(String(locale.prefix(64))) }
            link.locale = locale
        }
        return link
    }

    private func webLink(_ rest: Substring, scheme linkScheme: Substring, fragment: Substring?) throws(ContentLinkError)
        -> ContentLink
    {
        guard let siteURL, let separator = siteURL.range(of: "://") else { throw .otherSite }
        let site = siteURL[separator.upperBound...]
        let siteHost = site.prefix { $0 != "/" }
        let host = rest.prefix { $0 != "/" }
        // Without case, and without the scheme's own port (`:443` for https, `:80` for http).
        func plain(_ host: Substring, scheme: Substring) -> String {
            let host = host.lowercased()
            let port = scheme.lowercased() == "https" ? ":443" : ":80"
            return host.hasSuffix(port) ? String(host.dropLast(port.count)) : host
        }
        guard plain(host, scheme: linkScheme) == plain(siteHost, scheme: siteURL[..<separator.lowerBound]) else {
            throw .otherSite
        }
        let path = rest[host.endIndex...]
        let sitePath = site[siteHost.endIndex...]
        guard path.hasPrefix(sitePath) else { throw .otherSite }
        var segments = path.dropFirst(sitePath.count).split(separator: "/", omittingEmptySubsequences: false)
        if segments.last == "" || segments.last == "index.html" { segments.removeLast() }
        var locale = defaultLocale
        if let first = segments.first, first != Substring(defaultLocale), locales.contains(String(first)) {
            locale = String(first)
            segments.removeFirst()
        }
        // An ID may have folders of its own (`seamanship/knots`): every segment after the kind's.
        guard segments.count >= 2, !segments.contains(where: \.isEmpty) else {
            throw .malformedPath(String(path.prefix(256)))
        }
        let kind: ContentKind =
            switch segments[0] {
            case "guides": .guide
            case "checklists": .checklist
            case "decks": .deck
            case let other: throw .unknownKind(String(other.prefix(64)))
            }
        let id = try Self.unescape(segments.dropFirst().joined(separator: "/")[...])
        var link = ContentLink(kind: kind, document: .id(id), locale: locale)
        if let fragment, !fragment.isEmpty {
            let anchor = try Self.unescape(fragment)
            link.part =
                if kind == .checklist, anchor.hasPrefix(Self.itemPrefix) {
                    .item(id: String(anchor.dropFirst(Self.itemPrefix.count)))
                } else if kind == .deck, anchor.hasPrefix(Self.cardPrefix) {
                    .card(id: String(anchor.dropFirst(Self.cardPrefix.count)))
                } else if kind == .deck {
                    throw .unknownPart(String(anchor.prefix(64)))
                } else {
                    .section(anchor: anchor)
                }
        }
        return link
    }

    // MARK: - Pieces

    private static func kind(named name: String) throws(ContentLinkError) -> ContentKind {
        let kind = ContentKind(rawValue: name)
        guard ContentKind.known.contains(kind) else { throw .unknownKind(String(name.prefix(64))) }
        return kind
    }

    /// Letters, digits and `-._~` as they are; every other byte of the UTF-8 as `%XX`.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%"
                result.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte >> 4)]))
                result.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte & 0x0F)]))
            }
        }
        return result
    }

    /// Uppercase, as RFC 3986 recommends for escapes.
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// The text with its `%XX` escapes decoded; it must be UTF-8 and hold no control character.
    static func unescape(_ text: Substring) throws(ContentLinkError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .malformedEncoding(String(text.prefix(64)))
            }
            bytes.append(high << 4 | low)
        }
        // Not `String(validating:as:)`: that is macOS 15 / iOS 18, and LockerKit supports 14 / 17.
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard decoded.utf8.elementsEqual(bytes),
            !decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { throw .malformedEncoding(String(text.prefix(64))) }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `8-4-4-4-12` hexadecimal digits.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if hexValue(byte) == nil {
                return false
            }
        }
        return true
    }

    /// Letters, digits and `-`, 1 to 35 of them, starting with a letter (`en`, `pt-BR`).
    static func isLanguageTag(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
            text.unicodeScalars.count <= 35
        else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-")
        }
    }
}
