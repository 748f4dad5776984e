import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// A build written into its output folder (``OutputWriter/Transaction``): the folder is the
/// previous build until the commit, and a commit cut short is finished by the next build.
@Suite struct OutputUpdateTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("locker-update-\(UUID().uuidString)")
    }

    static let first = [
        OutputFile(path: "bundles/v1/manifest.json", data: Data("{\"v\":1}".utf8)),
        OutputFile(path: "bundles/v1/guide/en/aaaa.json", data: Data("{}".utf8)),
        OutputFile(path: "site/guides/a/index.html", data: Data("A".utf8)),
        OutputFile(path: "site/guides/b/index.html", data: Data("B".utf8)),
    ]
    static let second = [
        OutputFile(path: "bundles/v1/manifest.json", data: Data("{\"v\":2}".utf8)),
        OutputFile(path: "bundles/v1/guide/en/bbbb.json", data: Data("{}{}".utf8)),
        OutputFile(path: "site/guides/a/index.html", data: Data("A, edited".utf8)),
        OutputFile(path: "site/guides/c/index.html", data: Data("C".utf8)),
    ]

    /// The output's files but the marker, by path, as text.
    static func files(_ output: URL) throws -> [String: String] {
        var tree = try GoldenTests.readTree(output)
        tree[OutputWriter.marker] = nil
        return tree.mapValues { String(decoding: $0, as: UTF8.self) }
    }

    /// Runs `body` on a folder that holds a build of ``first``, removed afterwards.
    static func withFirstBuild(_ body: (URL) throws -> Void) throws {
        let output = folder()
        defer { removeOutput(output) }
        try OutputWriter.replace(output, with: first)
        try body(output)
    }

    /// Builds `files` into `output` over the build there, committed with `record`.
    static func build(_ files: [OutputFile], into output: URL, record: BuildRecord) throws {
        let update = try OutputWriter.begin(replacing: output)
        for file in files { try update.write(file) }
        try update.commit(record: record)
    }

    static func expected(_ files: [OutputFile]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: files.map { ($0.path, String(decoding: $0.data, as: UTF8.self)) })
    }

    @Test func aRebuildIsWrittenInPlaceAndUntilTheCommitTheFolderIsThePreviousBuild() throws {
        try Self.withFirstBuild { output in
            do {
                let transaction = try OutputWriter.begin(replacing: output)
                for file in Self.second { try transaction.write(file) }
                // Written, not committed: the new files wait in the hidden scratch folder.
                let visible = try Self.files(output).filter { !$0.key.hasPrefix(OutputWriter.Journal.scratchPrefix) }
                #expect(visible == Self.expected(Self.first))
                transaction.discard()
                #expect(try Self.files(output) == Self.expected(Self.first))
            }

            let again = try OutputWriter.begin(replacing: output)
            for file in Self.second { try again.write(file) }
            try again.commit()
            #expect(try Self.files(output) == Self.expected(Self.second))
            // The folders of removed files go with them.
            #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("site/guides/b").path))
        }
    }

    /// A file the previous build wrote is kept while it is the file it wrote; changed in place
    /// (with the same size), replaced or removed since, it is written again.
    @Test func aFileChangedOrRemovedSinceThePreviousBuildIsWrittenAgain() throws {
        try Self.withFirstBuild { output in
            let root = output.path + "/"
            func inode(_ path: String) -> UInt64? { FileStamp(regularFileAt: root + path)?.inode }
            let kept = inode("bundles/v1/manifest.json")
            let handle = try #require(FileHandle(forWritingAtPath: root + "site/guides/a/index.html"))
            try handle.write(contentsOf: Data("a".utf8))
            try handle.close()
            try Data("B".utf8).write(to: URL(fileURLWithPath: root + "site/guides/b/index.html"))
            try FileManager.default.removeItem(atPath: root + "bundles/v1/guide/en/aaaa.json")
            let replaced = inode("site/guides/b/index.html")

            try OutputWriter.replace(output, with: Self.first)
            #expect(try Self.files(output) == Self.expected(Self.first))
            #expect(inode("bundles/v1/manifest.json") == kept)
            #expect(inode("site/guides/b/index.html") != replaced)
        }
    }

    /// A page whose inputs are the previous build's is kept without its bytes, and counted.
    @Test func aPageMadeFromTheSameInputsIsKept() throws {
        let output = Self.folder()
        defer { removeOutput(output) }
        let page = OutputFile(path: "site/a/index.html", data: Data("A".utf8))
        // Each transaction holds the folder until it is released, at the end of its block.
        do {
            let first = try OutputWriter.begin(replacing: output)
            try first.write(page, sha256: nil, inputs: "1")
            try first.commit()
        }
        for (unchanged, kept) in [(Unchanged.inputs("2"), false), (.inputs("1"), true), (.inputs("1"), true)] {
            do {
                let next = try OutputWriter.begin(replacing: output)
                #expect(try next.keep(page.path, if: unchanged) == kept)
                #expect(try next.keep("site/b/index.html", if: unchanged) == false)
                if !kept { try next.write(page, sha256: nil, inputs: "1") }
                try next.commit()
                #expect(next.reusedCount == (kept ? 1 : 0))
            }
            #expect(try Self.files(output) == Self.expected([page]))
        }
        // Kept for its bytes, it is no longer a page of recorded inputs.
        do {
            let next = try OutputWriter.begin(replacing: output)
            #expect(try next.keep(page.path, if: .bytes(sha256: page.sha256Hex)))
            try next.commit()
            #expect(next.reusedCount == 0)
        }
        let last = try OutputWriter.begin(replacing: output)
        #expect(try last.keep(page.path, if: .inputs("1")) == false)
        last.discard()
    }

    @Test func aCommitCutShortIsFinishedByTheNextBuild() throws {
        try Self.withFirstBuild { output in
            do {
                let update = try #require(try OutputWriter.begin(replacing: output) as? OutputWriter.Transaction)
                for file in Self.second { try update.write(file) }
                // The journal is saved and the process stops before carrying it out.
                let journal = try #require(try update.prepare(record: nil))
                // It names the new marker, which waits in the scratch folder, instead of holding it.
                let newMarker = try #require(journal.newMarker)
                #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(newMarker).path))
            }
            // Saved in the scratch folder: the output holds nothing else of the build's own.
            let saved = try #require(OutputWriter.Journal.saved(in: output))
            #expect(saved.hasPrefix(output.path + "/" + OutputWriter.Journal.scratchPrefix))
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "x")) == nil)
            #expect(
                try OutputWriter.previousFiles(of: output).map { Set($0.files.keys) } == Set(Self.first.map(\.path)))

            let next = try OutputWriter.begin(replacing: output)
            #expect(OutputWriter.Journal.saved(in: output) == nil)
            #expect(try Self.files(output) == Self.expected(Self.second))
            // The marker is the new build's.
            #expect(
                try OutputWriter.previousFiles(of: output).map { Set($0.files.keys) } == Set(Self.second.map(\.path)))
            next.discard()
            #expect(try Self.files(output) == Self.expected(Self.second))
        }
    }

    /// The search index Pagefind makes in the site after a build (`site/pagefind/`, which no
    /// build lists) describes the pages it was made from: a commit that writes or removes a file
    /// of the site removes it with its journal, before the new files arrive, and a commit cut
    /// short removes it when the next build finishes it; a commit that changes nothing in the
    /// site keeps it.
    @Test func aCommitThatChangesTheSiteRemovesItsSearchIndex() throws {
        try Self.withFirstBuild { output in
            let index = output.appendingPathComponent("site/pagefind")
            func makeIndex() throws {
                try FileManager.default.createDirectory(
                    at: index.appendingPathComponent("fragment"), withIntermediateDirectories: true)
                try Data("{}".utf8).write(to: index.appendingPathComponent("pagefind-entry.json"))
                try Data("x".utf8).write(to: index.appendingPathComponent("fragment/ru_1.pf_fragment"))
            }
            try makeIndex()
            // The same pages, another bundle: the index stays.
            var bundleOnly = Self.first
            bundleOnly[0] = OutputFile(path: "bundles/v1/manifest.json", data: Data("{\"v\":3}".utf8))
            try OutputWriter.replace(output, with: bundleOnly)
            #expect(FileManager.default.fileExists(atPath: index.appendingPathComponent("pagefind-entry.json").path))

            // A page changed: the journal names the index, which stays until it is carried out.
            do {
                let update = try #require(try OutputWriter.begin(replacing: output) as? OutputWriter.Transaction)
                for file in Self.second { try update.write(file) }
                let journal = try #require(try update.prepare(record: nil))
                #expect(journal.stale == ["site/pagefind"])
                #expect(FileManager.default.fileExists(atPath: index.path))
            }
            // Cut short there: the next build finishes the commit.
            do {
                let next = try OutputWriter.begin(replacing: output)
                next.discard()
            }
            #expect(!FileManager.default.fileExists(atPath: index.path))
            #expect(try Self.files(output) == Self.expected(Self.second))

            // A page removed and none written: gone too.
            try makeIndex()
            try OutputWriter.replace(output, with: Self.second.filter { $0.path != "site/guides/c/index.html" })
            #expect(!FileManager.default.fileExists(atPath: index.path))
        }
    }

    /// A commit stopped after its last step, before its journal was removed, is applied again
    /// by the next build: the renames and the marker's rename find their sources gone, and the
    /// folder stays the new build.
    @Test func aJournalAppliedTwiceLeavesTheNewBuild() throws {
        try Self.withFirstBuild { output in
            do {
                let update = try #require(try OutputWriter.begin(replacing: output) as? OutputWriter.Transaction)
                for file in Self.second { try update.write(file) }
                let journal = try #require(try update.prepare(record: nil))
                let journalPath = URL(fileURLWithPath: try #require(OutputWriter.Journal.saved(in: output)))
                let saved = try Data(contentsOf: journalPath)
                try journal.apply(in: output)
                #expect(OutputWriter.Journal.saved(in: output) == nil)
                // Saved again where it was: the commit stopped before its scratch folder went.
                try FileManager.default.createDirectory(
                    at: journalPath.deletingLastPathComponent(), withIntermediateDirectories: true)
                try saved.write(to: journalPath)
            }
            let next = try OutputWriter.begin(replacing: output)
            next.discard()
            #expect(OutputWriter.Journal.saved(in: output) == nil)
            #expect(try Self.files(output) == Self.expected(Self.second))
            #expect(
                try OutputWriter.previousFiles(of: output).map { Set($0.files.keys) } == Set(Self.second.map(\.path)))
        }
    }

    /// A new marker removed from the scratch folder before the commit (by hand) is not taken
    /// for one renamed by an earlier apply: the commit fails, the previous marker (and its
    /// record) stays with the renamed files added as unknown, and the next build does not take
    /// the folder for up to date and removes what it no longer writes.
    @Test func aCommitWhoseNewMarkerIsGoneIsNotUpToDate() throws {
        try Self.withFirstBuild { output in
            // The build in place, with its record: up to date for its own fingerprint.
            let earlier = BuildRecord(fingerprint: BuildFingerprint(hex: "e"), report: "", summary: "built before")
            try Self.build(Self.first, into: output, record: earlier)
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "e")) == earlier)
            let record = BuildRecord(fingerprint: BuildFingerprint(hex: "f"), report: "", summary: "built")
            let files = Self.second
            do {
                let update = try #require(try OutputWriter.begin(replacing: output) as? OutputWriter.Transaction)
                for file in files { try update.write(file) }
                let journal = try #require(try update.prepare(record: record))
                let newMarker = try #require(journal.newMarker)
                try FileManager.default.removeItem(at: output.appendingPathComponent(newMarker))
                #expect {
                    try journal.apply(in: output)
                } throws: { error in
                    "\(error)".contains("the new marker is not in place")
                }
            }
            // The earlier marker and its record stay, but its files are no longer all in place.
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "f")) == nil)
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "e")) == nil)
            // The marker in place now lists the files the commit renamed in, unknown: the next
            // build, of the earlier files, removes those at new paths and rewrites the others.
            let marker = try #require(OutputMarker(in: output))
            for file in files { #expect(marker.files[file.path] == OutputMarker.Entry(sha256: "-"), "\(file.path)") }
            try Self.build(Self.first, into: output, record: earlier)
            #expect(try Self.files(output) == Self.expected(Self.first))
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "e")) == earlier)
        }
    }

    /// While a build writes into the folder, another is not told it is up to date: the record
    /// it would read may be about to be replaced, with the files it describes.
    @Test func noBuildIsUpToDateWhileAnotherWrites() throws {
        try Self.withFirstBuild { output in
            let record = BuildRecord(fingerprint: BuildFingerprint(hex: "f"), report: "", summary: "built")
            try Self.build(Self.first, into: output, record: record)
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "f")) == record)
            do {
                let writing = try OutputWriter.begin(replacing: output)
                #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "f")) == nil)
                writing.discard()
            }
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "f")) == record)

            // Checks hold the lock together.
            let reader = try OutputLock(for: output, shared: true)
            #expect(reader != nil)
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "f")) == record)
            withExtendedLifetime(reader) {}
        }
    }

    /// A check holds the lock while it looks at the folder's files: a build that starts
    /// meanwhile waits for it, however long it takes (here longer than the second a writer
    /// once waited).
    @Test func aBuildWaitsForACheckThatReadsTheFolder() throws {
        final class Reader: @unchecked Sendable {
            var lock: OutputLock?
        }
        try Self.withFirstBuild { output in
            let reader = Reader()
            reader.lock = try OutputLock(for: output, shared: true)
            #expect(reader.lock != nil)
            let released = DispatchSemaphore(value: 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + 1.2) {
                reader.lock = nil
                released.signal()
            }
            let writer = try OutputWriter.begin(replacing: output)
            released.wait()
            writer.discard()
        }
    }

    @Test func aSecondBuildIntoTheFolderStopsWhileTheFirstWrites() throws {
        try Self.withFirstBuild { output in
            do {
                let first = try OutputWriter.begin(replacing: output)
                for file in Self.second { try first.write(file) }
                #expect {
                    _ = try OutputWriter.begin(replacing: output)
                } throws: { error in
                    "\(error)".contains("another build is writing into \(output.path)")
                }
                try first.commit()
            }
            // The first is done: the next goes ahead.
            let next = try OutputWriter.begin(replacing: output)
            next.discard()
            #expect(try Self.files(output) == Self.expected(Self.second))
        }
    }

    /// A first build is written beside its folder, which appears whole at the commit; a second
    /// build into it stops meanwhile.
    @Test func aFirstBuildAppearsWholeAndASecondStopsWhileItWrites() throws {
        let output = Self.folder()
        defer { removeOutput(output) }
        let first = try OutputWriter.begin(replacing: output)
        #expect(throws: LockerError.self) { _ = try OutputWriter.begin(replacing: output) }
        for file in Self.first { try first.write(file) }
        #expect(!FileManager.default.fileExists(atPath: output.path))
        try first.commit()
        #expect(try Self.files(output) == Self.expected(Self.first))
        // Still locked until released.
        #expect(throws: LockerError.self) { _ = try OutputWriter.begin(replacing: output) }
    }

    /// A first build killed with SIGKILL leaves its staging folder beside the output; the next
    /// build, holding the lock, removes it.
    @Test func whatAKilledFirstBuildLeftBesideTheFolderIsRemoved() throws {
        let output = Self.folder()
        let parent = output.deletingLastPathComponent()
        let name = output.lastPathComponent
        defer { removeOutput(output) }
        func beside() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: parent.path).filter { $0.hasPrefix(".\(name).") }
                .sorted()
        }
        // Released without a discard, as a killed process leaves it: the staging folder stays.
        do {
            let killed = try OutputWriter.begin(replacing: output)
            for file in Self.first { try killed.write(file) }
        }
        #expect(try beside().contains { $0.hasPrefix(".\(name).staging-") })
        try OutputWriter.replace(output, with: Self.first)
        #expect(try beside() == [OutputLock.file(for: output).lastPathComponent])
        #expect(try Self.files(output) == Self.expected(Self.first))
    }

    /// A folder whose marker lists nothing (an earlier format's), or an empty folder, is replaced
    /// whole: what the new build does not write goes.
    @Test func aFolderWhoseMarkerListsNothingIsReplacedWhole() throws {
        let output = Self.folder()
        defer { removeOutput(output) }
        try FileManager.default.createDirectory(
            at: output.appendingPathComponent("old/deep"), withIntermediateDirectories: true)
        try Data("heading\nformat 1\nx old/deep/a.json\n".utf8).write(
            to: output.appendingPathComponent(OutputWriter.marker))
        try Data("{}".utf8).write(to: output.appendingPathComponent("old/deep/a.json"))
        try OutputWriter.replace(output, with: Self.second)
        #expect(try Self.files(output) == Self.expected(Self.second))
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("old").path))
    }

    @Test func aJournalCutShortWhileSavedIsDroppedAndTheFolderIsThePreviousBuild() throws {
        try Self.withFirstBuild { output in
            let scratch = output.appendingPathComponent(OutputWriter.Journal.scratchPrefix + "cut")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try Data("{\"renames\":[[".utf8).write(to: scratch.appendingPathComponent(OutputWriter.Journal.file))
            let next = try OutputWriter.begin(replacing: output)
            #expect(OutputWriter.Journal.saved(in: output) == nil)
            #expect(!FileManager.default.fileExists(atPath: scratch.path))
            next.discard()
            #expect(try Self.files(output) == Self.expected(Self.first))
        }
    }

    /// On a file system that ignores case, `Guide.json` written by this build is the previous
    /// build's `guide.json`, which the commit then removes: the removal must keep it. A hard link
    /// stands in for the second spelling here: two names, one inode. A removal whose twin is
    /// another file (a file system that tells the spellings apart) is removed.
    @Test func aRemovalThatIsANewFileUnderAnotherSpellingIsKept() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { removeOutput(output) }
        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: output.appendingPathComponent(name))
        }
        // The new build: `Guide.json` renamed into place, `OLD.json` kept where it was.
        try write("scratch", "new")
        try write("OLD.json", "kept")
        // The previous build's `guide.json` is the new file's other spelling; `old.json` is not.
        #expect(
            link(output.appendingPathComponent("scratch").path, output.appendingPathComponent("guide.json").path) == 0)
        try write("old.json", "old")
        let newFiles = [
            "Guide.json": OutputMarker.Entry(sha256: ""), "OLD.json": OutputMarker.Entry(sha256: ""),
        ]
        let journal = OutputWriter.Journal(
            scratch: OutputWriter.Journal.scratchPrefix + "x", renames: [["scratch", "Guide.json"]],
            removals: ["guide.json", "old.json"],
            twins: OutputWriter.Journal.twins(of: ["guide.json", "old.json"], among: newFiles.keys))
        #expect(journal.twins == [["guide.json", "Guide.json"], ["old.json", "OLD.json"]])
        try journal.apply(in: output)
        let names = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        #expect(names == ["Guide.json", "OLD.json", "guide.json"])

    }

    @Test func twinsAreFoundAcrossCaseWidthAndComposition() {
        let removals = ["Gu\u{0301}ide.json", "ＰＬＡＩＮ.json", "other.json", "Site/A-Z_[@].html"]
        let files = [
            "gúide.JSON": OutputMarker.Entry(sha256: ""), "plain.json": .init(sha256: ""),
            "another.json": .init(sha256: ""), "site/a-z_[@].HTML": .init(sha256: ""),
            "site/A-Z_{`}.html": .init(sha256: ""), "OTHER.jsoN": .init(sha256: ""), "OTHER.jsoX": .init(sha256: ""),
        ]
        let pairs = [
            ["Gu\u{0301}ide.json", "gúide.JSON"], ["Site/A-Z_[@].html", "site/a-z_[@].HTML"],
            ["other.json", "OTHER.jsoN"], ["ＰＬＡＩＮ.json", "plain.json"],
        ]
        // ASCII paths fold by case alone: `[@]` and `{`}` differ by 0x20 but are not letters.
        #expect(OutputWriter.Journal.twins(of: removals, among: files.keys) == pairs)
    }

    @Test func whatAStoppedBuildLeftIsRemovedByTheNext() throws {
        try Self.withFirstBuild { output in
            // Killed while writing: its scratch folder and a file in it stay behind.
            do {
                let update = try OutputWriter.begin(replacing: output)
                for file in Self.second { try update.write(file) }
            }
            let names = { try FileManager.default.contentsOfDirectory(atPath: output.path) }
            #expect(try names().contains { $0.hasPrefix(OutputWriter.Journal.scratchPrefix) })
            let next = try OutputWriter.begin(replacing: output)
            #expect(try names().count { $0.hasPrefix(OutputWriter.Journal.scratchPrefix) } == 1, "its own")
            for file in Self.second { try next.write(file) }
            try next.commit()
            #expect(try Self.files(output) == Self.expected(Self.second))
            #expect(try !names().contains { $0.hasPrefix(OutputWriter.Journal.scratchPrefix) })
        }
    }
}
