import LockerKit

/// Finds landing pages whose URL the site has for something else: an ID whose first folder is a
/// kind's index (`guides`), the assets (or starts with `assets`, which Netlify's `/assets/*`
/// matches too), a locale's folder, or a headline variant of the root page (`b`); and two
/// pages whose IDs differ only in case. One page would silently replace the other, or get the
/// other's cache headers.
///
/// IDs are compared without case: a host that ignores it (Netlify), or a file system that does
/// (macOS), would see one folder.
struct LandingPageIDChecker {
    var locales: [String]
    var defaultLocale: String

    /// The root page comes first in `pages`, sorted as the site orders them; `notes` hold every
    /// page's note, for the position of its ID.
    func check(_ pages: [LandingPage], notes: [ParsedNote]) -> [Diagnostic] {
        guard let root = pages.first else { return [] }
        var reserved: [String: String] = [:]
        for kind in ContentKind.known {
            reserved[SiteBuilder.folder(of: kind)] = "the index of \(SiteBuilder.folder(of: kind))"
        }
        // The default locale is at the root: it has no folder.
        for locale in locales where locale != defaultLocale {
            reserved[locale.lowercased()] = "the site in '\(locale)'"
        }
        let headlines = pages.filter { $0.id == root.id }.map(\.hero.headlines.count).max() ?? 0
        for variant in 1..<max(headlines, 1) {
            reserved[SiteBuilder.variantName(variant)] = "the root page's headline \(variant + 1)"
        }
        let noteByPath = Dictionary(
            notes.filter { $0.kind == .page }.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        var firstByID: [String: LandingPage] = [:]
        var diagnostics: [Diagnostic] = []
        for page in pages where page.id != root.id {
            guard let note = noteByPath[page.source] else { continue }
            let lower = page.id.lowercased()
            let folder = String(lower.prefix { $0 != "/" })
            let taken =
                if let name = reserved[folder] {
                    name
                } else if folder.hasPrefix(SiteBuilder.assetsFolder) {
                    "the site's images and style sheet (`/\(SiteBuilder.assetsFolder)/`)"
                } else if let other = firstByID[lower], other.id != page.id {
                    "landing page '\(other.id)' (\(other.source)): the IDs differ only in case"
                } else {
                    String?.none
                }
            if firstByID[lower] == nil { firstByID[lower] = page }
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
