import Foundation
import LockerKit

/// What every page of the site is rendered with, worked out once before any page is: the
/// routes and language versions of every document (``SiteTables``), the inputs every page
/// shares (``PageInputs``), the landing pages' images and the templates' context. The documents
/// stage renders a guide's page with it as soon as the guide is built, so that no guide is held
/// until the site is rendered; ``SiteBuilder/render(_:with:into:progress:)`` renders the rest.
final class SitePages: Sendable {
    let builder: SiteBuilder
    let tables: SiteTables
    /// The site's shared inputs, when the output records them.
    let inputs: PageInputs?
    let context: PageContext
    /// The icon, the style sheet and the search box's script, named by their hashes.
    let icon: (path: String, data: Data, sha256: String)
    let style: (path: String, data: Data, sha256: String)
    let script: (path: String, data: Data, sha256: String)
    /// The landing pages by ID, one per locale.
    let pagesByID: [String: [LandingPage]]
    /// The root landing page's image in each locale: every content page's Open Graph image.
    let rootImages: [String: String?]

    init(builder: SiteBuilder) {
        self.builder = builder
        /// A file every page links to, named by its hash.
        func hashed(_ data: Data, suffix: String) -> (path: String, data: Data, sha256: String) {
            let sha256 = ContentHash.sha256Hex(data)
            return (SiteBuilder.assetsFolder + "/" + sha256.prefix(16) + suffix, data, sha256)
        }
        icon = hashed(Data(SiteIcon.svg.utf8), suffix: ".svg")
        style = hashed(Data((builder.templates.render("style", [:]) ?? "").utf8), suffix: ".css")
        let words = SiteStrings.Search.json(locales: builder.config.locales)
        script = hashed(Data((builder.templates.render("search", ["strings": words]) ?? "").utf8), suffix: ".js")
        inputs = builder.inputSources.map { [icon, style, script] sources in
            // A page shows a vault file by a name made of its content hash, in its bundle file
            // or a landing page: both are inputs, so the files' own contents need not be.
            PageInputs(
                linkSurface: sources.linkSurface, templates: builder.templates.sources, baseURL: builder.baseURL,
                pages: builder.pages, sharedFiles: [icon.path, style.path, script.path],
                program: sources.program)
        }
        tables = builder.siteTables()
        context = PageContext(builder: builder, iconPath: icon.path, stylePath: style.path, scriptPath: script.path)
        let pagesByID = Dictionary(grouping: builder.pages, by: \.id)
        self.pagesByID = pagesByID
        let rootVersions = builder.rootPageID.flatMap { pagesByID[$0] } ?? []
        rootImages = Dictionary(
            uniqueKeysWithValues: builder.config.locales.map {
                ($0, builder.pick(rootVersions, locale: $0, localeOf: \.locale)?.image)
            })
    }

    /// The page a link leads to from a page in `locale`, with its anchor; nil when none.
    func linkTarget(_ target: LinkTarget, locale: String) -> String? {
        guard case .document(let kind, let id, _, let anchor) = target else { return nil }
        var path: String?
        if kind == .page {
            path = pagesByID[id].flatMap { builder.pick($0, locale: locale, localeOf: \.locale) }
                .map { builder.route(of: $0).path }
        } else {
            let keys = builder.keys
            path = tables.documents(DocumentKey(kind: kind, id: id))
                .flatMap { builder.pick($0, locale: locale, localeOf: { keys[$0].locale }) }
                .map { tables.routes[$0].path }
        }
        guard let path else { return nil }
        return path + (anchor.map { "#" + SiteBuilder.pageAnchor($0, kind: kind) } ?? "")
    }

    /// The routes of the language versions of the document at `offset`, by locale.
    func alternates(of offset: Int) -> [String: String] {
        SiteBuilder.alternates(tables.versions(of: offset).map { tables.routes[$0] })
    }

    /// Takes the page at `path` from the previous build when it was made from the same inputs.
    func kept(_ path: String, inputs: String?, in sink: some OutputSink) throws -> Bool {
        guard let inputs else { return false }
        return try sink.keep(SiteBuilder.folder + "/" + path, if: .inputs(inputs))
    }

    /// Writes the page of the document at `offset` among the documents, in `locale`, into
    /// `sink`, or keeps the previous build's when it was made from the same inputs: its bundle
    /// file's SHA-256 (nil when the output records no inputs, or the document has no file), its
    /// folder, its language versions and its image. The document is asked for only to render it.
    func writePage(
        at offset: Int, locale: String, bundleSHA256: String?, into sink: some OutputSink,
        document: () throws -> Document
    ) throws {
        let route = tables.routes[offset]
        let alternates = alternates(of: offset)
        let image = rootImages[locale] ?? nil
        let pageInputs = bundleSHA256.flatMap { sha256 in
            inputs?.document(route: route.path, bundleSHA256: sha256, alternates: alternates, image: image)
        }
        let path = route.path + "index.html"
        if try kept(path, inputs: pageInputs, in: sink) { return }
        let html = try context.document(
            try document(), route: route, alternates: alternates, image: image,
            link: { [self] target in linkTarget(target, locale: locale) })
        try sink.write(
            OutputFile(path: SiteBuilder.folder + "/" + path, data: Data(html.utf8)), sha256: nil, inputs: pageInputs)
    }
}
