import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// A build over the previous one in its folder (``OutputWriter/Update``): the folder is the
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
                #expect(transaction is OutputWriter.Update)
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

    /// A large file, hashed while it is written, is kept when the previous build wrote the same
    /// bytes (its copy dropped) and written when they differ, as a small one is.
    @Test func aLargeFileIsKeptOrWrittenAsASmallOneIs() throws {
        let size = OutputWriter.Update.hashedWhileWritten
        let large = (0..<size + 7).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = "bundles/v1/manifest.json"
        let output = Self.folder()
        defer { removeOutput(output) }
        try OutputWriter.replace(output, with: [OutputFile(path: path, pieces: [large[..<10], large[10...]])])
        let inode = { () throws -> Int in
            let attributes = try FileManager.default.attributesOfItem(atPath: output.path + "/" + path)
            return try #require(attributes[.systemFileNumber] as? Int)
        }
        let first = try inode()

        // The same bytes, in other pieces: kept, not written. (Each update holds the folder
        // until it ends.)
        do {
            let same = try OutputWriter.begin(replacing: output)
            try same.write(OutputFile(path: path, pieces: [large]))
            try same.commit()
        }
        #expect(try inode() == first)
        #expect(try Data(contentsOf: output.appendingPathComponent(path)) == Data(large))
        let left = try FileManager.default.contentsOfDirectory(atPath: output.path)
        #expect(!left.contains { $0.hasPrefix(OutputWriter.Journal.scratchPrefix) }, "\(left)")

        // One byte changed: written.
        var changed = large
        changed[size / 2] ^= 1
        do {
            let other = try OutputWriter.begin(replacing: output)
            try other.write(OutputFile(path: path, pieces: [changed]))
            try other.commit()
        }
        #expect(try Data(contentsOf: output.appendingPathComponent(path)) == Data(changed))
        #expect(try OutputWriter.previousFiles(of: output)?[path]?.sha256 == ContentHash.sha256Hex(Data(changed)))

        // A byte longer: hashed while it is written, and written.
        let longer = changed + [7]
        do {
            let other = try OutputWriter.begin(replacing: output)
            try other.write(OutputFile(path: path, pieces: [longer[..<3], longer[3...]]))
            try other.commit()
        }
        #expect(try Data(contentsOf: output.appendingPathComponent(path)) == Data(longer))
        #expect(try OutputWriter.previousFiles(of: output)?[path]?.sha256 == ContentHash.sha256Hex(Data(longer)))
        let scratch = try FileManager.default.contentsOfDirectory(atPath: output.path)
        #expect(!scratch.contains { $0.hasPrefix(OutputWriter.Journal.scratchPrefix) }, "\(scratch)")
    }

    /// A large file the update read ahead (the manifest) is compared with the bytes read, not
    /// hashed: kept when they are its bytes, else written and listed unhashed; the next update
    /// compares it with the bytes it reads ahead in turn, and one without them hashes it again.
    @Test func aLargeFileReadAheadIsComparedWithItsBytesNotHashed() throws {
        let size = OutputWriter.Update.hashedWhileWritten
        let large = (0..<size + 7).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = OutputPrefetch.manifest
        let output = Self.folder()
        defer { removeOutput(output) }
        try OutputWriter.replace(output, with: [OutputFile(path: path, pieces: [large])])
        let inode = { () throws -> Int in
            let attributes = try FileManager.default.attributesOfItem(atPath: output.path + "/" + path)
            return try #require(attributes[.systemFileNumber] as? Int)
        }
        /// Writes `bytes` at `path` in an update that read the output ahead, or did not.
        func update(_ bytes: [UInt8], readAhead: Bool = true) throws {
            let transaction = try OutputWriter.begin(
                replacing: output, prefetched: readAhead ? OutputPrefetch(output: output) : nil)
            try transaction.write(OutputFile(path: path, pieces: [bytes[..<5], bytes[5...]]))
            try transaction.commit()
        }
        let sha256 = { try OutputWriter.previousFiles(of: output)?[path]?.sha256 }
        let first = try inode()

        // The same bytes: kept, with their hash.
        try update(large)
        #expect(try inode() == first)
        #expect(try sha256() == ContentHash.sha256Hex(Data(large)))

        // One byte changed: written, unhashed.
        var changed = large
        changed[3] ^= 1
        try update(changed)
        #expect(try Data(contentsOf: output.appendingPathComponent(path)) == Data(changed))
        #expect(try sha256() == OutputWriter.RecordedFile.unhashed)
        let written = try inode()
        #expect(written != first)

        // The same bytes again: kept by their bytes, though the marker has no hash for them.
        try update(changed)
        #expect(try inode() == written)
        #expect(try sha256() == OutputWriter.RecordedFile.unhashed)

        // Without the bytes read ahead: hashed while written, and written.
        try update(changed, readAhead: false)
        #expect(try Data(contentsOf: output.appendingPathComponent(path)) == Data(changed))
        #expect(try sha256() == ContentHash.sha256Hex(Data(changed)))

        // Changed since it was read ahead (by another program): not taken for the bytes read.
        let prefetched = OutputPrefetch(output: output)
        _ = prefetched.file(path)
        try Data(large).write(to: output.appendingPathComponent(path))
        let transaction = try OutputWriter.begin(replacing: output, prefetched: prefetched)
        try transaction.write(OutputFile(path: path, pieces: [changed]))
        try transaction.commit()
        #expect(try Data(contentsOf: output.appendingPathComponent(path)) == Data(changed))
    }

    /// The survey taken as an update begins finds the files the previous build wrote as it wrote
    /// them, and not one rewritten, replaced by a folder or removed since.
    @Test func theSurveyFindsWhatChangedSinceThePreviousBuild() throws {
        try Self.withFirstBuild { output in
            let root = output.path + "/"
            try Data("a, again".utf8).write(to: URL(fileURLWithPath: root + "site/guides/a/index.html"))
            try FileManager.default.removeItem(atPath: root + "site/guides/b/index.html")
            try FileManager.default.createDirectory(
                atPath: root + "site/guides/b/index.html", withIntermediateDirectories: false)
            try FileManager.default.removeItem(atPath: root + "bundles/v1/guide/en/aaaa.json")
            let previous = try #require(try OutputWriter.previousFiles(of: output))
            // Asked at once: the file's run is surveyed then, by the asking thread or the survey's,
            // and the answer is never nil.
            let survey = OutputSurvey(output: output.path, marker: previous)
            #expect(survey.isIntact("site/guides/b/index.html") == false)
            #expect(survey.isIntact("bundles/v1/manifest.json") == true)
            #expect(survey.isIntact("site/guides/a/index.html") == false)
            #expect(survey.isIntact("site/guides/b/index.html") == false)
            #expect(survey.isIntact("bundles/v1/guide/en/aaaa.json") == false)
            #expect(survey.isIntact("not/in/the/marker") == false)
            #expect((0..<previous.count).allSatisfy { survey.isIntact(line: $0) != nil })
            // No line past the marker's (the last run holds fewer than a run can).
            #expect(survey.isIntact(line: previous.count) == nil)

            // A survey that cannot look, or is stopped, is not waited for: nil, at once.
            let nowhere = OutputSurvey(output: output.path + "/no such folder", marker: previous)
            #expect(nowhere.isIntact(line: previous.count - 1) == nil)
            let stopped = OutputSurvey(output: output.path, marker: previous)
            stopped.stop()
            _ = stopped.isIntact(line: previous.count - 1)
        }
    }

    /// The survey and the up-to-date check look each file up from its own folder when the next
    /// file is beside it, else from the folder above, opened once for the files that share it
    /// (``OutputMarker/stamps(of:in:)``): they find what a lookup by the whole path finds, for a
    /// file changed, a file removed, a folder of pages and a folder of files removed whole,
    /// beside a folder whose name starts with another's, and for files beside each other
    /// between files in folders of their own.
    @Test func filesLookedUpFromTheirFoldersAreFoundAsByTheirWholePaths() throws {
        let output = Self.folder()
        defer { removeOutput(output) }
        var files = [
            OutputFile(path: "top.txt", data: Data("top".utf8)),
            OutputFile(path: "bundles/v1/manifest.json", data: Data("{}".utf8)),
            OutputFile(path: "bundles/v1/guide/en/1.json", data: Data("1".utf8)),
            OutputFile(path: "bundles/v1/guide/en/2.json", data: Data("2".utf8)),
            OutputFile(path: "bundles/v1/guide/ru/3.json", data: Data("3".utf8)),
            OutputFile(path: "bundles/v1/guide/ru/6.json", data: Data("6".utf8)),
            // A folder whose name starts with the name of the one before it.
            OutputFile(path: "bundles/v1/guide/en2/4.json", data: Data("4".utf8)),
            OutputFile(path: "bundles/v1/guide/en2/5.json", data: Data("5".utf8)),
        ]
        // Files beside each other, after a file in a folder of its own and before another.
        for path in ["site/x/b/c/g.txt", "site/x/b/f1.txt", "site/x/b/f2.txt", "site/x/b/h/i.txt"] {
            files.append(OutputFile(path: path, data: Data(path.utf8)))
        }
        for folder in ["a", "b", "c"] {
            for page in 0..<3 {
                files.append(
                    OutputFile(path: "site/guides/\(folder)/p\(page)/index.html", data: Data("\(folder)\(page)".utf8)))
            }
        }
        try OutputWriter.replace(output, with: files)
        let root = output.path + "/"
        try Data("changed".utf8).write(to: URL(fileURLWithPath: root + "site/guides/a/p1/index.html"))
        try FileManager.default.removeItem(atPath: root + "site/guides/b")
        try FileManager.default.removeItem(atPath: root + "bundles/v1/guide/en/2.json")
        try FileManager.default.removeItem(atPath: root + "bundles/v1/guide/ru")
        try Data("changed".utf8).write(to: URL(fileURLWithPath: root + "site/x/b/f2.txt"))
        let marker = try #require(try OutputWriter.previousFiles(of: output))
        let folder = open(output.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(folder >= 0)
        defer { close(folder) }
        let byWholePath = (0..<marker.count).map { marker.hasStamp(at: $0, in: folder) }
        #expect(marker.stamps(of: 0..<marker.count, in: folder) == byWholePath)
        // Runs that start mid-folder, as the survey's and the check's runs do.
        #expect((0..<marker.count).flatMap { marker.stamps(of: $0..<$0 + 1, in: folder) } == byWholePath)
        // A path with an empty name in it (only a damaged marker has one) is looked up whole.
        let text = try String(contentsOf: output.appendingPathComponent(OutputWriter.marker), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasSuffix(" site/guides/a/p0/index.html") })
        let doubledLine = line.replacingOccurrences(of: "p0/index", with: "p0//index")
        let doubled = OutputMarker(Data((text + doubledLine + "\n").utf8))
        #expect(doubled.count == marker.count + 1)
        #expect(doubled.stamps(of: 0..<doubled.count, in: folder) == byWholePath + [true])
        let changed = (0..<marker.count).filter { !byWholePath[$0] }.map { marker.path(at: $0) }
        #expect(
            changed.sorted() == [
                "bundles/v1/guide/en/2.json", "bundles/v1/guide/ru/3.json", "bundles/v1/guide/ru/6.json",
                "site/guides/a/p1/index.html", "site/guides/b/p0/index.html", "site/guides/b/p1/index.html",
                "site/guides/b/p2/index.html", "site/x/b/f2.txt",
            ])
    }

    @Test func aCommitCutShortIsFinishedByTheNextBuild() throws {
        try Self.withFirstBuild { output in
            do {
                let update = try #require(try OutputWriter.begin(replacing: output) as? OutputWriter.Update)
                for file in Self.second { try update.write(file) }
                // The journal is saved and the process stops before carrying it out.
                let journal = try update.journal(record: nil)
                // It names the new marker, which waits in the scratch folder, instead of holding it.
                let newMarker = try #require(journal.newMarker)
                #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(newMarker).path))
            }
            #expect(
                FileManager.default.fileExists(atPath: output.appendingPathComponent(OutputWriter.Journal.file).path))
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "x")) == nil)
            #expect(try OutputWriter.previousFiles(of: output).map { Set($0.paths) } == Set(Self.first.map(\.path)))

            let next = try OutputWriter.begin(replacing: output)
            #expect(
                !FileManager.default.fileExists(atPath: output.appendingPathComponent(OutputWriter.Journal.file).path))
            #expect(try Self.files(output) == Self.expected(Self.second))
            // The marker is the new build's.
            #expect(try OutputWriter.previousFiles(of: output).map { Set($0.paths) } == Set(Self.second.map(\.path)))
            next.discard()
            #expect(try Self.files(output) == Self.expected(Self.second))
        }
    }

    /// A commit stopped after its last step, before its journal was removed, is applied again
    /// by the next build: the renames and the marker's rename find their sources gone, and the
    /// folder stays the new build.
    @Test func aJournalAppliedTwiceLeavesTheNewBuild() throws {
        try Self.withFirstBuild { output in
            let journalPath = output.appendingPathComponent(OutputWriter.Journal.file)
            do {
                let update = try #require(try OutputWriter.begin(replacing: output) as? OutputWriter.Update)
                for file in Self.second { try update.write(file) }
                let journal = try update.journal(record: nil)
                let saved = try Data(contentsOf: journalPath)
                try journal.apply(in: output)
                try saved.write(to: journalPath)
            }
            let next = try OutputWriter.begin(replacing: output)
            next.discard()
            #expect(!FileManager.default.fileExists(atPath: journalPath.path))
            #expect(try Self.files(output) == Self.expected(Self.second))
            #expect(try OutputWriter.previousFiles(of: output).map { Set($0.paths) } == Set(Self.second.map(\.path)))
        }
    }

    /// A journal names its new marker by SHA-256 where the file system gives no stamp: applied
    /// again after the marker was renamed, it finds it in place by its bytes; when it names
    /// another marker, it fails, and marks the files it renamed in as unknown in the marker in
    /// place: the folder is not up to date.
    @Test func aJournalThatNamesItsMarkerByHashIsAppliedAsOneThatNamesItByStamp() throws {
        try Self.withFirstBuild { output in
            let record = BuildRecord(fingerprint: BuildFingerprint(hex: "f"), report: "", summary: "built")
            var journal: OutputWriter.Journal
            do {
                // Released at the end of the block, with the output's lock.
                let update = try #require(try OutputWriter.begin(replacing: output) as? OutputWriter.Update)
                for file in Self.second { try update.write(file) }
                journal = try update.journal(record: record)
            }
            let newMarker = output.appendingPathComponent(try #require(journal.newMarker))
            journal.newMarkerSHA256 = ContentHash.sha256Hex(try Data(contentsOf: newMarker))
            journal.newMarkerStamp = nil
            try journal.apply(in: output)
            // Applied again: the new marker is gone from the scratch folder, and in place.
            try journal.apply(in: output)
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "f")) == record)
            journal.newMarkerSHA256 = ContentHash.sha256Hex(Data("another marker".utf8))
            #expect {
                try journal.apply(in: output)
            } throws: { error in
                "\(error)".contains("the new marker is gone from its scratch folder")
            }
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "f")) == nil)
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
                let update = try #require(try OutputWriter.begin(replacing: output) as? OutputWriter.Update)
                for file in files { try update.write(file) }
                let journal = try update.journal(record: record)
                #expect(journal.newMarkerStamp != nil)
                #expect(journal.newMarkerSHA256 == nil, "known by its stamp, not hashed")
                let newMarker = try #require(journal.newMarker)
                try FileManager.default.removeItem(at: output.appendingPathComponent(newMarker))
                #expect {
                    try journal.apply(in: output)
                } throws: { error in
                    "\(error)".contains("the new marker is gone from its scratch folder")
                }
            }
            // The earlier marker and its record stay, but its files are no longer all in place.
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "f")) == nil)
            #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "e")) == nil)
            // The marker in place now lists the files the commit renamed in, unknown: the next
            // build, of the earlier files, removes those at new paths and rewrites the others.
            let marker = try #require(OutputWriter.readMarker(in: output))
            for file in files { #expect(marker[file.path] == OutputWriter.RecordedFile(sha256: "-"), "\(file.path)") }
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

    @Test func aSecondFirstBuildStopsWhileTheFirstWrites() throws {
        let output = Self.folder()
        defer { removeOutput(output) }
        let first = try OutputWriter.begin(replacing: output)
        #expect(first is OutputWriter.Staging)
        #expect(throws: LockerError.self) { _ = try OutputWriter.begin(replacing: output) }
        for file in Self.first { try first.write(file) }
        try first.commit()
        // Swapped in whole, and still locked until released.
        #expect(throws: LockerError.self) { _ = try OutputWriter.begin(replacing: output) }
    }

    /// A first build killed with SIGKILL leaves its staging folder beside the output; a swap
    /// killed between its two renames leaves the previous build moved aside and no output. The
    /// next build, holding the lock, cleans up both and puts the previous build back.
    @Test func whatAKilledFirstBuildOrSwapLeftBesideTheFolderIsCleanedUp() throws {
        let output = Self.folder()
        let parent = output.deletingLastPathComponent()
        let name = output.lastPathComponent
        let aside = parent.appendingPathComponent(".\(name).previous-12345678")
        defer {
            removeOutput(output)
            removeOutput(aside)
        }
        func beside() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: parent.path).filter { $0.hasPrefix(".\(name).") }
                .sorted()
        }
        func setAside() throws {
            try OutputWriter.replace(aside, with: Self.first)
            try? FileManager.default.removeItem(at: OutputLock.file(for: aside))
        }
        // Released without a discard, as a killed process leaves it: the staging folder stays.
        do {
            let killed = try OutputWriter.begin(replacing: output)
            for file in Self.first { try killed.write(file) }
        }
        #expect(try beside().contains { $0.hasPrefix(".\(name).staging-") })
        try setAside()
        let lockName = OutputLock.file(for: output).lastPathComponent
        do {
            let next = try OutputWriter.begin(replacing: output)
            next.discard()
        }
        #expect(try beside() == [lockName])
        #expect(try Self.files(output) == Self.expected(Self.first))
        // With the output in place, a previous build set aside is what a finished swap left.
        try setAside()
        do {
            let next = try OutputWriter.begin(replacing: output)
            next.discard()
        }
        #expect(try beside() == [lockName])
        #expect(try Self.files(output) == Self.expected(Self.first))
    }

    @Test func aJournalCutShortWhileSavedIsDroppedAndTheFolderIsThePreviousBuild() throws {
        try Self.withFirstBuild { output in
            try Data("{\"renames\":[[".utf8).write(to: output.appendingPathComponent(OutputWriter.Journal.file))
            let next = try OutputWriter.begin(replacing: output)
            #expect(
                !FileManager.default.fileExists(atPath: output.appendingPathComponent(OutputWriter.Journal.file).path))
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
            "Guide.json": OutputWriter.RecordedFile(sha256: ""), "OLD.json": OutputWriter.RecordedFile(sha256: ""),
        ]
        let journal = OutputWriter.Journal(
            renames: [["scratch", "Guide.json"]], removals: ["guide.json", "old.json"],
            twins: OutputWriter.Journal.twins(of: ["guide.json", "old.json"], among: newFiles.keys))
        #expect(journal.twins == [["guide.json", "Guide.json"], ["old.json", "OLD.json"]])
        try journal.apply(in: output)
        let names = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        #expect(names == ["Guide.json", "OLD.json", "guide.json"])

    }

    @Test func twinsAreFoundAcrossCaseWidthAndComposition() {
        let removals = ["Gu\u{0301}ide.json", "ＰＬＡＩＮ.json", "other.json", "Site/A-Z_[@].html"]
        let files = [
            "gúide.JSON": OutputWriter.RecordedFile(sha256: ""), "plain.json": .init(sha256: ""),
            "another.json": .init(sha256: ""), "site/a-z_[@].HTML": .init(sha256: ""),
            "site/A-Z_{`}.html": .init(sha256: ""), "OTHER.jsoN": .init(sha256: ""), "OTHER.jsoX": .init(sha256: ""),
        ]
        let pairs = [
            ["Gu\u{0301}ide.json", "gúide.JSON"], ["Site/A-Z_[@].html", "site/a-z_[@].HTML"],
            ["other.json", "OTHER.jsoN"], ["ＰＬＡＩＮ.json", "plain.json"],
        ]
        // ASCII paths fold by case alone: `[@]` and `{`}` differ by 0x20 but are not letters.
        #expect(OutputWriter.Journal.twins(of: removals, among: files.keys) == pairs)
        // A few removals are compared with each path byte by byte; many, by the hash of its
        // lower case. Both find the same pairs.
        let many = removals + (1...9).map { "gone-\($0).json" }
        #expect(OutputWriter.Journal.twins(of: many, among: files.keys) == pairs)
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
            #expect(try !names().contains { $0.hasPrefix(OutputWriter.Journal.scratchPrefix) })
            for file in Self.second { try next.write(file) }
            try next.commit()
            #expect(try Self.files(output) == Self.expected(Self.second))
            #expect(try !names().contains { $0.hasPrefix(OutputWriter.Journal.scratchPrefix) })
        }
    }
}
