import Foundation
import Testing

/// The examples of README.md and docs/ that show Locker's output are generated: each lies between
/// `<!-- generated: NAME -->` and `<!-- end generated -->`, and ``DocsExamples`` makes it from
/// real runs of the built `locker` on `content/` and the test vaults. A region that differs from
/// what is made now fails here, naming the document and the region.
///
/// Run with `LOCKER_RECORD=1` (or `make record`) to rewrite the regions from the current output;
/// a recording run that rewrites one fails, as the golden files' does, so recording is always
/// deliberate.
@Suite struct DocsExamplesTests {
    static let recording = ProcessInfo.processInfo.environment["LOCKER_RECORD"] == "1"

    @Test(arguments: DocsExamples.documents)
    func generatedRegionsMatchTheBuild(_ document: String) throws {
        let examples = try DocsExamples.shared.get()
        let url = DocsExamples.repository.appendingPathComponent(document)
        let text = try String(contentsOf: url, encoding: .utf8)
        let regions = try DocRegions(text)
        for region in regions.regions where examples[region.name] == nil {
            Issue.record("\(document):\(region.line): no example is generated under the name '\(region.name)'")
        }
        let changed = regions.regions.filter { region in examples[region.name].map { $0 != region.body } ?? false }
        guard !changed.isEmpty else { return }
        if Self.recording {
            try Data(regions.rewritten(with: examples).utf8).write(to: url, options: .atomic)
            let names = changed.map(\.name).joined(separator: ", ")
            Issue.record(
                "rewrote the generated regions \(names) of \(document); review the diff and run again without LOCKER_RECORD"
            )
            return
        }
        for region in changed {
            let expected = examples[region.name] ?? ""
            Issue.record(
                """
                \(document):\(region.line): the generated region '\(region.name)' no longer matches what locker \
                makes; re-record it with `LOCKER_RECORD=1 swift test --filter DocsExamplesTests` (or `make record`), \
                review the diff and commit.
                \(Self.firstDifference(region.body, expected))
                """)
        }
    }

    /// Every region the generator makes is shown by some document: none is made for nothing.
    @Test func everyGeneratedExampleIsShown() throws {
        let examples = try DocsExamples.shared.get()
        var shown: Set<String> = []
        for document in DocsExamples.documents {
            let text = try String(contentsOf: DocsExamples.repository.appendingPathComponent(document), encoding: .utf8)
            shown.formUnion(try DocRegions(text).regions.map(\.name))
        }
        #expect(Set(examples.keys).subtracting(shown).sorted() == [], "generated but in no document")
    }

    @Test func aRegionIsRewrittenBetweenItsMarkersAndNothingElseChanges() throws {
        let text = "# Doc\n\n<!-- generated: tree (a note) -->\nold\n<!-- end generated -->\nafter\n"
        let regions = try DocRegions(text)
        #expect(regions.regions.map(\.name) == ["tree"])
        #expect(regions.regions.first?.body == "old\n")
        #expect(regions.regions.first?.line == 3)
        #expect(
            regions.rewritten(with: ["tree": "new\nlines\n"])
                == "# Doc\n\n<!-- generated: tree (a note) -->\nnew\nlines\n<!-- end generated -->\nafter\n")
    }

    @Test func aRegionWithoutItsEndIsRefused() {
        #expect(throws: DocRegions.Failure.self) { try DocRegions("<!-- generated: a -->\ntext\n") }
        #expect(throws: DocRegions.Failure.self) { try DocRegions("text\n<!-- end generated -->\n") }
    }

    /// The first line where the document's text and the generated text differ.
    static func firstDifference(_ written: String, _ generated: String) -> String {
        let old = written.split(separator: "\n", omittingEmptySubsequences: false)
        let new = generated.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(old.count, new.count) {
            let was = index < old.count ? String(old[index]) : "(nothing)"
            let now = index < new.count ? String(new[index]) : "(nothing)"
            if was != now {
                return "first difference, line \(index + 1) of the region:\n  doc:       \(was)\n  generated: \(now)"
            }
        }
        return "they differ in their last newline"
    }
}
