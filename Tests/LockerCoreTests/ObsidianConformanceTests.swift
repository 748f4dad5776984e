import Foundation
import Testing

@testable import LockerCore

// The Obsidian conformance corpus, Fixtures/obsidian/<case>/: a small vault whose note.md uses
// one piece of Obsidian's documented syntax, the blocks and sections its guide must have
// (expected.json, without "uuid" keys) and the diagnostics the vault must give (diagnostics.txt).
// The expected files are written by hand from Obsidian's help and docs/content-format.md, not
// recorded; Fixtures/obsidian/README.md says where each rule comes from.
//
// A case with a pending.txt (its reason) is syntax Locker does not support yet: it is cancelled
// (skipped) while it fails, and fails once it passes, so that its pending.txt is removed.
//
// LOCKER_RECORD=1 rewrites the expected files from the current output, as GoldenTests does, only
// as a deliberate escape hatch: the run fails, and every rewritten file must be checked against
// Obsidian's documentation before it is committed.
@Suite struct ObsidianConformanceTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/obsidian")
    static let recording = ProcessInfo.processInfo.environment["LOCKER_RECORD"] == "1"

    /// Every folder of the corpus that holds a `vault`, sorted.
    static let cases: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return names.filter { name in
            var isFolder: ObjCBool = false
            let vault = corpus.appendingPathComponent(name).appendingPathComponent("vault").path
            return FileManager.default.fileExists(atPath: vault, isDirectory: &isFolder) && isFolder.boolValue
        }
        .sorted()
    }()

    @Test func corpusHasCases() {
        #expect(!Self.cases.isEmpty, "no cases found under \(Self.corpus.path)")
    }

    @Test(arguments: cases)
    func conformsToObsidian(_ name: String) throws {
        let folder = Self.corpus.appendingPathComponent(name)
        let compilation = try Compiler(
            vault: folder.appendingPathComponent("vault"), environment: ["SOURCE_DATE_EPOCH": "1700000000"],
            baseURL: nil
        ).compile()
        let diagnostics = compilation.diagnostics.map(Self.line(for:))
        let document = try Self.guideDocument(id: "note", in: compilation)

        let pendingURL = folder.appendingPathComponent("pending.txt")
        let pending = (try? String(contentsOf: pendingURL, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let expectedURL = folder.appendingPathComponent("expected.json")
        let diagnosticsURL = folder.appendingPathComponent("diagnostics.txt")

        if Self.recording, pending == nil {
            try record(document, diagnostics, expected: expectedURL, diagnosticsFile: diagnosticsURL)
            Issue.record(
                "recorded '\(name)' from Locker's output; check it against Obsidian's documentation before committing")
            return
        }

        var mismatches: [String] = []
        let expectedDiagnostics = try String(contentsOf: diagnosticsURL, encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if diagnostics != expectedDiagnostics {
            mismatches.append(
                "diagnostics differ:\n  expected:\n"
                    + expectedDiagnostics.map { "    \($0)\n" }.joined() + "  actual:\n"
                    + diagnostics.map { "    \($0)\n" }.joined()
                    + compilation.diagnostics.map { "    (\($0.code): \($0.message))\n" }.joined())
        }
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: expectedURL))
        if let expected = expected as? [String: Any], expected["blocks"] != nil, expected["sections"] != nil {
            if let document {
                // `blocks` and `sections`, and any other field of the guide the case names (`tags`).
                for key in expected.keys.sorted() {
                    Self.compare(expected[key], Self.strippingUUIDs(document[key]), at: key, into: &mismatches)
                }
            } else {
                mismatches.append("no guide with id 'note' among the output files (an error stops the output)")
            }
        } else {
            mismatches.append("expected.json must be an object with \"blocks\" and \"sections\"")
        }

        if let pending {
            guard mismatches.isEmpty else {
                print("ObsidianConformance: '\(name)' skipped, pending: \(pending)")
                try Test.cancel("pending (\(mismatches.count) mismatches): \(pending)")
            }
            Issue.record("'\(name)' passes now: delete its pending.txt (\(pending))")
            return
        }
        for mismatch in mismatches {
            Issue.record("\(name): \(mismatch)")
        }
    }

    /// `note.md:3:5: warning link.broken`: a diagnostic as diagnostics.txt lists it.
    static func line(for diagnostic: Diagnostic) -> String {
        "\(diagnostic.file):\(diagnostic.position.line):\(diagnostic.position.column): "
            + "\(diagnostic.severity.rawValue) \(diagnostic.code.rawValue)"
    }

    /// The guide document with this id, as the bundle file `bundles/v1/guide/<locale>/<hash>.json` holds it.
    static func guideDocument(id: String, in compilation: Compilation) throws -> [String: Any]? {
        for file in compilation.files where file.path.hasPrefix("bundles/v1/guide/") {
            let name = (file.path as NSString).lastPathComponent
            guard !name.hasPrefix("index."), name.hasSuffix(".json") else { continue }
            if let object = try JSONSerialization.jsonObject(with: file.data) as? [String: Any],
                object["id"] as? String == id
            {
                return object
            }
        }
        return nil
    }

    /// The value with every `uuid` key removed, at any depth.
    static func strippingUUIDs(_ value: Any?) -> Any? {
        switch value {
        case let object as [String: Any]:
            var result: [String: Any] = [:]
            for (key, item) in object where key != "uuid" { result[key] = strippingUUIDs(item) }
            return result
        case let array as [Any]:
            return array.map { strippingUUIDs($0) as Any }
        default:
            return value
        }
    }

    /// Compares parsed JSON values, listing each difference with its path (`blocks[0].spans[1].text`).
    static func compare(_ expected: Any?, _ actual: Any?, at path: String, into mismatches: inout [String]) {
        switch (expected, actual) {
        case (nil, nil):
            return
        case (let expected as [String: Any], let actual as [String: Any]):
            for key in Set(expected.keys).union(actual.keys).sorted() {
                compare(expected[key], actual[key], at: path + "." + key, into: &mismatches)
            }
        case (let expected as [Any], let actual as [Any]):
            if expected.count != actual.count {
                mismatches.append(
                    "\(path): expected \(expected.count) items, got \(actual.count)\n  expected: \(json(expected))\n  actual:   \(json(actual))"
                )
                return
            }
            for index in expected.indices {
                compare(expected[index], actual[index], at: "\(path)[\(index)]", into: &mismatches)
            }
        case (let expected as String, let actual as String):
            if expected != actual { mismatches.append("\(path): expected \(json(expected)), got \(json(actual))") }
        case (let expected as NSNumber, let actual as NSNumber):
            if !expected.isEqual(actual) {
                mismatches.append("\(path): expected \(json(expected)), got \(json(actual))")
            }
        case (is NSNull, is NSNull):
            return
        default:
            mismatches.append("\(path): expected \(json(expected)), got \(json(actual))")
        }
    }

    /// Compact JSON of a value, for messages; `(missing)` for none.
    static func json(_ value: Any?) -> String {
        guard let value else { return "(missing)" }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }

    /// JSON with sorted keys, two spaces of indent and `"key": value`, as the expected files are written.
    static func pretty(_ value: Any, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case let object as [String: Any]:
            guard !object.isEmpty else { return "{}" }
            let members = object.keys.sorted().map { key in
                inner + json(key) + ": " + pretty(object[key] as Any, indent: inner)
            }
            return "{\n" + members.joined(separator: ",\n") + "\n" + indent + "}"
        case let array as [Any]:
            guard !array.isEmpty else { return "[]" }
            return "[\n" + array.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent
                + "]"
        default:
            return json(value)
        }
    }

    /// Rewrites a case's expected files from the output (`LOCKER_RECORD=1`), keeping the fields
    /// its expected.json already names besides `blocks` and `sections`.
    private func record(
        _ document: [String: Any]?, _ diagnostics: [String], expected: URL, diagnosticsFile: URL
    ) throws {
        var keys: Set<String> = ["blocks", "sections"]
        if let data = try? Data(contentsOf: expected),
            let old = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        {
            keys.formUnion(old.keys)
        }
        var object: [String: Any] = [:]
        for key in keys { object[key] = Self.strippingUUIDs(document?[key]) ?? [] }
        let data = Data((Self.pretty(object) + "\n").utf8)
        try data.write(to: expected)
        try Data(diagnostics.map { $0 + "\n" }.joined().utf8).write(to: diagnosticsFile)
    }
}
