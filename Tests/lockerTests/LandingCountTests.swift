import Foundation
import Testing

/// A landing page's counts, built by the binary: filled in from the content, and again when a
/// rebuild over the output changes the content they count.
@Suite struct LandingCountTests {
    static let checklist =
        "---\ntype: checklist\n---\n## Deck\n\n- [ ] Hatches closed ^hatches\n- [ ] Lines coiled ^lines\n"
    static let page = """
        ---
        kind: page
        description: "{{items dock-check}}-item check, {{cards}} cards, {{guides}} guide"
        app: {name: Harbour}
        hero:
          headline: A check of {{items dock-check | item | items}}.
        ---

        """

    static func root(_ workspace: Workspace) throws -> String {
        String(decoding: try workspace.read("out/site/index.html"), as: UTF8.self)
    }

    @Test func countsComeFromTheContentAndFollowItOnARebuild() throws {
        let workspace = try Workspace([
            "dock-check.md": Self.checklist, "home.md": Self.page,
            "knots.md": "---\ntype: deck\n---\nBowline:::Loop ^bowline\n",
            "guide.md": "A guide.\n",
        ])
        defer { workspace.remove() }
        let build = try LockerRun(["build", "vault", "--out", "out", "--strict"], in: workspace.root)
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        var html = try Self.root(workspace)
        #expect(html.contains("<h1") && html.contains("A check of 2 items."), "\(html)")
        #expect(html.contains("content=\"2-item check, 2 cards, 1 guide\""), "two cards: the reverse counts")

        // One item more: the page says so after a rebuild over the previous build.
        try Data((Self.checklist + "- [ ] Fenders out ^fenders\n").utf8)
            .write(to: workspace.root.appendingPathComponent("vault/dock-check.md"))
        let again = try LockerRun(["build", "vault", "--out", "out"], in: workspace.root)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        html = try Self.root(workspace)
        #expect(html.contains("A check of 3 items."), "\(html)")
        #expect(html.contains("content=\"3-item check, 2 cards, 1 guide\""))
    }

    @Test func aCountOfNothingIsAnErrorAndNothingIsBuilt() throws {
        let workspace = try Workspace([
            "home.md": Self.page.replacingOccurrences(of: "dock-check |", with: "dock |"),
            "dock-check.md": Self.checklist,
        ])
        defer { workspace.remove() }
        let run = try LockerRun(["build", "vault", "--out", "out"], in: workspace.root)
        #expect(run.status == 1)
        #expect(
            run.stdout.hasPrefix(
                "vault/home.md:6:13: error: '{{items dock}}': no checklist has the ID 'dock' [page.invalid-count]\n"
                    + "  hint: name a checklist by its id: dock-check\n"), "\(run.stdout)")
        #expect(!FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("out").path))
    }
}
