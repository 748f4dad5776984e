import Foundation
import LockerKit
import LockerTestSupport
import Testing

@testable import LockerCore

/// Content nested as deep as the limit allows goes through every stage (parsing, linking, the
/// bundle's JSON, the site's HTML) on the build's worker threads; one level more is an error.
@Suite struct NestingLimitTests {
    /// `levels` of quotes and list items, in turn, around a word with a link.
    static func blocks(_ levels: Int) -> String {
        (0..<levels).map { $0 % 2 == 0 ? "> " : "- " }.joined() + "deep, see [[link]]"
    }

    /// `levels` of emphasis, `*w` and `_w` in turn: each marker next to a word, so each pair is
    /// one level.
    static func inlines(_ levels: Int) -> String {
        let markers = (0..<levels).map { $0 % 2 == 0 ? "*" : "_" }
        return markers.map { $0 + "w " }.joined() + "deep" + markers.reversed().map { " w" + $0 }.joined()
    }

    @Test func contentAtTheLimitBuildsEveryStage() throws {
        let vault = try TestVault([
            "deep.md": "# Deep\n\n" + Self.blocks(BlockConverter.nestingLimit) + "\n\n"
                + Self.inlines(BlockConverter.nestingLimit) + "\n",
            "link.md": "# Link\n\n![[deep]]\n",
        ])
        defer { vault.remove() }
        let compilation = try vault.compile()
        #expect(compilation.diagnostics.filter { $0.severity == .error }.isEmpty, "\(compilation.diagnostics)")
        let page = try #require(compilation.files.first { $0.path == "site/guides/deep/index.html" })
        #expect(String(decoding: page.data, as: UTF8.self).contains("deep"))
        #expect(compilation.files.contains { $0.path.hasPrefix("bundles/v1/guide/") })
    }

    @Test(arguments: [false, true])
    func oneLevelMoreIsAnErrorAndTheBuildWritesNothing(inline: Bool) throws {
        let levels = BlockConverter.nestingLimit + 1
        let vault = try TestVault([
            "deep.md": "# Deep\n\n" + (inline ? Self.inlines(levels) : Self.blocks(levels)) + "\n"
        ])
        defer { vault.remove() }
        let compilation = try vault.compile()
        #expect(compilation.diagnostics.map(\.code) == [.markdownTooDeep])
        #expect(compilation.failed)
        #expect(compilation.files.isEmpty)
    }

    /// Three notes, each 19 list items deep, each embedding the next at its deepest item: the
    /// last embed sits under 39 levels, one short of the budget.
    static let embedChain = [
        "a.md": "# A\n\n" + String(repeating: "- ", count: 19) + "![[b]]\n",
        "b.md": "# B\n\n" + String(repeating: "- ", count: 19) + "![[c]]\n",
        "c.md": "# C\n\n" + String(repeating: "- ", count: 19) + "*deep*, see [[a]]\n",
    ]

    @Test func embedsAtTheBudgetGiveDocumentsTheAppsCanRead() throws {
        let vault = try TestVault(Self.embedChain)
        defer { vault.remove() }
        let compilation = try vault.compile()
        #expect(compilation.diagnostics.filter { $0.severity == .error }.isEmpty, "\(compilation.diagnostics)")
        let output = try TestVault([:])
        defer { output.remove() }
        let bundle = try output.openBundle(of: compilation)
        let guide = try bundle.guide(id: "a", locale: "en")
        #expect(guide.title == "A")
        #expect(String(decoding: CanonicalJSONWriter.data(for: guide), as: UTF8.self).contains("deep"))
    }

    @Test func oneEmbedPastTheBudgetIsAnError() throws {
        var files = Self.embedChain
        files["c.md"] = "# C\n\n" + String(repeating: "- ", count: 19) + "![[d]]\n"
        files["d.md"] = "# D\n\nText.\n"
        let vault = try TestVault(files)
        defer { vault.remove() }
        let compilation = try vault.compile()
        let errors = compilation.diagnostics.filter { $0.severity == .error }
        // Reported in each note whose embeds reach past the budget, at its first embed.
        #expect(errors.map(\.code) == [.embedTooDeep], "\(compilation.diagnostics)")
        let error = try #require(errors.first)
        #expect(error.file == "a.md")
        #expect(error.position == SourcePosition(line: 3, column: 39))
        #expect(error.message.contains("more than 40 levels"), "\(error.message)")
    }
}
