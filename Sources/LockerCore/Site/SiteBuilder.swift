import Foundation
import LockerKit

/// Renders the static site: the landing pages, a page per guide, checklist and deck, an index per
/// kind, in every locale, with the sitemap, robots.txt, the 404 page, the icon, the style sheet
/// and `_headers`.
///
/// URLs are folders (`guides/anchoring/`, served from `index.html`); the default locale sits at
/// the root and every other locale under its code (`en/guides/anchoring/`). Links between pages
/// are relative, so the site works from any folder of any host.
struct SiteBuilder {
    /// The site's folder inside the output folder.
    static let folder = "site"

    var config: VaultConfig
    var templates: TemplateSet
    /// The public address, ending in `/`; absolute URLs (canonical, sitemap, Open Graph) need it.
    var baseURL: String?
    /// Each document's kind, ID and locale, in the order of the documents (sorted by them).
    var keys: [(kind: ContentKind, id: String, locale: String)]
    var pages: [LandingPage]
    var assets: AssetCatalog
    /// The kinds the vault has documents of, in schema order: the site's navigation.
    let documentKinds: [ContentKind]
    /// What the pages' inputs are worked out from, when the output records them (``PageInputs``).
    var inputSources: InputSources?
    /// The runs of the documents, sorted by kind, ID and locale, that share a kind and ID, when
    /// the caller found them as it sorted them (``DocumentOrder``): the site's tables then take
    /// them rather than compare every document's key with its neighbour's again.
    var versionRuns: [Range<Int>]?
    /// Whether pages of one shape are rendered from one render of their template
    /// (``PageSkeletons``); `LOCKER_PAGE_SKELETONS=off` renders every page itself.
    var pageSkeletons = true
    /// The time the templates take, for `--timings`.
    let templateClock = TemplateClock()

    /// What ``PageInputs`` needs from the rest of the build.
    struct InputSources: Sendable {
        /// The SHA-256 of the vault's ``LinkSurface``.
        var linkSurface: String
        /// The `locker` program (``BuildFingerprint/program``): a new one may render other bytes.
        var program: String
        /// Each document's bundle file's SHA-256, by the document's place.
        var bundleFiles: [String]
    }

    /// What ``render(into:progress:)`` made.
    struct Rendered {
        /// How many HTML pages the site has (`index.html` files).
        var pageCount: Int
        /// The tables the pages were laid out by: a one-shot build keeps them until it exits.
        var tables: SiteTables?
    }

    init(
        config: VaultConfig, templates: TemplateSet, baseURL: String?,
        keys: [(kind: ContentKind, id: String, locale: String)], pages: [LandingPage], assets: AssetCatalog
    ) {
        self.config = config
        self.templates = templates
        self.baseURL = baseURL
        self.keys = keys
        self.pages = pages
        self.assets = assets
        let present = Set(keys.map(\.kind))
        documentKinds = ContentKind.known.filter(present.contains)
    }

    /// One page of the site.
    struct Route: Hashable {
        /// The page's folder: `""` for the root, else ending in `/`.
        var path: String
        var locale: String
    }

    // MARK: Routes

    private func prefix(_ locale: String) -> String { locale == config.defaultLocale ? "" : locale + "/" }

    private func route(kind: ContentKind, id: String, locale: String) -> Route {
        // Made in one string with room for all of it: joined with `+`, the path was made three
        // times over (every document's route in every build).
        let folder = ContentLinkFormat.folder(of: kind)
        var path = prefix(locale)
        path.reserveCapacity(path.utf8.count + folder.utf8.count + id.utf8.count + 2)
        path += folder
        path += "/"
        path += id
        path += "/"
        return Route(path: path, locale: locale)
    }

    /// The landing page that sits at the root: the first by order.
    var rootPageID: String? { pages.first?.id }

    func route(of page: LandingPage, variant: Int = 0) -> Route {
        var path = prefix(page.locale) + (page.id == rootPageID ? "" : page.id + "/")
        if variant > 0 { path += Self.variantName(variant) + "/" }
        return Route(path: path, locale: page.locale)
    }

    /// The element ID an anchor has on a page: a checklist item's `^id` is `item-<id>`, a card's
    /// `card-<id>`; headings and other blocks keep their anchor.
    static func pageAnchor(_ anchor: String, kind: ContentKind) -> String {
        guard anchor.hasPrefix("^") else { return anchor }
        let id = String(anchor.dropFirst())
        switch kind {
        case .checklist: return ContentLinkFormat.elementID(of: .item(id: id))
        case .deck: return ContentLinkFormat.elementID(of: .card(id: id))
        default: return anchor
        }
    }

    /// `b`, `c`, … for the second, third, … headline.
    static func variantName(_ variant: Int) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        return variant < letters.count ? String(letters[variant]) : "v\(variant + 1)"
    }

    private func indexRoute(_ kind: ContentKind, _ locale: String) -> Route {
        Route(path: prefix(locale) + ContentLinkFormat.folder(of: kind) + "/", locale: locale)
    }

    /// The landing pages shown in a locale (each in that locale, else its default-locale version),
    /// with their folders.
    func landingPages(in locale: String) -> [(app: LandingPage.App, path: String)] {
        let byID = Dictionary(grouping: pages, by: \.id)
        var seen: Set<String> = []
        return pages.compactMap { page -> (LandingPage.App, String)? in
            guard seen.insert(page.id).inserted,
                let chosen = pick(byID[page.id] ?? [], locale: locale, localeOf: \.locale)
            else { return nil }
            return (chosen.app, route(of: chosen).path)
        }
    }

    /// The folder of a kind's index in a locale.
    func indexPath(_ kind: ContentKind, _ locale: String) -> String { indexRoute(kind, locale).path }

    func pick<T>(_ versions: [T], locale: String, localeOf: (T) -> String) -> T? {
        config.preferred(versions, in: locale, localeOf: localeOf)
    }

    /// The relative URL from one page's folder to another's (or to a file).
    static func relative(from: String, to: String) -> String {
        // Path segments compared as bytes: file names are bytes, and `String ==` would take two
        // spellings of "й" (composed and decomposed) for one folder.
        let fromParts = from.utf8.split(separator: 0x2F)
        var toParts = to.utf8.split(separator: 0x2F)
        let isFolder = to.isEmpty || to.utf8.last == 0x2F
        var common = 0
        while common < fromParts.count, common < toParts.count, fromParts[common].elementsEqual(toParts[common]),
            isFolder || common < toParts.count - 1
        {
            common += 1
        }
        toParts.removeFirst(common)
        var result = String(repeating: "../", count: fromParts.count - common)
        for (index, part) in toParts.enumerated() {
            if index > 0 { result += "/" }
            result += Substring(part)
        }
        if isFolder && !toParts.isEmpty { result += "/" }
        return result.isEmpty ? "./" : result
    }

    private func absolute(_ path: String) -> String? { baseURL.map { $0 + path } }

    // MARK: Rendering

    /// What every page is rendered with, worked out before any page is: a guide's page is
    /// rendered as soon as the guide is built (``SitePages/writePage(of:at:bundleSHA256:into:)``).
    func prepare() -> SitePages { SitePages(builder: self) }

    /// Writes every file of the site that `site` has not written into `sink`, under ``folder``:
    /// the shared files, the landing pages, the index pages, the pages of `documents` that are
    /// not written yet (``Document/written(_:)``), the 404 page, `robots.txt`, the sitemap and
    /// `_headers`. Returns how many pages (`index.html` files) the site has.
    func render(
        _ documents: [Document], with site: SitePages, into sink: some OutputSink, progress: ProgressCounter? = nil
    ) throws -> Rendered {
        var listed: [(path: String, locale: String, alternates: [String: String])] = []
        var htmlPaths: [String] = []
        @Sendable func emit(_ path: String, _ data: Data, sha256: String? = nil) throws {
            try sink.write(OutputFile(path: Self.folder + "/" + path, data: data), sha256: sha256)
        }
        func write(_ route: Route, _ html: String) throws {
            try emit(route.path + "index.html", Data(html.utf8))
            htmlPaths.append(route.path)
        }

        // Shared files: assets, the icon, the style sheet and the search box's script (each
        // rendered once, linked from every page).
        for asset in assets.site {
            try emit(asset.bundlePath, asset.data, sha256: asset.sha256)
        }
        for file in [site.icon, site.style, site.script] {
            try emit(file.path, file.data, sha256: file.sha256)
        }
        let (tables, context) = (site.tables, site.context)
        let routes = tables.routes

        // Landing pages and their variants.
        for page in pages {
            let versions = site.pagesByID[page.id] ?? [page]
            let alternate = Self.alternates(versions.map { route(of: $0) })
            for variant in page.hero.headlines.indices {
                let route = route(of: page, variant: variant)
                let canonical = self.route(of: page).path
                let html = try context.landing(
                    page, variant: variant, route: route, canonical: canonical, alternates: alternate,
                    link: { site.linkTarget($0, locale: page.locale) })
                try write(route, html)
                if variant == 0 { listed.append((route.path, page.locale, alternate)) }
            }
        }

        // Rendered and written on every core; only the routes are kept.
        // Index pages: one per kind and locale, listing every document of the kind in it.
        let indexRoutes = documentKinds.flatMap { kind in
            let routes = config.locales.map { indexRoute(kind, $0) }
            return routes.map { (kind: kind, route: $0, alternates: Self.alternates(routes)) }
        }
        @Sendable func renderIndex(_ kind: ContentKind, route: Route, alternates: [String: String]) throws {
            let chosen = tables.versions(ofKind: kind)
                .compactMap { pick($0, locale: route.locale, localeOf: { documents[$0].locale }) }
            let unsorted = chosen.map { documents[$0].indexEntry }
            let order = BundleWriter.indexPermutation(unsorted)
            let entries = order.map { (entry: unsorted[$0], path: routes[chosen[$0]].path) }
            let pageInputs = site.inputs.map { inputs in
                inputs.index(
                    route: route.path, listing: IndexListing(entries.map(\.entry), paths: entries.map(\.path)),
                    alternates: alternates)
            }
            if try site.kept(route.path + "index.html", inputs: pageInputs, in: sink) { return }
            let html = Data(try context.index(kind, entries: entries, route: route, alternates: alternates).utf8)
            try sink.write(
                OutputFile(path: Self.folder + "/" + route.path + "index.html", data: html), sha256: nil,
                inputs: pageInputs)
        }
        let bundleFiles = inputSources?.bundleFiles ?? []
        // Each page's language versions are collected for the sitemap alone, so only with one.
        let listsAlternates = baseURL != nil
        // Index pages first: one index of a large vault is as much work as many documents, and
        // rendered with them it runs beside them rather than alone after them.
        let jobs = indexRoutes.indices.map(PageJob.index) + documents.indices.map(PageJob.document)
        let rendered = Compiler.parallelMap(jobs) {
            job -> (route: Route, alternates: [String: String]?, written: Result<Void, any Error>) in
            switch job {
            case .index(let offset):
                let index = indexRoutes[offset]
                return (
                    index.route, index.alternates,
                    Result { try renderIndex(index.kind, route: index.route, alternates: index.alternates) }
                )
            case .document(let offset):
                defer { progress?.tick() }
                let alternates = listsAlternates ? site.alternates(of: offset) : nil
                return (
                    routes[offset], alternates,
                    Result {
                        if case .written = documents[offset] { return }
                        let sha256 =
                            offset < bundleFiles.count && !bundleFiles[offset].isEmpty ? bundleFiles[offset] : nil
                        try site.writePage(
                            at: offset, locale: documents[offset].locale, bundleSHA256: sha256, into: sink
                        ) { documents[offset] }
                    }
                )
            }
        }
        // The sitemap and `_headers` sort what is listed: the order rendered in does not matter.
        for (route, alternate, written) in rendered {
            try written.get()
            htmlPaths.append(route.path)
            if let alternate { listed.append((route.path, route.locale, alternate)) }
        }
        if pages.isEmpty {
            let routes = config.locales.map { Route(path: prefix($0), locale: $0) }
            for route in routes {
                try write(
                    route,
                    try context.home(
                        route: route, kinds: documentKinds.map { ($0, indexRoute($0, route.locale).path) },
                        alternates: Self.alternates(routes)))
                listed.append((route.path, route.locale, Self.alternates(routes)))
            }
        }

        // The 404 page is served for any missing path, so its links are absolute when they can be.
        try emit("404.html", Data(try context.notFound().utf8))
        try emit("robots.txt", Data(robots.utf8))
        if let sitemap = sitemap(listed) { try emit("sitemap.xml", Data(sitemap.utf8)) }
        try emit("_headers", Data(Self.headers(htmlPaths, baseURL: baseURL)))
        return Rendered(pageCount: htmlPaths.count, tables: tables)
    }

    private var robots: String {
        var out = "User-agent: *\nAllow: /\n"
        if let sitemap = absolute("sitemap.xml") { out += "\nSitemap: \(sitemap)\n" }
        return out
    }

    /// Every page with its language versions (`xhtml:link` alternates); nil without a base URL,
    /// because a sitemap lists absolute URLs only.
    private func sitemap(_ listed: [(path: String, locale: String, alternates: [String: String])]) -> String? {
        guard baseURL != nil else { return nil }
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">

            """
        for entry in listed.sorted(by: { $0.path.utf8Precedes($1.path) }) {
            guard let location = absolute(entry.path) else { continue }
            out += "  <url>\n    <loc>\(HTMLRenderer.escape(location))</loc>\n"
            if entry.alternates.count > 1 {
                for (locale, path) in entry.alternates.sorted(by: { config.rank($0.key) < config.rank($1.key) }) {
                    guard let href = absolute(path) else { continue }
                    out +=
                        "    <xhtml:link rel=\"alternate\" hreflang=\"\(locale)\" href=\"\(HTMLRenderer.escape(href))\"/>\n"
                }
            }
            out += "  </url>\n"
        }
        return out + "</urlset>\n"
    }

    /// The routes of a set of language versions, by locale.
    static func alternates(_ routes: [Route]) -> [String: String] {
        Dictionary(routes.map { ($0.locale, $0.path) }, uniquingKeysWith: { first, _ in first })
    }

    /// Which documents are language versions of one another, and each document's route.
    func siteTables() -> SiteTables {
        let keys = self.keys
        // Each document's route and key on every core: a path made for each document kept one
        // core busy for a measurable time at the start of the site.
        let laid = Compiler.parallelMap(Array(keys.indices)) { offset in
            let key = keys[offset]
            return (
                route: route(kind: key.kind, id: key.id, locale: key.locale),
                key: DocumentKey(kind: key.kind, id: key.id)
            )
        }
        return SiteTables(documents: laid, runs: versionRuns)
    }

    /// The Content Security Policy of every page: the site's own style sheets, images and
    /// scripts (the search box's, and Pagefind's, which compiles WebAssembly and fetches its
    /// index), nothing from another host, no inline script or style, no frames.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; img-src 'self'; "
        + "style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Netlify / Cloudflare Pages `_headers`: every page revalidated, hashed assets cached for good.
    ///
    /// A rule per folder of pages (`/guides/*`, `/ru/*`, …), not per page: Cloudflare Pages reads
    /// 100 rules at most, and a large vault has a page for each of thousands of notes. Hosts
    /// merge the headers of every rule that matches a path, so each path matches one rule only:
    /// the root page and the files beside it have exact rules, and the assets folder one splat
    /// (``pagePatterns(_:)``). The search index Pagefind writes into ``searchFolder`` after the
    /// build gets rules too: its entry (which names the rest) is revalidated, and its folders of
    /// content-hashed files are immutable; its other files (scripts, style sheet, WebAssembly)
    /// match no rule and get the host's default, which revalidates.
    static func headers(_ htmlPaths: [String], baseURL: String?) -> [UInt8] {
        let root = baseURL.flatMap { URL(string: $0)?.path } ?? "/"
        let base = Array((root.hasSuffix("/") ? root : root + "/").utf8)
        let revalidate = Array("\n  Cache-Control: public, max-age=0, must-revalidate\n".utf8)
        let security = Array(
            """
              X-Content-Type-Options: nosniff
              Referrer-Policy: strict-origin-when-cross-origin
              Content-Security-Policy: \(contentSecurityPolicy)

            """.utf8)
        let files = ["robots.txt"] + (baseURL == nil ? [] : ["sitemap.xml"])
        var out = Array(
            "# Written by locker build. Pages are revalidated on every visit; hashed assets never change.\n".utf8)
        let unsorted = pagePatterns(htmlPaths, beside: [assetsFolder, searchFolder, "404.html"] + files)
        for pattern in unsorted.utf8SortedOffsets().map({ unsorted[$0] }) + ["404.html"] {
            out += base + pattern.utf8 + revalidate + security
        }
        for file in files {
            out += base + file.utf8 + revalidate
        }
        let immutable = Array(
            "\n  Cache-Control: public, max-age=31536000, immutable\n  X-Content-Type-Options: nosniff\n".utf8)
        out += base + assetsFolder.utf8 + "/*".utf8 + immutable
        out += base + searchFolder.utf8 + "/pagefind-entry.json".utf8 + revalidate
        for folder in searchHashedFolders {
            out += base + searchFolder.utf8 + "/".utf8 + folder.utf8 + "/*".utf8 + immutable
        }
        return out
    }

    /// The patterns that cover `paths` (page folders, `""` for the root, each ending in `/`)
    /// and nothing else, with no path matched twice: a splat per folder (`guides/*`), or, for a
    /// folder whose name starts another name beside it (`ru` beside `rules`, `de` beside
    /// `decks`, `ro` beside `robots.txt`), an exact rule for its own page and the same again one
    /// level down (`de/`, `de/guides/*`, `de/decks/*`). Netlify reads `ru/*` as `ru` followed
    /// by anything, in any case; Cloudflare as `ru/` followed by anything.
    ///
    /// - Parameter beside: the other names at this level, which no pattern may match.
    static func pagePatterns(_ paths: [String], beside: [String] = [], prefix: String = "") -> [String] {
        var patterns: [String] = []
        var folders: [String: [String]] = [:]
        for (folder, places) in FolderRuns.runs(paths.count, prefix: prefix, path: { paths[$0] }) {
            guard let folder else {
                patterns.append(paths[places.lowerBound])  // the folder's own page: `prefix` itself
                continue
            }
            folders[folder, default: []] += paths[places]
        }
        let names = (Array(folders.keys) + beside).map { $0.lowercased() }
        for (folder, inside) in folders {
            let lower = folder.lowercased()
            if names.contains(where: { $0 != lower && $0.hasPrefix(lower) }) {
                patterns += pagePatterns(inside, prefix: prefix + folder + "/")
            } else {
                patterns.append(prefix + folder + "/*")
            }
        }
        return patterns
    }

    /// The folder of the site's hashed files: images, the icon and the style sheet.
    static let assetsFolder = "assets"

    /// The folder of the search index, which Pagefind writes into the site after the build
    /// (`python3 -m pagefind --site <site>`): no page may take its name, and a build that changes
    /// the site's files removes it (``OutputWriter/derivedFolders``), since it was made from the
    /// previous pages.
    static let searchFolder = "pagefind"

    /// The folders of the search index whose files are named by their content's hash.
    static let searchHashedFolders = ["fragment", "index", "filter"]

    /// The files the site may write beside its pages, at its root.
    static let filesBesidePages = ["404.html", "robots.txt", "sitemap.xml", "_headers"]
}

/// What names a document across its language versions: its kind and ID.
struct DocumentKey: Hashable {
    var kind: ContentKind
    var id: String
}

/// What the site's pages are laid out by: each document's language versions (those sharing a
/// ``DocumentKey``) and its route.
///
/// The versions are runs of the documents in the order of their kind and ID, which is the order
/// a compilation gives them: no table of the keys, each with a list, is built to group them.
final class SiteTables: Sendable {
    let routes: [SiteBuilder.Route]
    /// The documents' offsets ordered by kind and ID (then offset): the documents' own order when
    /// they come sorted, as a compilation sorts them.
    private let order: [Int]
    /// The runs of `order` that share a kind and ID, in that order.
    private let runs: [Range<Int>]
    /// Each document's run, by offset.
    private let runOf: [Int]
    /// The kind and ID of each run (its first document's).
    private let runKeys: [DocumentKey]

    /// - Parameters:
    ///   - documents: each document's route, and its kind and ID.
    ///   - runs: the runs of the documents that share a kind and ID, when they are sorted by
    ///     kind and ID and the caller found them (``DocumentOrder/runs``); taken when they cover
    ///     the documents, one after the other.
    init(documents: [(route: SiteBuilder.Route, key: DocumentKey)], runs given: [Range<Int>]? = nil) {
        routes = documents.map(\.route)
        let count = documents.count
        // The runs given, or found as a build finds them (``DocumentOrder``, by kind and ID
        // alone: a sort that keeps equal keys in the order of their offsets).
        let taken = given.flatMap { Self.cover($0, count) ? $0 : nil }
        let found = taken == nil ? DocumentOrder(keys: documents.map { ($0.key.kind, $0.key.id, "") }) : nil
        let order = found?.order ?? Array(0..<count)
        let runs = taken ?? found?.runs ?? []
        var runOf = [Int](repeating: 0, count: count)
        for (run, range) in runs.enumerated() {
            for position in range { runOf[order[position]] = run }
        }
        self.order = order
        self.runs = runs
        self.runOf = runOf
        runKeys = runs.map { documents[order[$0.lowerBound]].key }
    }

    /// Whether `runs` are non-empty ranges, one after the other, from 0 to `count`.
    private static func cover(_ runs: [Range<Int>], _ count: Int) -> Bool {
        var next = 0
        for run in runs {
            guard run.lowerBound == next, !run.isEmpty else { return false }
            next = run.upperBound
        }
        return next == count
    }

    /// The offsets of the language versions of the document at `offset`, itself among them, in
    /// the order of their offsets.
    func versions(of offset: Int) -> [Int] {
        offset < runOf.count ? Array(order[runs[runOf[offset]]]) : [offset]
    }

    /// The offsets of the documents of `kind` and `id`, one per locale; nil when there is none.
    func documents(_ key: DocumentKey) -> [Int]? {
        // The first run not before `key`, by binary search.
        var (low, high) = (0, runKeys.count)
        while low < high {
            let middle = (low + high) / 2
            let found = runKeys[middle]
            if found.kind < key.kind || (found.kind == key.kind && found.id < key.id) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low < runKeys.count, runKeys[low] == key else { return nil }
        return Array(order[runs[low]])
    }

    /// The language versions of every document of `kind`, a list per ID, in the order of IDs.
    func versions(ofKind kind: ContentKind) -> [[Int]] {
        runs.indices.filter { runKeys[$0].kind == kind }.map { Array(order[runs[$0]]) }
    }
}

/// A page rendered in the site's parallel pass: an index page, or a document's page, by offset.
private enum PageJob: Sendable {
    case index(Int)
    case document(Int)
}
