import Foundation
import Testing

@testable import LockerCore

/// Pages of one shape are rendered from one render of their template (``PageSkeletons``): every
/// page must be byte for byte the page its template renders by itself.
@Suite struct PageSkeletonTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The marker's noncharacters (Swift's literals do not take them).
    static let start = String(decoding: PageSkeletons.markerStart, as: UTF8.self)
    static let end = String(decoding: PageSkeletons.markerEnd, as: UTF8.self)

    /// The site's pages, by path, built with skeletons or without.
    static func pages(_ vault: URL, skeletons: Bool) throws -> (pages: [String: Data], time: TemplateTime?) {
        var environment = ["SOURCE_DATE_EPOCH": "0"]
        if !skeletons { environment["LOCKER_PAGE_SKELETONS"] = "off" }
        let compilation = try Compiler(vault: vault, environment: environment, baseURL: "https://sail.example/")
            .compile()
        var pages: [String: Data] = [:]
        for file in compilation.files where file.path.hasPrefix(SiteBuilder.folder + "/") {
            pages[file.path] = file.data
        }
        return (pages, compilation.templateTime)
    }

    /// Compares a vault's pages built both ways, and returns the template time with skeletons.
    @discardableResult
    static func expectSamePages(_ vault: URL, _ name: String) throws -> TemplateTime {
        let (direct, directTime) = try pages(vault, skeletons: false)
        let (fromSkeletons, time) = try pages(vault, skeletons: true)
        #expect(directTime?.skeletons == 0, "\(name)")
        #expect(Set(direct.keys) == Set(fromSkeletons.keys), "\(name)")
        for (path, data) in direct.sorted(by: { $0.key < $1.key }) {
            guard let other = fromSkeletons[path] else { continue }
            #expect(
                other == data,
                "\(name)/\(path) differs:\n\(String(decoding: other, as: UTF8.self).prefix(3000))\n--- by itself:\n\(String(decoding: data, as: UTF8.self).prefix(3000))"
            )
        }
        return try #require(time)
    }

    /// The default vault (landing pages, two locales, checklists, decks) and the site fixtures:
    /// every page from a skeleton, few skeletons, the same bytes.
    @Test(arguments: ["content", "Tests/LockerCoreTests/Fixtures/site/vault", "Tests/LockerCoreTests/Fixtures/syntax/vault"])
    func everyPageOfTheBuiltInTemplatesIsTheSame(_ path: String) throws {
        let time = try Self.expectSamePages(Self.repository.appendingPathComponent(path), path)
        #expect(time.renders > 0)
        #expect(time.skeletonPages == time.renders, "\(path): \(time)")
        if path == "content" { #expect(time.skeletons < time.renders, "\(time)") }
    }

    /// A vault's own templates: an indented partial, whose indentation follows a value that ends
    /// in a line break; empty values; values printed escaped and not; values that hold a
    /// marker's noncharacters.
    @Test func aVaultsOwnTemplatesGiveTheSamePages() throws {
        let vault = try TestVault([
            "templates/guide.mustache": """
                  {{>part}}
                <p>{{&document.title}}|{{{document.subtitle}}}|{{document.subtitle}}</p>
                {{#document}}{{#subtitle}}<q>{{.}}</q>{{/subtitle}}{{^subtitle}}none{{/subtitle}}{{/document}}
                {{<layout}}{{$main}}{{/main}}{{/layout}}

                """,
            "templates/part.mustache": "{{#document}}[{{{body}}}]{{title}}\n<i>{{kindTitle}}</i>\n{{/document}}",
            "one.md": "---\ntitle: \"Ends in a break\"\nsubtitle: \"Line\\n\"\n---\n# One\n\nText.\n",
            "two.md": "---\ntitle: \"Ends in CR LF\"\nsubtitle: \"Line\\r\\n\"\n---\n# Two\n\nText.\n",
            "three.md": "---\ntitle: \"No subtitle\"\n---\n# Three\n\nText.\n",
            "four.md": "---\ntitle: \"\\uFDD00&\\uFDD1 and \\uFDD01&amp;\\uFDD1 <b>\"\nsubtitle: \"\\uFDD0\"\n---\n# Four\n",
            "five.md": "---\ntitle: \"Empty\"\nsubtitle: \"\"\n---\n# Five\n\nText.\n",
        ])
        defer { vault.remove() }
        let time = try Self.expectSamePages(vault.root, "vault")
        #expect(time.skeletonPages == time.renders, "\(time)")
        // The cases happen: a line break indents what follows it in the partial, a carriage
        // return before it does not.
        let (pages, _) = try Self.pages(vault.root, skeletons: true)
        let one = try #require(pages["site/guides/one/index.html"].map { String(decoding: $0, as: UTF8.self) })
        #expect(one.hasPrefix("  [<p>Text.</p>\n  ]Ends in a break\n  <i>"), "\(one)")
        let four = try #require(pages["site/guides/four/index.html"].map { String(decoding: $0, as: UTF8.self) })
        let (start, end) = (Self.start, Self.end)
        #expect(four.contains("\(start)0&amp;\(end) and \(start)1&amp;amp;\(end) &lt;b&gt;"))
    }

    /// Templates a skeleton cannot stand for render every page by themselves.
    @Test func templatesThatReadAValuesTextRenderEveryPage() throws {
        #expect(PageSkeletons.canStandFor(["page": "{{#a}}{{b.c}}{{/a}}{{^d}}{{{e}}}{{&f}}{{/d}}{{>partial}}{{! a comment }}"]))
        for text in [
            "{{uppercased(title)}}", "{{#reversed(list)}}{{/reversed(list)}}", "{{>*name}}", "{{% CONTENT_TYPE: TEXT }}",
            "{{=<% %>=}}", "{{open", "icon \(Self.start) font", "{{<*kind}}{{/*kind}}", "{{< *kind}}{{/*kind}}",
            "{{> \n*name}}", "\u{600}{{! {{f(x)}}", "{{>\u{A0}*kind}}", "{{<\u{0C}*kind}}{{/*kind}}",
            "\u{600}{{! {{>*name}}", "\u{600}{{! {{% CONTENT_TYPE: HTML }}", "\u{600}{{! {{=<% %>=}}",
        ] {
            #expect(!PageSkeletons.canStandFor(["page": "<p>{{title}}</p>", "other": text]), "\(text)")
        }
        let vault = try TestVault([
            "templates/guide.mustache": "{{<layout}}{{$main}}<h1>{{uppercased(document.title)}}</h1>{{/main}}{{/layout}}\n",
            "one.md": "# One\n\nText.\n",
            "two.md": "# Two\n\nText.\n",
        ])
        defer { vault.remove() }
        let time = try Self.expectSamePages(vault.root, "transforms")
        #expect(time.skeletons == 0)
        let (pages, _) = try Self.pages(vault.root, skeletons: true)
        #expect(pages["site/guides/one/index.html"].map { String(decoding: $0, as: UTF8.self).contains("<h1>ONE</h1>") } == true)
    }

    /// A skeleton's markers, found again in what the template made of them.
    @Test func markersAreFoundWhereTheTemplatePutThem() throws {
        var next = 0
        let marked = PageSkeletons.marked(["x": "a&b", "y": ["line\n", ""], "z": [["w": "<c>"]] as [[String: Any]]], next: &next)
        var key = ""
        var found: [String] = []
        #expect(PageSkeletons.shape(["x": "a&b", "y": ["line\n", ""], "z": [["w": "<c>"]] as [[String: Any]]], key: &key, strings: &found))
        #expect(next == 3)
        #expect(found.count == 3)
        let x = try #require(marked["x"] as? String)
        let y = try #require(marked["y"] as? [String])
        #expect(y[1] == "")
        #expect(y[0].hasSuffix("\n"))
        // One printed raw, one escaped (as the page escaping does it), one not at all.
        let escaped = PageEscaping().escapeText(x)
        let skeleton = try #require(PageSkeletons.skeleton(of: "<p>" + escaped + "</p>" + y[0] + "end", strings: found))
        let numberOfX = try #require(found.firstIndex(of: "a&b"))
        let numberOfY = try #require(found.firstIndex(of: "line\n"))
        #expect(skeleton.slots == [.init(string: numberOfX, escaped: true), .init(string: numberOfY, escaped: false)])
        #expect(PageSkeletons.fill(skeleton, with: found) == "<p>a&amp;b</p>line\nend")
        // A marker that is not whole, or names no string: no skeleton.
        let (start, end) = (Self.start, Self.end)
        #expect(PageSkeletons.skeleton(of: start, strings: found) == nil)
        #expect(PageSkeletons.skeleton(of: "\(start)7&\(end)", strings: found) == nil)
        #expect(PageSkeletons.skeleton(of: "\(start)0&'", strings: found) == nil)
        #expect(PageSkeletons.skeleton(of: "\(start)0&\(end)", strings: found) == nil)
        // Printed inside a list, as Swift writes one: the apostrophe after a backslash.
        #expect(PageSkeletons.skeleton(of: "[\"\(start)0&\\'\(end)\"]", strings: found) == nil)
        #expect(PageSkeletons.skeleton(of: "[&quot;\(start)0&amp;\\&#39;\(end)&quot;]", strings: found) == nil)
        // What is left of a marker changed some other way.
        #expect(PageSkeletons.skeleton(of: "x\(end)y", strings: found) == nil)
        #expect(PageSkeletons.skeleton(of: "\(start)\(numberOfY)&'\(end)", strings: found) == nil, "the line break is missing")
        #expect(PageSkeletons.endsInLineBreak("a\n"))
        #expect(!PageSkeletons.endsInLineBreak("a\r\n"))
        #expect(!PageSkeletons.endsInLineBreak("a\n\u{301}"))
        #expect(PageSkeletons.endsInLineBreak("\n"))
        #expect(!PageSkeletons.endsInLineBreak(""))
    }

    /// Templates and contexts rendered both ways, through a vault's own templates: the page from
    /// a skeleton, and the page by itself. The context is rendered twice, the second time from
    /// the skeleton the first made.
    static func renderBothWays(
        _ templates: [String: String], _ contexts: [[String: Any]], page: String = "page"
    ) throws -> (pages: [(fromSkeleton: String?, byItself: String?)], time: TemplateTime) {
        var files: [String: String] = [:]
        for (name, text) in templates { files["templates/\(name).mustache"] = text }
        let vault = try TestVault(files)
        defer { vault.remove() }
        let set = TemplateSet.load(vault: vault.root)
        let clock = TemplateClock()
        let skeletons = PageSkeletons(sources: set.sources, clock: clock)
        var pages: [(fromSkeleton: String?, byItself: String?)] = []
        for context in contexts + contexts {
            pages.append((skeletons.render(page, context) { set.render(page, $0) }, set.render(page, context)))
        }
        return (pages, clock.total)
    }

    /// What the review of the skeletons found: a parent picked by a value, a list printed as
    /// Swift writes it (quoted, with backslashes), a carriage return that makes one character
    /// with the line feed after it. Each page is the page by itself.
    @Test func pagesThatASkeletonCannotStandForAreRenderedByThemselves() throws {
        let dynamicParent = try Self.renderBothWays(
            ["page": "{{<*kind}}{{/*kind}}", "a": "A:{{title}}"], [["kind": "a", "title": "T"]])
        for (fromSkeleton, byItself) in dynamicParent.pages {
            #expect(fromSkeleton == "A:T")
            #expect(fromSkeleton == byItself)
        }

        let lists = try Self.renderBothWays(
            ["page": "<p>{{list}}|{{{list}}}|{{object}}</p>"],
            [["list": ["a\"b", "it's", "x\ny"], "object": ["k": "it's"] as [String: Any]]])
        #expect(lists.time.skeletons == 0)
        for (fromSkeleton, byItself) in lists.pages {
            #expect(fromSkeleton == byItself)
            #expect(fromSkeleton?.contains("it\\&#39;s") == true, "\(fromSkeleton ?? "")")
        }

        let returns = try Self.renderBothWays(
            [
                "page": "<div>\n  {{>item}}\n</div>\n<div>\n  {{>other}}\n</div>\n",
                "item": "{{a}}\n{{b}}", "other": "x\r{{c}}{{b}}",
            ],
            [["a": "x\r", "b": "y", "c": "\n"], ["a": "x\n", "b": "y", "c": "z"]])
        for (fromSkeleton, byItself) in returns.pages {
            #expect(fromSkeleton == byItself)
        }
        // The first context is rendered by itself, the second from a skeleton.
        #expect(returns.time.skeletons == 1)
        #expect(returns.time.skeletonPages == 2)
        #expect(returns.pages[0].byItself?.contains("x\r\ny") == true)
        #expect(returns.pages[1].byItself?.contains("x\n  \n  y") == true, "\(returns.pages[1].byItself.debugDescription)")
    }
}
