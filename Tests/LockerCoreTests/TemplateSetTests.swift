import Foundation
import LockerTemplates
import Mustache
import Testing

@testable import LockerCore

/// Templates are parsed when a page first needs them, with the templates they can include
/// (``TemplateSet``): what a page gets is what a library of every template gave it.
@Suite struct TemplateSetTests {
    /// Renders `name` through a library that holds every template of `set`, parsed as the set
    /// parses them: the rendering the set's own must equal.
    private func renderedWithEveryTemplate(_ set: TemplateSet, _ name: String, _ context: [String: Any]) throws
        -> String?
    {
        var library = MustacheLibrary()
        for (template, text) in set.sources {
            library.register(try MustacheTemplate(string: PageEscaping.pragma + text), named: template)
        }
        PageEscaping.register()
        return library.render(context, withTemplate: name)
    }

    @Test func everyBuiltInTemplateParses() {
        for name in DefaultTemplates.all.keys.sorted() {
            #expect(TemplateSet.parsedDefault(name) != nil, "\(name)")
        }
        #expect(TemplateSet.parsedDefault("nonexistent") == nil)
    }

    /// A text without tags is its own rendering, as Mustache renders it: line breaks of both
    /// kinds, lone braces, a closing `}}`, Cyrillic and a combining mark kept as they are.
    @Test func aTextWithoutTagsIsRenderedAsItIs() throws {
        let style = try #require(DefaultTemplates.all["style"])
        let vault = try TestVault([
            "templates/plain.mustache": "a { b: c }\r\nd }} e\n\n  Якорь\u{301} {x}\n",
            "templates/guide.mustache": "{{<layout}}{{$main}}{{>plain}}{{/main}}{{/layout}}",
        ])
        defer { vault.remove() }
        let set = TemplateSet.load(vault: vault.root)
        #expect(set.diagnostics.isEmpty)
        for name in ["style", "plain"] {
            let text = try #require(set.sources[name])
            #expect(!text.contains("{{"))
            #expect(set.render(name, ["title": "T"]) == text)
            #expect(try renderedWithEveryTemplate(set, name, ["title": "T"]) == text, "\(name)")
        }
        #expect(set.render("style", [:]) == style)
    }

    /// Every built-in page, and a vault's page that includes its own partials (by a name among
    /// other text, through a partial of a partial, with other delimiters), renders as a
    /// library of every template renders it.
    @Test func aPageGetsEveryTemplateItCanInclude() throws {
        let vault = try TestVault([
            "templates/guide.mustache":
                "{{<layout}}{{$main}}<p>{{> note }}</p>{{=<% %>=}}<%>aside%><%={{ }}=%>{{/main}}{{/layout}}",
            "templates/note.mustache": "[{{>inner}}]",
            "templates/inner.mustache": "inner {{document.title}}",
            "templates/aside.mustache": "<aside>{{siteTitle}}</aside>",
        ])
        defer { vault.remove() }
        let set = TemplateSet.load(vault: vault.root)
        #expect(!set.diagnostics.contains { $0.severity == .error }, "\(set.diagnostics)")
        let context: [String: Any] = [
            "document": ["title": "Reefing", "body": "<p>Body</p>"], "siteTitle": "Sail", "pageTitle": "Reefing",
            "lang": "en", "strings": ["languages": "Languages"],
        ]
        let page = try #require(set.render("guide", context))
        #expect(page.contains("<p>[inner Reefing]</p><aside>Sail</aside>"), "\(page)")
        for name in set.sources.keys.sorted() {
            #expect(set.render(name, context) == (try renderedWithEveryTemplate(set, name, context)), "\(name)")
        }
        #expect(set.render("nonexistent", context) == nil)
    }

    /// A partial named by a value (`{{>*name}}`) may be any template: the text's `*` gets the
    /// page every one.
    @Test func aPartialNamedByAValueGetsEveryTemplate() throws {
        let vault = try TestVault([
            "templates/pick.mustache": "<{{>*which}}>",
            "templates/first.mustache": "one",
            "templates/second.mustache": "two {{n}}",
        ])
        defer { vault.remove() }
        let set = TemplateSet.load(vault: vault.root)
        #expect(set.render("pick", ["which": "second", "n": 2]) == "<two 2>")
        #expect(set.render("pick", ["which": "first"]) == "<one>")
    }

    /// A vault's template that does not parse is a diagnostic at its position (the close tag
    /// whose name is not the open section's), and the page
    /// that needs it is not rendered; the built-in ones are not parsed for it.
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
