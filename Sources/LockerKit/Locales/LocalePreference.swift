/// Which language version of something to use for a reader of one locale: the version in that
/// locale, else the default locale's, else the first in the order of the vault's locales (then,
/// for a locale the vault does not list, by its tag).
///
/// The one rule for every choice between translations: the bundle's indexes, the site's pages
/// and links, a link resolved to one of several translated notes, the deck header a locale uses,
/// the IDs a translated checklist adopts, and ``ContentBundle`` in the apps. Writer and reader
/// agree by construction.
public struct LocalePreference: Sendable, Hashable {
    /// Every locale of the vault, in its order.
    public var locales: [String]
    /// The locale a reader falls back to first.
    public var defaultLocale: String

    public init(locales: [String], defaultLocale: String) {
        self.locales = locales
        self.defaultLocale = defaultLocale
    }

    /// How good a version in `locale` is for a reader of `wanted`: lower is better. Ties
    /// between versions in one locale are left to the caller's order.
    public func rank(_ locale: String, for wanted: String) -> Rank {
        if locale == wanted { return Rank(step: 0, tag: "") }
        if locale == defaultLocale { return Rank(step: 1, tag: "") }
        return Rank(step: 2 + (locales.firstIndex(of: locale) ?? locales.count), tag: locale)
    }

    /// The version to use for a reader of `locale`; the first of the best when several are in
    /// one locale; nil when there are none.
    public func preferred<Version>(
        _ versions: some Sequence<Version>, in locale: String, localeOf: (Version) -> String
    ) -> Version? {
        versions.min { rank(localeOf($0), for: locale) < rank(localeOf($1), for: locale) }
    }

    /// `present` in the vault's order of locales, then any others by tag.
    public func ordered(_ present: Set<String>) -> [String] {
        locales.filter(present.contains) + present.subtracting(locales).sorted()
    }

    /// A place in the order of preference.
    public struct Rank: Sendable, Hashable, Comparable {
        var step: Int
        var tag: String

        public static func < (lhs: Rank, rhs: Rank) -> Bool {
            lhs.step != rhs.step ? lhs.step < rhs.step : lhs.tag < rhs.tag
        }
    }
}
