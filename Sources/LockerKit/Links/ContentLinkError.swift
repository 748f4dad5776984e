/// Why a text is not a ``ContentLink`` of a bundle (``ContentLinkFormat/link(from:)``).
public enum ContentLinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing but white space.
    case empty
    /// Longer than ``ContentLinkFormat/maximumLength`` bytes.
    case tooLong
    /// Not `<scheme>://…`, or a scheme that is neither the bundle's deep-link scheme nor http(s).
    case unknownScheme(String)
    /// An http(s) URL that is not under the bundle's site URL (or the bundle has none).
    case otherSite
    /// The app form's host is not `content`.
    case unknownHost(String)
    /// The path has too few or too many segments, or an empty one.
    case malformedPath(String)
    /// A kind (app form) or folder (web form) the schema does not define.
    case unknownKind(String)
    /// The app form's document is not a lowercase or uppercase UUID.
    case malformedUUID(String)
    /// A part other than `section`, `item` or `card`, or one the kind does not have.
    case unknownPart(String)
    /// A `%` escape that is not one, or that does not decode to UTF-8.
    case malformedEncoding(String)
    /// A `locale` that is not a language tag.
    case malformedLocale(String)

    public var description: String {
        switch self {
        case .empty: "the link is empty"
        case .tooLong: "the link is longer than \(ContentLinkFormat.maximumLength) bytes"
        case .unknownScheme(let scheme): "'\(scheme)' is not this content's link scheme"
        case .otherSite: "the URL is not on this content's site"
        case .unknownHost(let host): "'\(host)' is not 'content'"
        case .malformedPath(let path): "'\(path)' is not <kind>/<document>[/<part>/<id>]"
        case .unknownKind(let kind): "'\(kind)' is not a kind of document"
        case .malformedUUID(let uuid): "'\(uuid)' is not a UUID"
        case .unknownPart(let part): "'\(part)' is not a part of that kind of document"
        case .malformedEncoding(let text): "'\(text)' has a bad % escape"
        case .malformedLocale(let locale): "'\(locale)' is not a language tag"
        }
    }
}
