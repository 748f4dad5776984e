import Foundation
import LockerTemplates
import Mustache
import Testing

@testable import LockerCore

/// Templates are parsed when a page first needs them, with the templates they can include
/// (``TemplateSet``): what a page gets is what a library of every template gave it.
@Suite struct TemplateSetTests {
    /// Renders `name` through a library that holds every template of `set` that parses, parsed
    /// as the set parses them: the rendering the set's own must equal.
    private func renderedWithEveryTemplate(_ set: TemplateSet, _ name: String, _ context: [String: Any]) -> String? {
        PageEscaping.register()
        var library = MustacheLibrary()
        for (template, text) in set.sources {
            guard let parsed = try? MustacheTemplate(string: PageEscaping.pragma + text) else { continue }
            library.register(parsed, named: template)
        }
        return library.render(context, withTemplate: name)
    }

    /// What the built-in pages are rendered with here: a guide's values, and a hero with a call
    /// to action for the landing page's partial.
    private static func pageContext() -> [String: Any] {
        [
            "document": ["title": "Reefing", "body": "<p>Body</p>"], "siteTitle": "Sail", "pageTitle": "Reefing",
            "lang": "en", "strings": ["languages": "Languages"],
            "hero": ["headline": "H", "cta": ["label": "Get", "storeHref": false]],
        ]
    }

    private var context: [String: Any] { Self.pageContext() }

    @Test func everyBuiltInTemplateParses() {
        for name in DefaultTemplates.all.keys.sorted() {
            #expect(TemplateSet.parsedDefault(name) != nil, "\(name)")
        }
        #expect(TemplateSet.parsedDefault("nonexistent") == nil)
    }

    /// A text without tags that ends with a line break is its own rendering, as Mustache
    /// renders it: line breaks of both kinds, lone braces, a closing `}}`, Cyrillic and a
    /// combining mark kept as they are. Mustache drops a last line of spaces or tabs, which
    /// these texts are parsed for.
    @Test func aTextWithoutTagsIsRenderedAsMustacheRendersIt() throws {
        let style = try #require(DefaultTemplates.all["style"])
        let texts = [
            "plain": "a { b: c }\r\nd }} e\n\n  Якорь\u{301} {x}\n", "indented": "a\n  ", "spaces": "  ",
            "tab": "\t", "crlf": "x\r\n \t", "empty": "", "blank": "  \n",
        ]
        let vault = try TestVault(texts.mapKeys { "templates/\($0).mustache" })
        defer { vault.remove() }
        let set = TemplateSet.load(vault: vault.root)
        #expect(!set.diagnostics.contains { $0.severity == .error }, "\(set.diagnostics)")
        for name in texts.keys.sorted() + ["style"] {
            #expect(set.render(name, context) == renderedWithEveryTemplate(set, name, context), "\(name)")
        }
        #expect(set.render("style", [:]) == style)
        #expect(set.render("indented", [:]) == "a\n")
        #expect(set.render("plain", [:]) == texts["plain"])
    }

    /// A text ending in `{` does not parse: a diagnostic, and nothing rendered.
    @Test func aTextEndingInABraceIsNotRendered() throws {
        let vault = try TestVault(["templates/brace.mustache": "a{"])
        defer { vault.remove() }
        let set = TemplateSet.load(vault: vault.root)
        #expect(set.diagnostics.contains { $0.code == .templateInvalid && $0.file == "templates/brace.mustache" })
        #expect(set.render("brace", [:]) == nil)
    }

    /// Every built-in page, and a vault's page that includes its own partials (one of them
    /// through another), renders as a library of every template renders it.
    @Test func aPageGetsEveryTemplateItCanInclude() throws {
        let vault = try TestVault([
            "templates/guide.mustache": "{{<layout}}{{$main}}<p>{{> note }}</p>{{/main}}{{/layout}}",
            "templates/note.mustache": "[{{>inner}}]",
            "templates/inner.mustache": "inner {{document.title}}",
        ])
        defer { vault.remove() }
        let set = TemplateSet.load(vault: vault.root)
        #expect(set.diagnostics.isEmpty, "\(set.diagnostics)")
        let page = try #require(set.render("guide", context))
        #expect(page.contains("<p>[inner Reefing]</p>"), "\(page)")
        for name in set.sources.keys.sorted() {
            #expect(set.render(name, context) == renderedWithEveryTemplate(set, name, context), "\(name)")
        }
        #expect(try #require(set.render("landing", context)).contains("<span class=\"button pending\">Get</span>"))
        #expect(set.render("nonexistent", context) == nil)
    }

    /// Texts whose partials are not read here as Mustache reads them get every template: other
    /// delimiters, a partial named by a value (`{{>*name}}`), and a name followed by a space
    /// with a combining mark, which Mustache skips as white space.
    @Test(arguments: [
        "<{{=<% %>=}}<%>second%><%={{ }}=%>>", "<{{>*which}}>", "<{{>second \u{301}}}>", "<{{> \u{301}*which}}>",
    ])
    func aPartialNotReadAsMustacheReadsItGetsEveryTemplate(_ pick: String) throws {
        let vault = try TestVault([
            "templates/pick.mustache": pick,
            "templates/first.mustache": "one",
            "templates/second.mustache": "two {{n}}",
        ])
        defer { vault.remove() }
        let set = TemplateSet.load(vault: vault.root)
        let context: [String: Any] = ["which": "second", "n": 2]
        let page = set.render("pick", context)
        #expect(page == renderedWithEveryTemplate(set, "pick", context))
        #expect(page == "<two 2>", "\(set.diagnostics)")
    }

    /// Several threads rendering a set's pages for the first time at once get what one thread
    /// gets.
    @Test func firstRendersOnSeveralThreadsAgree() throws {
        let set = TemplateSet.load(vault: URL(fileURLWithPath: "/nonexistent"))
        let names = ["guide", "home", "notfound", "list", "landing", "checklist", "deck", "style"]
        let pages = Guarded([String?](repeating: nil, count: names.count * 4))
        DispatchQueue.concurrentPerform(iterations: names.count * 4) { index in
            let page = set.render(names[index % names.count], Self.pageContext())
            pages.withLock { $0[index] = page }
        }
        let rendered = pages.withLock { $0 }
        for (index, page) in rendered.enumerated() {
            let name = names[index % names.count]
            #expect(page != nil && page == renderedWithEveryTemplate(set, name, context), "\(name)")
        }
    }

    /// A vault's template that does not parse is a diagnostic at its position (the close tag
    /// whose name is not the open section's), and the page that needs it is not rendered.
    @Test func aVaultTemplateThatDoesNotParseIsADiagnostic() throws {
        let vault = try TestVault(["templates/guide.mustache": "{{<layout}}\n{{#open}}{{/layout}}"])
        defer { vault.remove() }
        let set = TemplateSet.load(vault: vault.root)
        let found = try #require(set.diagnostics.first)
        #expect(set.diagnostics.count == 1)
        #expect(found.code == .templateInvalid && found.file == "templates/guide.mustache")
        #expect(found.position == SourcePosition(line: 2, column: 13), "\(found)")
        #expect(set.render("guide", [:]) == nil)
        #expect(set.render("notfound", ["strings": [:]]) != nil)
    }
}

extension Dictionary {
    /// The same values under keys made from the old ones.
    fileprivate func mapKeys<NewKey: Hashable>(_ transform: (Key) -> NewKey) -> [NewKey: Value] {
        [NewKey: Value](uniqueKeysWithValues: map { (transform($0.key), $0.value) })
    }
}
