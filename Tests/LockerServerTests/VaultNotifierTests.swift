import Foundation
import LockerCore
import Testing

@testable import LockerServer

/// The notifier behind `locker serve`'s watcher: it says that a watched folder saw a change to a
/// name that does not start with a dot, and nothing else.
@Suite struct VaultNotifierTests {
    #if os(Linux)
        @Test func aFolderThatSawAChangeIsReportedAndDotFilesAreNot() throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent(
                "locker-notify-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("guides"), withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let notifier = try #require(VaultNotifier())
            let walk = BuildFingerprint.files(in: root)
            #expect(walk.folders == [root.path, root.path + "/guides"])
            #expect(notifier.watch(walk.folders) == (complete: true, added: true))
            #expect(notifier.watch(walk.folders) == (complete: true, added: false), "watched already")
            #expect(notifier.count == 2)
            #expect(!notifier.drain(), "nothing happened yet")

            try Data("one".utf8).write(to: root.appendingPathComponent("guides/a.md"))
            #expect(notifier.drain(), "a note written")
            #expect(!notifier.drain(), "each event is told once")

            try Data("x".utf8).write(to: root.appendingPathComponent("guides/.a.md.swp"))
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(".obsidian"), withIntermediateDirectories: true)
            #expect(!notifier.drain(), "a swap file, a hidden folder")

            // A folder made now is watched once a walk has listed it; a note in it is then seen.
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("decks"), withIntermediateDirectories: true)
            #expect(notifier.drain(), "a folder made")
            #expect(notifier.watch(BuildFingerprint.files(in: root).folders) == (complete: true, added: true))
            #expect(notifier.count == 3)
            try Data("two".utf8).write(to: root.appendingPathComponent("decks/b.md"))
            #expect(notifier.drain(), "a note in the new folder")

            // A folder removed is forgotten, and saying so counts as a change.
            try FileManager.default.removeItem(at: root.appendingPathComponent("decks"))
            #expect(notifier.drain())
            #expect(notifier.count == 2)
            #expect(!notifier.watch([root.path + "/gone"]).complete, "a folder that is not there is not watched")

            // A folder moved out of the vault is let go once a walk no longer lists it.
            #expect(notifier.watch(BuildFingerprint.files(in: root).folders).complete && notifier.count == 2)
            let outside = root.deletingLastPathComponent().appendingPathComponent("locker-moved-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: outside) }
            try FileManager.default.moveItem(at: root.appendingPathComponent("guides"), to: outside)
            #expect(notifier.drain(), "a folder moved away")
            #expect(notifier.watch(BuildFingerprint.files(in: root).folders).complete && notifier.count == 1)
            try Data("three".utf8).write(to: outside.appendingPathComponent("c.md"))
            #expect(!notifier.drain(), "a note written outside the vault")
        }
    #endif
}
