import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// Damaged or hostile state in an output folder (a marker or a journal whose paths lead out of
/// it, a journal in a folder Locker did not write) never reaches a file outside the folder, nor
/// one the build wrote.
@Suite struct OutputSafetyTests {
    /// Runs `body` with a folder of its own and an output folder `name` in it, so that
    /// `../victim` is a file of this test's; removes both after.
    static func withOutput(named name: String = "out", _ body: (_ parent: URL, _ output: URL) throws -> Void) throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("locker-review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        try body(parent, parent.appendingPathComponent(name))
    }

    static func appendToMarker(_ line: String, in output: URL) throws {
        let url = output.appendingPathComponent(OutputWriter.marker)
        var data = try Data(contentsOf: url)
        data += Data(line.utf8)
        try data.write(to: url)
    }

    /// A marker line whose path leads out of the folder is not taken for a file of the build.
    @Test func aMarkerPathWithDotDotDoesNotRemoveAFileOutsideTheOutput() throws {
        try Self.withOutput { parent, output in
            let victim = parent.appendingPathComponent("victim.txt")
            try Data("mine".utf8).write(to: victim)
            try OutputWriter.replace(output, with: OutputUpdateTests.first)
            try Self.appendToMarker("- - - ../victim.txt\n", in: output)
            try OutputWriter.replace(output, with: OutputUpdateTests.second)
            #expect(FileManager.default.fileExists(atPath: victim.path), "the build removed ../victim.txt")
        }
    }

    /// A marker line with a NUL byte in its path is not taken either: cut at the NUL, it named
    /// a page the new build had just renamed into place.
    @Test func aMarkerPathWithANulByteDoesNotRemoveANewFile() throws {
        try Self.withOutput { parent, output in
            try OutputWriter.replace(output, with: OutputUpdateTests.first)
            try Self.appendToMarker("- - - site/guides/a/index.html\u{0}x\n", in: output)
            try OutputWriter.replace(output, with: OutputUpdateTests.second)
            #expect(
                FileManager.default.fileExists(atPath: output.appendingPathComponent("site/guides/a/index.html").path),
                "the new page is gone")
        }
    }

    /// A journal whose renames and removals lead out of the folder is not applied.
    @Test func aJournalThatPointsOutsideTheOutputIsNotApplied() throws {
        try Self.withOutput { parent, output in
            let victim = parent.appendingPathComponent("victim.txt")
            try Data("mine".utf8).write(to: victim)
            try OutputWriter.replace(output, with: OutputUpdateTests.first)
            let scratch = output.appendingPathComponent(".locker-tmp-evil")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try Data("planted".utf8).write(to: scratch.appendingPathComponent("x"))
            let journal = """
                {"scratch":".locker-tmp-evil","renames":[[".locker-tmp-evil/x","../escaped.txt"]],\
                "removals":["../victim.txt"],"twins":[]}
                """
            try Data(journal.utf8).write(to: scratch.appendingPathComponent(".locker-journal"))
            let transaction = try OutputWriter.begin(replacing: output)
            transaction.discard()
            #expect(FileManager.default.fileExists(atPath: victim.path), "recovery removed ../victim.txt")
            #expect(
                !FileManager.default.fileExists(atPath: parent.appendingPathComponent("escaped.txt").path),
                "recovery wrote ../escaped.txt")
        }
    }

    /// A journal that would remove a folder other than the search index (``OutputWriter/derivedFolders``)
    /// as stale is not applied.
    @Test func aJournalThatRemovesAnotherFolderAsStaleIsNotApplied() throws {
        try Self.withOutput { parent, output in
            try OutputWriter.replace(output, with: OutputUpdateTests.first)
            let scratch = output.appendingPathComponent(".locker-tmp-evil")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            for stale in ["bundles", "..", "site/pagefind/../../bundles"] {
                let journal =
                    #"{"scratch":".locker-tmp-evil","renames":[],"removals":[],"twins":[],"stale":[""#
                    + stale + #""]}"#
                try Data(journal.utf8).write(to: scratch.appendingPathComponent(".locker-journal"))
                let transaction = try OutputWriter.begin(replacing: output)
                transaction.discard()
                #expect(
                    FileManager.default.fileExists(
                        atPath: output.appendingPathComponent("bundles/v1/manifest.json").path), "\(stale)")
                try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            }
        }
    }

    /// A folder Locker did not write (no marker) is refused before a journal found in it is
    /// looked at.
    @Test func aJournalInAFolderLockerDidNotWriteIsNotApplied() throws {
        try Self.withOutput(named: "home") { parent, output in
            let scratch = output.appendingPathComponent(".locker-tmp-a")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try Data("precious".utf8).write(to: output.appendingPathComponent("precious.txt"))
            try Data(#"{"scratch":".locker-tmp-a","renames":[],"removals":["precious.txt"],"twins":[]}"#.utf8)
                .write(to: scratch.appendingPathComponent(".locker-journal"))
            #expect(throws: (any Error).self) { try OutputWriter.begin(replacing: output) }
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("precious.txt").path))
        }
    }

    /// A folder whose marker lists nothing, with a symbolic link to a folder outside it: the
    /// files behind the link are not taken for the folder's.
    @Test func aLinkedFolderIsNotFollowedWhenTheMarkerListsNothing() throws {
        try Self.withOutput { parent, output in
            let outside = parent.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            try Data("secret".utf8).write(to: outside.appendingPathComponent("secret.txt"))
            try FileManager.default.createSymbolicLink(
                at: output.appendingPathComponent("link"), withDestinationURL: outside)
            try Data("heading\nformat 1\n".utf8).write(to: output.appendingPathComponent(OutputWriter.marker))
            try OutputWriter.replace(output, with: OutputUpdateTests.first)
            #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent("secret.txt").path))
        }
    }

    /// Files in the folder that no build listed are left alone.
    @Test func aFileNoBuildListedIsLeftAlone() throws {
        try Self.withOutput { parent, output in
            try OutputWriter.replace(output, with: OutputUpdateTests.first)
            try Data("mine".utf8).write(to: output.appendingPathComponent("site/guides/b/mine.txt"))
            try OutputWriter.replace(output, with: OutputUpdateTests.second)
            #expect(
                FileManager.default.fileExists(atPath: output.appendingPathComponent("site/guides/b/mine.txt").path))
        }
    }

    @Test(arguments: [
        ("a", true), ("site/guides/a/index.html", true), (".locker-notes", true), ("a/.b", true),
        ("a/...", true), ("a..b/c", true), ("", false), ("/a", false), ("a//b", false), ("a/", false),
        ("./a", false), ("a/./b", false), ("../a", false), ("a/..", false), ("a\u{0}b", false),
        (".locker-build", false), (".locker-tmp-x/y", false), ("..", false), (".", false),
    ])
    func aPathIsInsideTheOutputOnlyWhenItNamesAFileOfTheBuild(path: String, inside: Bool) {
        #expect(OutputMarker.isInside(path) == inside)
    }
}
