import Foundation

/// docs/site.md: the site test vault built with its base URL (the folder, sitemap, robots.txt,
/// `_headers`), and `locker check` on a small vault with a faulty landing page and template.
extension DocsExamples {
    static let siteVault = repository.appendingPathComponent("Tests/LockerCoreTests/Fixtures/site/vault")

    /// The vault of the landing-page diagnostics: a misspelt key, a link to a note not written
    /// yet, a `howItWorks` without a title, and a template whose section is closed by another name.
    static let faultyLandingPage = """
        ---
        id: app
        lang: en
        app:
          name: Harbour
        hero:
          headline: Tie it right the first time.
        features:
          title: What it does
          items:
            - title: Guides
              bdy: Step-by-step knots.
              link: "[[bowline]]"
        howItWorks:
          steps:
            - title: Install
        ---

        """
    static let faultyTemplate = """
        {{<layout}}
        {{$main}}
        <h1>{{#title}}{{title}}</h1>
        {{/main}}
        {{/layout}}

        """

    mutating func makeSiteExamples() throws {
        try locker(["build", Self.siteVault.path, "--out", "site-build", "--base-url", "https://sail.example/"])
        let site = work.appendingPathComponent("site-build/site")
        regions["site-tree"] = Self.fenced(try siteTree())
        regions["site-harbour-app"] = Self.fenced(try read("pages/harbour-app.md", in: Self.siteVault), "markdown")
        regions["site-robots"] = Self.fenced(try read("robots.txt", in: site))

        let sitemap = try read("sitemap.xml", in: site)
        guard let loc = sitemap.range(of: "<loc>https://sail.example/guides/bowline/</loc>"),
            let start = sitemap[..<loc.lowerBound].range(of: "  <url>", options: .backwards),
            let end = sitemap[loc.upperBound...].range(of: "</url>")
        else { throw Failure(message: "the site test vault's sitemap lists no guides/bowline/") }
        regions["site-sitemap-entry"] = Self.fenced(String(sitemap[start.lowerBound..<end.upperBound]), "xml")
        regions["site-headers"] = Self.fenced(Self.abridgedHeaders(try read("_headers", in: site)))

        let vault = work.appendingPathComponent("landing/content")
        try write("kinds:\n  site: page\n", to: vault.appendingPathComponent("locker.yml"))
        try write(Self.faultyLandingPage, to: vault.appendingPathComponent("site/app.md"))
        try write(Self.faultyTemplate, to: vault.appendingPathComponent("templates/guide.mustache"))
        let check = try shown(["check", "content"], in: work.appendingPathComponent("landing"), status: 1)
        regions["site-check"] =
            "`site/app.md`:\n\n" + Self.fenced(Self.faultyLandingPage, "markdown")
            + "\n`templates/guide.mustache`:\n\n" + Self.fenced(Self.faultyTemplate, "mustache") + "\n"
            + Self.fenced(check)
    }

    /// The output folder's first level, then every file of the site with what it is.
    private func siteTree() throws -> String {
        let notes: [String: String] = [
            "index.html": "the first landing page, in the default locale (en)",
            "b/index.html": "the same page with its second headline (A/B test)",
            "about/index.html": "the second landing page",
            "guides/index.html": "the index of guides",
            "guides/bowline/index.html": "a guide",
            "checklists/dock-check/index.html": "a checklist",
            "decks/knots/index.html": "a deck",
            "ru/index.html": "the first landing page in Russian",
            "ru/guides/bowline/index.html": "the guide's Russian translation",
            "ru/checklists/index.html": "lists the English checklist: it has no Russian version",
            "404.html": "the page not found, in every language",
            "sitemap.xml": "only with a base URL",
            "_headers": "the site's cache and security headers",
        ]
        let extensions = [
            "png": "an image, named by its content hash", "svg": "the site icon", "css": "the style sheet",
            "js": "the search box's script",
        ]
        let top = OutputTree(
            note: {
                [
                    "": "← --out (default: build)", "_headers": "the bundles' cache rules (bundle-format.md)",
                    ".locker-build": "the build's records, for the next (bundle-format.md)",
                    "bundles": "the bundles (bundle-format.md)",
                    "site": "← the site: publish this folder as a site of its own",
                ][$0]
            }, opens: { _ in false })
        // The site opened here as a list of its files; "/ " keeps the note's column.
        let lines = try top.draw(work.appendingPathComponent("site-build"), title: "build/")
            .replacingOccurrences(of: "└── site/…", with: "└── site/ ")
        let files = try Self.files(in: work.appendingPathComponent("site-build/site"))
        let siteLines = files.enumerated().map { index, path in
            let text = "    " + (index == files.count - 1 ? "└── " : "├── ") + path
            let note = notes[path] ?? (path.hasPrefix("assets/") ? extensions[(path as NSString).pathExtension] : nil)
            guard let note else { return text }
            return text + String(repeating: " ", count: max(1, 41 - text.count)) + note
        }
        return lines + siteLines.joined(separator: "\n") + "\n"
    }

    /// `_headers` with each rule whose headers are the previous rule's shown as "(the same N
    /// headers)".
    static func abridgedHeaders(_ text: String) -> String {
        let counts = ["none", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
        var result: [Substring] = []
        var previous: [Substring] = []
        var current: [Substring] = []
        var path: Substring?
        func flush() {
            guard let path else { return }
            result.append(path)
            if current == previous, !current.isEmpty {
                let count = current.count < counts.count ? counts[current.count] : String(current.count)
                result.append(current.count == 1 ? "  (the same header)" : "  (the same \(count) headers)")
            } else {
                result += current
            }
            previous = current
        }
        for line in text.split(separator: "\n") {
            if line.hasPrefix(" ") {
                current.append(line)
            } else if line.hasPrefix("#") {
                result.append(line)
            } else {
                flush()
                path = line
                current = []
            }
        }
        flush()
        return result.joined(separator: "\n")
    }
}
