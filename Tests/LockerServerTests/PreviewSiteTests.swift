import Foundation
import LockerCore
import Testing

@testable import LockerServer

@Suite struct PreviewSiteTests {
    static let page = Data("<!doctype html><html><body><h1>Anchoring</h1></body></html>\n".utf8)

    static func site(problems: [String] = [], failed: Bool = false) -> PreviewSite {
        PreviewSite(
            files: [
                OutputFile(path: "site/index.html", data: page),
                OutputFile(path: "site/guides/anchoring/index.html", data: page),
                OutputFile(path: "site/404.html", data: Data("<html><body>Not here</body></html>".utf8)),
                OutputFile(path: "site/assets/0123456789abcdef.css", data: Data("body{}".utf8)),
                OutputFile(path: "site/_headers", data: Data("/\n".utf8)),
                OutputFile(path: "bundles/v1/manifest.json", data: Data("{}\n".utf8)),
                OutputFile(path: "bundles/v1/guide/en/0123456789abcdef.json", data: Data("{}\n".utf8)),
            ], problems: problems, summary: "1 note checked: 0 errors, 0 warnings.", failed: failed, generation: 7)
    }

    func file(_ answer: PreviewSite.Answer) throws -> PreviewSite.Resource {
        guard case .file(let resource) = answer else {
            Issue.record("expected a file, got \(answer)")
            throw CancellationError()
        }
        return resource
    }

    @Test func pagesGetTheReloadScriptAndFoldersTheirIndex() throws {
        let home = try file(Self.site().answer(for: "/"))
        let text = String(decoding: home.data, as: UTF8.self)
        #expect(home.status == 200)
        #expect(home.contentType == "text/html; charset=utf-8")
        #expect(home.cacheControl == "no-cache")
        #expect(text.contains("<script src=\"/_locker/reload.js\" data-generation=\"7\" defer></script>\n</body>"))
        #expect(!text.contains("locker-diagnostics"), "no overlay when the build is clean")
        #expect(try file(Self.site().answer(for: "/guides/anchoring/")).status == 200)
        #expect(Self.site().answer(for: "/guides/anchoring") == .redirect("/guides/anchoring/"))
    }

    @Test func bundlesAreServedAsACDNWouldWithTheirCacheRules() throws {
        let manifest = try file(Self.site().answer(for: "/bundles/v1/manifest.json"))
        #expect(manifest.cacheControl == "no-cache")
        #expect(manifest.contentType == "application/json")
        #expect(manifest.data == Data("{}\n".utf8), "bundles are served as built, nothing injected")
        let guide = try file(Self.site().answer(for: "/bundles/v1/guide/en/0123456789abcdef.json"))
        #expect(guide.cacheControl == "public, max-age=31536000, immutable")
        let style = try file(Self.site().answer(for: "/assets/0123456789abcdef.css"))
        #expect(style.contentType == "text/css; charset=utf-8")
        #expect(style.cacheControl == "public, max-age=31536000, immutable")
    }

    @Test(arguments: ["/nowhere/", "/nowhere", "/_headers", "/../bundles/v1/manifest.json", "/guides/../index.html"])
    func missingOrHiddenPathsAnswerTheNotFoundPage(_ path: String) throws {
        let answer = try file(Self.site().answer(for: path))
        #expect(answer.status == 404)
        #expect(String(decoding: answer.data, as: UTF8.self).contains("Not here"))
    }

    @Test func problemsAreShownOverEveryPageEscaped() throws {
        let problem = "guides/a.md:3:1: warning: no note named '<script>' [link.broken]"
        let page = try file(Self.site(problems: [problem]).answer(for: "/"))
        let text = String(decoding: page.data, as: UTF8.self)
        #expect(text.contains("<aside id=\"locker-diagnostics\" role=\"alert\""))
        #expect(
            text.contains("<li>guides/a.md:3:1: warning: no note named &#39;&lt;script&gt;&#39; [link.broken]</li>"))
        #expect(text.contains("Built with warnings"))
        let failed = String(
            decoding: try file(Self.site(problems: [problem], failed: true).answer(for: "/")).data, as: UTF8.self)
        #expect(failed.contains("Build failed; showing the last good build"))
    }

    @Test func problemLinesKeepTheirHints() {
        let diagnostics = [
            Diagnostic(
                .warning, .linkBroken, "no note named 'x'", file: "a.md", at: SourcePosition(line: 1, column: 1),
                hint: "create the note, or fix the link"),
            Diagnostic(.error, .idInvalid, "bad", file: "b.md", at: SourcePosition(line: 2, column: 3)),
        ]
        #expect(
            PreviewBuilder.problems(diagnostics, printer: DiagnosticPrinter(format: .text)) == [
                "a.md:1:1: warning: no note named 'x' [link.broken] — hint: create the note, or fix the link",
                "b.md:2:3: error: bad [id.invalid]",
            ])
    }
}
