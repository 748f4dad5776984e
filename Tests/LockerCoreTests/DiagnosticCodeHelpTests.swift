import Foundation
import Testing

@testable import LockerCore

/// The codes' documentation, which SARIF logs carry as rules, kept with the codes declared in
/// `DiagnosticCode.swift` and the table of docs/content-format.md, so that none drifts.
@Suite struct DiagnosticCodeHelpTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every code `DiagnosticCode.swift` declares, with the `///` lines above its declaration
    /// joined into one.
    static func declaredCodes() throws -> [(code: String, summary: String)] {
        let source = try String(
            contentsOf: repository.appendingPathComponent("Sources/LockerCore/Diagnostics/DiagnosticCode.swift"),
            encoding: .utf8)
        let declaration = #/public static let \w+ = DiagnosticCode\(rawValue: "(?<code>[^"]+)"\)/#
        var codes: [(code: String, summary: String)] = []
        var comment: [String] = []
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("/// ") {
                comment.append(String(text.dropFirst(4)))
            } else {
                if let match = text.firstMatch(of: declaration) {
                    codes.append((String(match.output.code), comment.joined(separator: " ")))
                }
                comment = []
            }
        }
        return codes
    }

    /// The rows of the table under "Diagnostic codes" in content-format.md: each code and its
    /// meaning as plain text, without the references to other sections (`(see [Links](#links))`)
    /// that only the document can follow.
    static func documentedCodes() throws -> [String: String] {
        let text = try String(
            contentsOf: repository.appendingPathComponent("docs/content-format.md"), encoding: .utf8)
        let start = try #require(text.range(of: "\n## Diagnostic codes\n"))
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        let row = #/^\| `(?<code>[a-z0-9.-]+)` \| [^|]+ \| (?<meaning>.+?) \| .+ \|$/#.anchorsMatchLineEndings()
        var rows: [String: String] = [:]
        for match in section[..<end].matches(of: row) {
            rows[String(match.output.code)] = String(match.output.meaning)
                .replacing(#/ \(see \[[^\]]+\]\([^)]+\)\)/#, with: "")
        }
        return rows
    }

    @Test func everyDeclaredCodeHasHelpAndADocumentedRow() throws {
        let declared = try Self.declaredCodes()
        let documented = try Self.documentedCodes()
        #expect(declared.count > 40, "the declarations were found: \(declared.count)")
        #expect(Set(declared.map(\.code)) == Set(documented.keys), "codes declared and documented")
        #expect(Set(declared.map(\.code)) == Set(DiagnosticCode.helpTable.keys.map(\.rawValue)), "codes with help")
        for (code, summary) in declared {
            let help = try #require(DiagnosticCode(rawValue: code).help, "\(code) has no help")
            #expect(help.summary == summary, "\(code): the summary is the declaration's")
            #expect(help.explanation == documented[code], "\(code): the explanation is content-format.md's meaning")
            #expect(!help.fix.isEmpty, "\(code): a fix")
            #expect(!help.fix.contains("]("), "\(code): no Markdown link, which a SARIF viewer shows as text")
        }
    }

    @Test func anUndeclaredCodeHasNoHelp() {
        #expect(DiagnosticCode(rawValue: "link.no-such-code").help == nil)
    }
}
