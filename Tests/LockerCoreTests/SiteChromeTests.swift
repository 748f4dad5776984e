import Foundation
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
                    {{{ body }}}{{&raw}}{{strings.languages}}{{#list}}{{.}}{{/list}}
                    """) == ["body", "current", "hasNav", "homeHref", "label", "list", "nav", "raw", "siteTitle", "strings"])
        // Reads that the text does not show: another template's, a transform's, other delimiters.
        for text in ["{{>banner}}", "{{<layout}}{{/layout}}", "{{uppercased(title)}}", "{{=<% %>=}}", "{{$block}}{{/block}}", "{{open"] {
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
}
