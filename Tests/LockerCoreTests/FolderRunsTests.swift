import Testing

@testable import LockerCore

@Suite struct FolderRunsTests {
    /// The runs `FolderRuns.runs` gives for `paths`, as folder (or "-") and places.
    private func runs(_ paths: [String], prefix: String = "") -> [String] {
        FolderRuns.runs(paths.count, prefix: prefix, path: { paths[$0] }).map { folder, places in
            "\(folder ?? "-") \(places.lowerBound)..<\(places.upperBound)"
        }
    }

    @Test func neighboursInOneFolderAreOneRun() {
        #expect(runs([]) == [])
        #expect(runs(["a/1", "a/2", "b/1", "a/3"]) == ["a 0..<2", "b 2..<3", "a 3..<4"])
        // A folder whose name starts another's is a run of its own.
        #expect(runs(["de/1", "decks/1", "decks/2", "de/2"]) == ["de 0..<1", "decks 1..<3", "de 3..<4"])
        // Paths without a folder are runs of one, even side by side.
        #expect(runs(["top", "other", "a/b/c", "a/d"]) == ["- 0..<1", "- 1..<2", "a 2..<4"])
        // Only the first folder counts; a folder's own name is not in it.
        #expect(runs(["a", "a/b/1", "a/c/1"]) == ["- 0..<1", "a 1..<3"])
    }

    @Test func aPrefixIsSkippedBeforeTheFolder() {
        let pages = ["ru/", "ru/guide/1", "ru/guide/2", "ru/deck/1"]
        #expect(runs(pages, prefix: "ru/") == ["- 0..<1", "guide 1..<3", "deck 3..<4"])
        // Non-ASCII folder names are cut by bytes.
        #expect(runs(["ru/узлы/1", "ru/узлы/2", "ru/у/1"], prefix: "ru/") == ["узлы 0..<2", "у 2..<3"])
    }
}
