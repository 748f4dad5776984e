import LockerKit

/// Finds landing pages whose URL the site has for something else, so that one page would
/// silently replace the other or get the other's cache headers:
/// - an ID whose first folder is a kind's index (`guides`), the assets, the search index
///   (`pagefind`), a file beside the pages (`robots.txt`), a locale's folder, or a headline
///   variant of the root page (`b`);
/// - a first folder that starts with a kind's index, the assets or the search index
///   (`guides-app`): a host's `/guides/*` rule matches it too (Netlify reads it as `/guides`
///   and anything after);
/// - an ID that is a headline variant of another page (`about/b` beside a page `about` with two
///   headlines);
/// - a first folder spelt in other case than another page's in the same locale (`About/team`
///   beside `about`): one folder on macOS and on Netlify, two on Cloudflare.
///
/// Two pages whose whole IDs differ only in case are `id.duplicate` (``Compiler``).
struct LandingPageIDChecker {
    var locales: [String]
    var defaultLocale: String

    /// The root page comes first in `pages`, sorted as the site orders them; `notes` hold every
    /// page's note, for the position of its ID.
    func check(_ pages: [LandingPage], notes: [ParsedNote]) -> [Diagnostic] {
        guard let root = pages.first else { return [] }
        var reserved: [String: String] = [:]
        var reservedPrefixes: [String: String] = [:]
        for kind in ContentKind.known {
            let folder = ContentLinkFormat.folder(of: kind)
            reserved[folder] = "the index of \(folder)"
            reservedPrefixes[folder] = "the index of \(folder) (`/\(folder)/*`)"
        }
        reservedPrefixes[SiteBuilder.assetsFolder] =
            "the site's images and style sheet (`/\(SiteBuilder.assetsFolder)/*`)"
        reservedPrefixes[SiteBuilder.searchFolder] =
            "the search index Pagefind writes (`/\(SiteBuilder.searchFolder)/*`)"
        for file in SiteBuilder.filesBesidePages { reserved[file] = "the site's \(file)" }
        // The default locale is at the root: it has no folder.
        for locale in locales where locale != defaultLocale {
            reserved[locale.lowercased()] = "the site in '\(locale)'"
        }
        // How many headlines each page has, by its locale and ID: from the second on, each is a
        // folder below the page (the root page's at the root of its locale).
        var headlines: [String: Int] = [:]
        for page in pages {
            let key = page.locale + "\u{0}" + page.id.lowercased()
            headlines[key] = max(headlines[key] ?? 0, page.hero.headlines.count)
        }
        let rootHeadlines = pages.filter { $0.id == root.id }.map(\.hero.headlines.count).max() ?? 0
        for variant in 1..<max(rootHeadlines, 1) {
            reserved[SiteBuilder.variantName(variant)] = "the root page's headline \(variant + 1)"
        }
        let noteByPath = Dictionary(
            notes.filter { $0.kind == .page }.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        // The first folder's spelling each locale saw first, by its lower case.
        var spelling: [String: (folder: Substring, page: LandingPage)] = [:]
        var diagnostics: [Diagnostic] = []
        for page in pages where page.id != root.id {
            guard let note = noteByPath[page.source] else { continue }
            let lower = page.id.lowercased()
            let folder = lower.prefix { $0 != "/" }
            let spelt = page.id.prefix { $0 != "/" }
            let seen = spelling[page.locale + "\u{0}" + folder]
            if seen == nil { spelling[page.locale + "\u{0}" + folder] = (spelt, page) }
            let segments = lower.split(separator: "/")
            let parent = segments.dropLast().joined(separator: "/")
            let last = segments.last.map(String.init) ?? ""
            let taken: String? =
                if let name = reserved[String(folder)] {
                    name
                } else if let name = reservedPrefixes.sorted(by: { $0.key < $1.key })
                    .first(where: { folder.hasPrefix($0.key) })?.value
                {
                    name
                } else if !parent.isEmpty, let count = headlines[page.locale + "\u{0}" + parent],
                    (1..<max(count, 1)).contains(where: { SiteBuilder.variantName($0) == last })
                {
                    "a headline variant of landing page '\(parent)'"
                } else if let seen, seen.folder != spelt, seen.page.id.lowercased() != lower {
                    "landing page '\(seen.page.id)' (\(seen.page.source)): their folders differ only in case"
                } else {
                    nil
                }
            guard let taken else { continue }
            diagnostics.append(
                Diagnostic(
                    .error, .pageReservedID,
                    "landing page id '\(page.id)' takes a URL of the site's own: its page would share it with \(taken)",
                    file: note.path, at: note.idPosition,
                    hint: "give the page another 'id:' in its frontmatter"))
        }
        return diagnostics
    }
}
