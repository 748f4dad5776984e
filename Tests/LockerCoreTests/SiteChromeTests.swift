import Foundation
import LockerTemplates
import LockerTestSupport
import Testing

@testable import LockerCore

/// The header and footer are rendered once for each set of values they read
/// (``SiteChrome``): what they read is found in their own text, so a vault's own header that
/// shows something of each page still shows each page's.
@Suite struct SiteChromeTests {
    @Test func theNamesATemplateReadsAreFoundInItsText() throws {
        #expect(
            SiteChrome.names(
                in: """
                    {{! a comment: {{ignored}} }}<a href="{{homeHref}}">{{siteTitle}}</a>
                    {{#nav}}{{ label }}{{#current}} here{{/current}}{{/nav}}{{^hasNav}}{{/hasNav}}
                    {{{ body }}}{{&raw}}{{strings.languages}}{{#\tpageTitle\n}}{{/\tpageTitle}}{{{\ttabbed}}}
                    """)
                == [
                    "body", "current", "hasNav", "homeHref", "label", "nav", "pageTitle", "raw", "siteTitle", "strings",
                    "tabbed",
                ])
        // Reads that the text does not show: another template's, a block a page may fill, a
        // transform's, what `.` is, other delimiters; and a tag that is not whole.
        for text in [
            "{{>banner}}", "{{<layout}}{{/layout}}", "{{$block}}{{/block}}", "{{uppercased(title)}}", "{{.}}", "{{..}}",
            "{{{ .. }}}", "{{&...}}",
            "{{#list}}{{.}}{{/list}}", "{{=<% %>=}}", "{{open", "{{name with spaces}}", "{{{unclosed}}",
        ] {
            #expect(SiteChrome.names(in: text) == nil, "\(text)")
        }
        let header = try #require(TemplateSet.load(vault: URL(fileURLWithPath: "/nonexistent")).sources["header"])
        #expect(SiteChrome.names(in: header)?.contains("nav") == true)
    }

    /// A vault's own header that shows each page's title, directly or through a partial, shows
    /// each page's own; the built-in one is the same HTML on every guide page of a folder.
    @Test(arguments: [
        ["templates/header.mustache": "<header>{{pageTitle}} in {{siteTitle}}</header>\n"],
        [
            "templates/header.mustache": "<header>{{>banner}}</header>\n",
            "templates/banner.mustache": "{{pageTitle}} in {{siteTitle}}",
        ],
    ])
    func aHeaderShowsEachPagesOwnValues(templates: [String: String]) throws {
        var files = templates
        files["anchoring.md"] = "# Anchoring\n\nText.\n"
        files["knots.md"] = "# Knots\n\nText.\n"
        let vault = try TestVault(files)
        defer { vault.remove() }
        let compilation = try vault.compile()
        #expect(!compilation.failed)
        for (path, title) in [("site/guides/anchoring/index.html", "Anchoring"), ("site/guides/knots/index.html", "Knots")] {
            let page = try #require(compilation.files.first { $0.path == path })
            #expect(String(decoding: page.data, as: UTF8.self).contains("<header>\(title) in Locker</header>"), "\(path)")
        }
    }

    /// Every value the built-in header and footer read makes a key: guide pages at one depth
    /// share one render of each, instead of a render a page. (With pages rendered from
    /// skeletons, the skeletons hold the header and footer.)
    @Test func theBuiltInHeaderAndFooterAreRenderedOnceForPagesThatShareThem() throws {
        let guides = 12
        var files: [String: String] = [:]
        for number in 1...guides { files["folder/guide-\(number).md"] = "# Guide \(number)\n\nText.\n" }
        let vault = try TestVault(files)
        defer { vault.remove() }
        let compilation = try vault.compile(environment: ["LOCKER_PAGE_SKELETONS": "off"])
        #expect(!compilation.failed)
        let time = try #require(compilation.templateTime)
        #expect(time.skeletons == 0)
        let otherPages = time.renders - guides
        #expect(otherPages >= 1)
        // One header and one footer for all the guides, at most one each for every other page.
        #expect(time.partRenders >= 2)
        #expect(time.partRenders <= 2 * (otherPages + 1), "\(time)")
    }

    /// A header whose reads are not known is included by the layout as a partial, as before:
    /// a block in it is filled by the page, and the page's bytes around it are the same.
    @Test func aHeaderWhoseReadsAreNotKnownIsIncludedAsAPartial() throws {
        let vault = try TestVault([
            "templates/header.mustache": "<header>{{$extra}}default{{/extra}} {{>banner}}</header>\n",
            "templates/banner.mustache": "{{pageTitle}}",
            "templates/guide.mustache": "{{<layout}}{{$main}}<p>{{document.title}}</p>\n{{/main}}{{$extra}}FILLED{{/extra}}{{/layout}}\n",
            "anchoring.md": "# Anchoring\n\nText.\n",
        ])
        defer { vault.remove() }
        let compilation = try vault.compile()
        #expect(!compilation.failed)
        let page = try #require(compilation.files.first { $0.path == "site/guides/anchoring/index.html" })
        #expect(
            String(decoding: page.data, as: UTF8.self).contains(
                "</a>\n<header>FILLED Anchoring</header>\n<main id=\"main\">\n<p>Anchoring</p>\n"))
    }

    /// A page template that includes the layout inside a section shows the header in that
    /// section, whose values come first: then no header is rendered on its own.
    @Test func aLayoutIncludedInASectionShowsTheHeaderInIt() throws {
        #expect(SiteChrome.includesLayoutInASection("{{#document}}{{<layout}}{{$main}}{{/main}}{{/layout}}{{/document}}"))
        #expect(SiteChrome.includesLayoutInASection("{{^missing}}{{< layout }}{{/layout}}{{/missing}}"))
        #expect(!SiteChrome.includesLayoutInASection("{{<layout}}{{$main}}{{#document}}{{/document}}{{/main}}{{/layout}}"))
        #expect(SiteChrome.includesLayoutInASection("{{=<% %>=}}<%<layout%>"))
        for (name, text) in DefaultTemplates.all {
            #expect(!SiteChrome.includesLayoutInASection(text), "\(name)")
        }

        let vault = try TestVault([
            "templates/header.mustache": "<header>{{title}}</header>\n",
            "templates/guide.mustache": "{{#document}}{{<layout}}{{$main}}<p>x</p>\n{{/main}}{{/layout}}{{/document}}\n",
            "anchoring.md": "# Anchoring\n\nText.\n",
        ])
        defer { vault.remove() }
        let page = try #require(try vault.compile().files.first { $0.path == "site/guides/anchoring/index.html" })
        // `title` in the document, not the page's `Anchoring · Locker`.
        #expect(String(decoding: page.data, as: UTF8.self).contains("<header>Anchoring</header>"))
    }

    /// An ASCII template's tags are read as bytes, and the same as by characters: every built-in
    /// template, and 20,000 texts made of tags' pieces, white space of every ASCII kind (a
    /// carriage return and line break is one character), the control bytes that are not white
    /// space, and names.
    @Test func anASCIITemplatesTagsAreTheSameReadAsBytes() {
        for (name, text) in DefaultTemplates.all where text.utf8.allSatisfy({ $0 < 0x80 }) {
            let tags = SiteChrome.asciiTags(in: Array(text.utf8))
            #expect(tags != nil && tags == SiteChrome.characterTags(in: text), "\(name)")
        }
        let pieces = [
            "{{", "}}", "{", "}", "}}}", "#", "^", "/", "&", ">", "<", "$", "!", "%", "=", "*", "(", ")", ".", " ", "\t",
            "\r\n", "\n", "\r", "\u{0B}", "\u{0C}", "\u{00}", "\u{1C}", "\u{1D}", "\u{1E}", "\u{1F}", "\u{7F}", "a",
            "b.c", "x-y_z?", "text ",
        ]
        var generator = SplitMix64(seed: 12)
        var disagreements: [String] = []
        var read = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 1...12, using: &generator)
            let text = (0..<count).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
            let tags = SiteChrome.asciiTags(in: Array(text.utf8))
            if tags != nil { read += 1 }
            if tags != SiteChrome.characterTags(in: text) { disagreements.append(text) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
        // Both outcomes are met often: whole tags, and tags that are not.
        #expect(read > 2_000 && read < 18_000, "\(read)")
    }
}
