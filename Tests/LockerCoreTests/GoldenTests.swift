import Foundation
import Testing
@testable import LockerCore
import LockerKit

/// Input vault → expected bundle files and diagnostics, under `Fixtures/<case>/`.
///
/// Run with `LOCKER_RECORD=1` (or `make record`) to rewrite the expected files from the current
/// output; a recording run fails, so recording is always deliberate. A missing expected folder is
/// recorded the same way.
@Suite struct GoldenTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let recording = ProcessInfo.processInfo.environment["LOCKER_RECORD"] == "1"

    /// The fixtures whose site is compared too; the others compare the bundles only.
    static let siteFixtures: Set<String> = ["site"]

    @Test(arguments: ["syntax", "real-vault", "broken", "charter", "site"])
    func matchesGoldenOutput(_ name: String) throws {
        let root = Self.fixtures.appendingPathComponent(name)
        let compilation = try Compiler(
            vault: root.appendingPathComponent("vault"), environment: ["SOURCE_DATE_EPOCH": "1700000000"],
            baseURL: Self.siteFixtures.contains(name) ? "https://sail.example/" : nil
        ).compile()
        var actual: [String: Data] = [:]
        let report = DiagnosticPrinter(format: .text).render(compilation.diagnostics, notesChecked: compilation.noteCount)
        actual["diagnostics.txt"] = Data(report.utf8)
        for file in compilation.files where Self.siteFixtures.contains(name) || !file.path.hasPrefix(SiteBuilder.folder + "/") {
            actual["output/" + file.path] = file.data
        }

        let expectedRoot = root.appendingPathComponent("expected")
        if Self.recording || !FileManager.default.fileExists(atPath: expectedRoot.path) {
            try? FileManager.default.removeItem(at: expectedRoot)
            for (path, data) in actual {
                let url = expectedRoot.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: url)
            }
            Issue.record("recorded \(actual.count) golden files for '\(name)'; review them and run again without LOCKER_RECORD")
            return
        }
        let expected = try Self.readTree(expectedRoot)
        #expect(Set(actual.keys) == Set(expected.keys), "files differ; re-record with LOCKER_RECORD=1 if intended")
        for (path, data) in expected.sorted(by: { $0.key < $1.key }) {
            guard let produced = actual[path] else { continue }
            #expect(
                produced == data,
                "\(name)/\(path) differs:\n\(String(decoding: produced, as: UTF8.self).prefix(4000))")
        }
    }

    static func readTree(_ root: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { return result }
        let prefix = root.standardizedFileURL.path + "/"
        for case let url as URL in enumerator where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            result[String(url.standardizedFileURL.path.dropFirst(prefix.count))] = try Data(contentsOf: url)
        }
        return result
    }
}
