import Foundation
import Testing

/// The site's search: the default vault built by the real binary, indexed by Pagefind after the
/// build, and searched in headless Chromium; and what a rebuild does with an index made from the
/// previous pages.
///
/// Needs Pagefind (`pagefind[extended]` in `.build/tools`, from `Tests/browser/requirements.txt`),
/// Chromium and its driver, which `make test` installs; without them the tests fail.
@Suite(.serialized) struct SiteSearchTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs a program found on PATH; its status and what it printed (both streams).
    static func run(_ arguments: [String], in folder: URL? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Indexes a built site with Pagefind, as `make run` does after the build.
    static func index(_ site: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let pagefind = try run(["python3", "-m", "pagefind", "--site", site.path])
        try #require(
            pagefind.status == 0,
            "pagefind could not index \(site.path) (`make test` installs it into .build/tools):\n\(pagefind.output)",
            sourceLocation: sourceLocation)
        #expect(
            FileManager.default.fileExists(atPath: site.appendingPathComponent("pagefind/pagefind-entry.json").path),
            sourceLocation: sourceLocation)
    }

    /// Runs `Tests/browser/check_search.py` over a site; its report.
    static func checkSearch(
        _ site: URL, screenshots: URL, _ arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        let script = repository.appendingPathComponent("Tests/browser/check_search.py")
        let result = try run(["python3", script.path, site.path, screenshots.path] + arguments)
        let json = result.output.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require(
            try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            "no report from check_search.py (status \(result.status)):\n\(result.output)",
            sourceLocation: sourceLocation)
        #expect(report["error"] == nil, "\(report["error"] ?? "")", sourceLocation: sourceLocation)
        let problems = report["problems"] as? [String] ?? ["no problems list"]
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))", sourceLocation: sourceLocation)
        #expect(result.status == 0, "check_search.py exited \(result.status)", sourceLocation: sourceLocation)
        return report
    }

    /// Without an index the box stays hidden; with one, «якорем» and «якоря» on the Russian home
    /// page and «якорь» on a Russian checklist find the Russian anchoring guide (Pagefind stems
    /// Russian) and no English page, and "anchoring" on `/en/` finds the English guide and only
    /// English pages; at a phone's width and a desktop's, under the site's own Content Security
    /// Policy. Screenshots of the results go to `locker-search-screenshots/` in the temporary
    /// folder.
    @Test func theSearchBoxFindsPagesInTheirLanguageInChromium() throws {
        let workspace = try Workspace([:])
        defer { workspace.remove() }
        let built = try LockerRun(
            ["build", Self.repository.appendingPathComponent("content").path, "--out", "out"], in: workspace.root)
        try #require(built.status == 0, "\(built.stdout)\(built.stderr)")
        let site = workspace.root.appendingPathComponent("out/site")
        let screenshots = FileManager.default.temporaryDirectory.appendingPathComponent("locker-search-screenshots")

        let hidden = try Self.checkSearch(site, screenshots: screenshots, ["--hidden"])
        #expect(hidden["cases"] as? Int == 2)

        try Self.index(site)
        let report = try Self.checkSearch(site, screenshots: screenshots)
        #expect(report["cases"] as? Int == 8, "four searches at two widths")
        let results = report["results"] as? [[String: Any]] ?? []
        let english = results.filter { ($0["case"] as? String)?.hasPrefix("en/") == true }
        #expect(english.count == 2)
        for result in english {
            #expect((result["paths"] as? [String])?.first == "/en/guides/anchoring/", "\(result)")
        }
        for width in [390, 1280] {
            #expect(
                FileManager.default.fileExists(atPath: screenshots.appendingPathComponent("search-1-\(width).png").path)
            )
        }
    }

    /// A rebuild that changes the site removes the search index made from the previous pages,
    /// and says so; an unchanged vault is up to date and keeps it.
    @Test func aRebuildThatChangesThePagesRemovesTheSearchIndex() throws {
        let workspace = try Workspace([
            "anchoring.md": "---\ntitle: Anchoring\n---\nLet go.\n",
            "mooring.md": "---\ntitle: Mooring\n---\nStern-to.\n",
        ])
        defer { workspace.remove() }
        let build = ["build", "vault", "--out", "out"]
        #expect(try LockerRun(build, in: workspace.root).status == 0)
        let site = workspace.root.appendingPathComponent("out/site")
        try Self.index(site)
        let index = site.appendingPathComponent("pagefind")

        let again = try LockerRun(build, in: workspace.root)
        #expect(again.status == 0 && again.stdout.contains("Up to date."), "\(again.stdout)\(again.stderr)")
        #expect(FileManager.default.fileExists(atPath: index.path), "an up-to-date build keeps the index")

        try Data("---\ntitle: Anchoring at night\n---\nShow the light.\n".utf8)
            .write(to: workspace.root.appendingPathComponent("vault/anchoring.md"))
        let edited = try LockerRun(build, in: workspace.root)
        #expect(edited.status == 0, "\(edited.stdout)\(edited.stderr)")
        #expect(!FileManager.default.fileExists(atPath: index.path), "the index of the old pages is gone")
        #expect(
            edited.stdout.contains(
                "Removed out/site/pagefind/, the search index of the previous pages; make it again with "
                    + "`python3 -m pagefind --site out/site`."), "\(edited.stdout)")
        let page = String(decoding: try workspace.read("out/site/guides/anchoring/index.html"), as: UTF8.self)
        #expect(page.contains("<h1>Anchoring at night</h1>"))

        try Self.index(site)
        let unchanged = try LockerRun(build, in: workspace.root)
        #expect(unchanged.stdout.contains("Up to date."), "\(unchanged.stdout)")
        #expect(FileManager.default.fileExists(atPath: index.path))
    }
}
