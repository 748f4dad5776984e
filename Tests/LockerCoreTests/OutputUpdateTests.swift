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

    static func expected(_ files: [OutputFile]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: files.map { ($0.path, String(decoding: $0.data, as: UTF8.self)) })
    }

    @Test func aRebuildIsWrittenInPlaceAndUntilTheCommitTheFolderIsThePreviousBuild() throws {
        let output = Self.folder()
        defer { try? FileManager.default.removeItem(at: output) }
        try OutputWriter.replace(output, with: Self.first)
        let transaction = try OutputWriter.begin(replacing: output)
        #expect(transaction is OutputWriter.Update)
        for file in Self.second { try transaction.write(file) }
        // Written, not committed: only hidden temporary files are new.
        let visible = try Self.files(output).filter { !VaultPath.fileName(of: $0.key).hasPrefix(".") }
        #expect(visible == Self.expected(Self.first))
        transaction.discard()
        #expect(try Self.files(output) == Self.expected(Self.first))

        let again = try OutputWriter.begin(replacing: output)
        for file in Self.second { try again.write(file) }
        try again.commit()
        #expect(try Self.files(output) == Self.expected(Self.second))
        // The folders of removed files go with them.
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("site/guides/b").path))
    }

    @Test func aCommitCutShortIsFinishedByTheNextBuild() throws {
        let output = Self.folder()
        defer { try? FileManager.default.removeItem(at: output) }
        try OutputWriter.replace(output, with: Self.first)
        let update = try #require(try OutputWriter.begin(replacing: output) as? OutputWriter.Update)
        for file in Self.second { try update.write(file) }
        // The journal is saved and the process stops before carrying it out.
        _ = try update.journal(record: nil)
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(OutputWriter.Journal.file).path))
        #expect(OutputWriter.upToDate(output, fingerprint: BuildFingerprint(hex: "x")) == nil)

        let next = try OutputWriter.begin(replacing: output)
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent(OutputWriter.Journal.file).path))
        #expect(try Self.files(output) == Self.expected(Self.second))
        next.discard()
        #expect(try Self.files(output) == Self.expected(Self.second))
    }

    @Test func aJournalTheBuildDidNotWriteIsReported() throws {
        let output = Self.folder()
        defer { try? FileManager.default.removeItem(at: output) }
        try OutputWriter.replace(output, with: Self.first)
        try Data("not a journal".utf8).write(to: output.appendingPathComponent(OutputWriter.Journal.file))
        #expect(throws: LockerError.self) { try OutputWriter.begin(replacing: output) }
    }
}
