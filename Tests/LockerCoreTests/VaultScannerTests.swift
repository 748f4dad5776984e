import Foundation
import Testing

@testable import LockerCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct VaultScannerTests {
    /// What a scan lists and skips: hidden files and folders, excluded folders, the output folder,
    /// links that leave the vault or lead to a folder, and anything but regular files.
    @Test func listsNotesAndAssetsAndSkipsWhatIsNotContent() throws {
        let vault = try TestVault(
            [
                "a.md": "", "guides/deep/b.md": "", "guides/photo.png": "", ".hidden.md": "",
                ".obsidian/workspace.md": "", "drafts/c.md": "", "build/site/index.md": "",
                // Decomposed "й" in the name: listed in NFC, read from the name on disk.
                "guides/и\u{306}.md": "",
            ], config: "exclude: [drafts]\n")
        let outside = try TestVault(["secret.md": ""])
        defer {
            vault.remove()
            outside.remove()
        }
        let fileManager = FileManager.default
        try fileManager.createSymbolicLink(
            at: vault.root.appendingPathComponent("linked.md"),
            withDestinationURL: vault.root.appendingPathComponent("a.md"))
        try fileManager.createSymbolicLink(
            at: vault.root.appendingPathComponent("folder-link"),
            withDestinationURL: vault.root.appendingPathComponent("guides"))
        try fileManager.createSymbolicLink(
            at: vault.root.appendingPathComponent("secret.md"),
            withDestinationURL: outside.root.appendingPathComponent("secret.md"))
        #expect(mkfifo(vault.root.appendingPathComponent("pipe.md").path, 0o644) == 0)

        let scanner = VaultScanner(
            root: vault.root, config: VaultConfig.parse("exclude: [drafts]\n").0,
            skipping: [vault.root.appendingPathComponent("build").standardizedFileURL.path])
        let listing = try scanner.scan()
        #expect(listing.notes.map(\.path) == ["a.md", "guides/deep/b.md", "guides/й.md", "linked.md"])
        #expect(listing.assets.map(\.path) == ["guides/photo.png"])
        #expect(listing.diagnostics.map(\.file) == ["secret.md"])
        #expect(listing.diagnostics.map(\.code) == [.fileOutsideVault])
        let decomposed = try #require(listing.notes.first { $0.path == "guides/й.md" })
        #expect(fileManager.fileExists(atPath: decomposed.url.path), "the file is read from its name on disk")
    }

    @Test func aMissingVaultIsAnError() throws {
        let scanner = VaultScanner(
            root: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)"), config: VaultConfig())
        #expect(throws: LockerError.self) { try scanner.scan() }
    }
}
