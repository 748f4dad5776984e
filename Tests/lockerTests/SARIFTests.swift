import Foundation
import LockerKit
import Testing

/// `--format sarif`: a SARIF 2.1.0 log that the OASIS schema accepts (checked by
/// check-jsonschema, from PyPI), with the rules, levels, positions and hints tools show.
@Suite struct SARIFTests {
    static let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/sarif/sarif-schema-2.1.0.json")

    /// Errors, warnings and a note, with hints, in several files, in Russian, one file named in
    /// Cyrillic with a space, and a link after an emoji (two UTF-16 units, one scalar).
    static let vault: [String: String] = [
        "guides/якорь и цепь.md": "# Якорь\n\nПодробнее — в [[Нет такой]].\n\n#### Глубоко\n",
        "guides/emoji.md": "# Emoji\n\n🙂 [[nowhere]]\n",
        "guides/crlf.md": "---\r\ncategory: sailing\r\n---\r\n# CRLF\r\n",
    ]

    /// Runs check-jsonschema on `document` against the OASIS schema; nil when it is not installed.
    static func validate(_ document: String) throws -> (status: Int32, output: String)? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-sarif-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("locker.sarif.json")
        try Data(document.utf8).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["check-jsonschema", "--schemafile", schema.path, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 127 ? nil : (process.terminationStatus, output)
    }

    static func sarif(_ arguments: [String] = []) throws -> (run: LockerRun, log: [String: JSONValue]) {
        let workspace = try Workspace(vault)
        defer { workspace.remove() }
        let run = try LockerRun(["check", "vault", "--format", "sarif"] + arguments, in: workspace.root)
        let document = try JSONDecoder().decode(JSONValue.self, from: Data(run.stdout.utf8))
        guard case .object(let log) = document else { throw CocoaError(.coderReadCorrupt) }
        return (run, log)
    }

    @Test func theLogIsValidAgainstTheOASISSchemaAndABrokenOneIsNot() throws {
        let (run, _) = try Self.sarif()
        #expect(run.status == 1, "\(run.stderr)")
        let valid = try #require(
            try Self.validate(run.stdout),
            "check-jsonschema is not installed: `make test` installs it into .build/tools (Tests/browser/requirements.txt)"
        )
        #expect(valid.status == 0, "the OASIS schema refuses the log:\n\(valid.output)\n\(run.stdout)")

        // The validator can fail: a level SARIF does not have is refused.
        let broken = run.stdout.replacingOccurrences(of: "\"level\": \"warning\"", with: "\"level\": \"severe\"")
        #expect(broken != run.stdout)
        let refused = try #require(try Self.validate(broken))
        #expect(refused.status != 0, "a broken log passed:\n\(refused.output)")
    }

    @Test func resultsCarryRulesLevelsPositionsAndHints() throws {
        let (run, log) = try Self.sarif()
        #expect(log["version"] == .string("2.1.0"))
        #expect(
            log["$schema"]
                == .string("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
        )
        guard case .array(let runs)? = log["runs"], runs.count == 1, case .object(let sarifRun) = runs[0],
            case .object(let tool)? = sarifRun["tool"], case .object(let driver)? = tool["driver"],
            case .array(let rules)? = driver["rules"], case .array(let results)? = sarifRun["results"]
        else {
            Issue.record("unexpected SARIF: \(run.stdout)")
            return
        }
        #expect(driver["name"] == .string("locker"))
        let version = try LockerRun(["--version"], in: FileManager.default.temporaryDirectory)
        guard case .string(let driverVersion)? = driver["version"] else {
            Issue.record("no driver version: \(run.stdout)")
            return
        }
        #expect(version.stdout.hasPrefix("locker \(driverVersion) "), "the release `locker --version` prints")
        #expect(sarifRun["columnKind"] == .string("unicodeCodePoints"))
        #expect(sarifRun["properties"] == nil, "nothing left out")

        let ruleIDs = rules.compactMap { rule -> String? in
            if case .object(let fields) = rule, case .string(let id)? = fields["id"] { id } else { nil }
        }
        #expect(
            ruleIDs == ["file.crlf", "frontmatter.invalid-value", "heading.skipped-level", "link.broken"],
            "the codes that have results, sorted")
        #expect(
            rules.last
                == .object([
                    "id": .string("link.broken"),
                    "shortDescription": .object([
                        "text": .string("A link or embed names a note or file that does not exist.")
                    ]),
                    "fullDescription": .object([
                        "text": .string("A link, embed or image names a note or file that does not exist.")
                    ]),
                    "help": .object(["text": .string("Create the note, or fix the link.")]),
                ]))

        func result(_ ruleID: String, _ uri: String, line: Int, column: Int, level: String, text: String)
            -> JSONValue
        {
            .object([
                "ruleId": .string(ruleID),
                "ruleIndex": .int(ruleIDs.firstIndex(of: ruleID) ?? -1),
                "level": .string(level),
                "message": .object(["text": .string(text)]),
                "locations": .array([
                    .object([
                        "physicalLocation": .object([
                            "artifactLocation": .object(["uri": .string(uri), "uriBaseId": .string("%SRCROOT%")]),
                            "region": .object(["startLine": .int(line), "startColumn": .int(column)]),
                        ])
                    ])
                ]),
            ])
        }
        let russian = "vault/guides/%D1%8F%D0%BA%D0%BE%D1%80%D1%8C%20%D0%B8%20%D1%86%D0%B5%D0%BF%D1%8C.md"
        #expect(
            results == [
                result(
                    "file.crlf", "vault/guides/crlf.md", line: 1, column: 1, level: "note",
                    text: "CRLF line endings read as LF"),
                result(
                    "frontmatter.invalid-value", "vault/guides/crlf.md", line: 2, column: 11, level: "error",
                    text:
                        "'sailing' is not a valid category\nhint: use one of: briefing, knots, maneuvering, mooring, safety"
                ),
                // Column 3 in scalars; it would be 4 in UTF-16 code units.
                result(
                    "link.broken", "vault/guides/emoji.md", line: 3, column: 3, level: "warning",
                    text: "no note named 'nowhere'\nhint: create the note, or fix the link"),
                result(
                    "link.broken", russian, line: 3, column: 15, level: "warning",
                    text: "no note named 'Нет такой'\nhint: create the note, or fix the link"),
                result(
                    "heading.skipped-level", russian, line: 5, column: 1, level: "warning",
                    text: "H4 follows H1: a heading level is skipped\nhint: use H2"),
            ], "\(run.stdout)")
    }

    @Test func aLogIsByteIdenticalTwiceAndBuildPrintsTheSame() throws {
        let workspace = try Workspace(Self.vault)
        defer { workspace.remove() }
        let first = try LockerRun(["check", "vault", "--format", "sarif"], in: workspace.root)
        let second = try LockerRun(["check", "vault", "--format", "sarif"], in: workspace.root)
        #expect(first.stdout == second.stdout)
        let build = try LockerRun(["build", "vault", "--out", "out", "--format", "sarif"], in: workspace.root)
        #expect(build.status == 1)
        #expect(build.stdout == first.stdout, "standard output holds the log alone")
        #expect(build.stderr == "locker: nothing written; out is unchanged.\n")
    }

    @Test func aVaultGivenByAnAbsolutePathIsNamedByFileURIs() throws {
        let workspace = try Workspace(["guides/a.md": "# A\n\n[[nowhere]]\n"])
        defer { workspace.remove() }
        let vault = workspace.root.appendingPathComponent("vault").path
        let run = try LockerRun(["check", vault, "--format", "sarif"], in: workspace.root)
        #expect(run.stdout.contains("\"uri\": \"file://\(vault)/guides/a.md\""), "\(run.stdout)")
        #expect(!run.stdout.contains("uriBaseId"))
        let valid = try #require(try Self.validate(run.stdout))
        #expect(valid.status == 0, "\(valid.output)")
    }
}
