import LockerKit

/// Finds landing pages whose ID names a folder the site has of its own: a kind's index
/// (`guides`), the assets, a locale, or a headline variant of the root page (`b`). Such a page
/// would share its URL with the site's own page, and one would silently replace the other.
///
/// IDs are compared without case: a host that ignores it (Netlify), or a file system that does
/// (macOS), would see one folder.
struct LandingPageIDChecker {
    var locales: [String]

    /// The root page comes first in `pages`, sorted as the site orders them; `notes` hold every
    /// page's note, for the position of its ID.
    func check(_ pages: [LandingPage], notes: [ParsedNote]) -> [Diagnostic] {
        guard let root = pages.first else { return [] }
        var reserved: [String: String] = [:]
        for kind in ContentKind.known {
            reserved[SiteBuilder.folder(of: kind)] = "the index of \(SiteBuilder.folder(of: kind))"
        }
        reserved[SiteBuilder.assetsFolder] = "the site's images and style sheet"
        for locale in locales { reserved[locale.lowercased()] = "the site in '\(locale)'" }
        let headlines = pages.filter { $0.id == root.id }.map(\.hero.headlines.count).max() ?? 0
        for variant in 1..<max(headlines, 1) {
            reserved[SiteBuilder.variantName(variant)] = "the root page's headline \(variant + 1)"
        }
        let noteByPath = Dictionary(
            notes.filter { $0.kind == .page }.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        var diagnostics: [Diagnostic] = []
        for page in pages where page.id != root.id {
            guard let taken = reserved[page.id.lowercased()], let note = noteByPath[page.source] else { continue }
            diagnostics.append(
                Diagnostic(
                    .error, .pageReservedID,
                    "landing page id '\(page.id)' is a folder of the site's own: its page would share a URL with \(taken)",
                    file: note.path, at: note.idPosition,
                    hint: "give the page another 'id:' in its frontmatter"))
        }
        return diagnostics
    }
}
