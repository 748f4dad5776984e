import Foundation
import LockerKit

/// `--format sarif`: the diagnostics as a SARIF 2.1.0 log (OASIS), which GitHub code scanning,
/// GitLab and review tools read.
extension DiagnosticPrinter {
    /// The schema a log names, the OASIS standard's (errata 01).
    static let sarifSchema =
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    /// The base a relative file's URI is resolved against: the folder `locker` ran in, whose
    /// paths diagnostics print; in CI, the repository's root.
    static let sourceRoot = "%SRCROOT%"

    /// One run of `locker`: a rule for each code that has a result (its summary, meaning and fix),
    /// then a result for each diagnostic, its hint on a line after its message. Columns count
    /// Unicode scalars (`columnKind` `unicodeCodePoints`), as Locker's do. What a report of
    /// changes left out goes in the run's properties (`changedSince`, `notShown`).
    func sarif(_ diagnostics: [Diagnostic], leftOut: LeftOut?) -> String {
        let codes = Set(diagnostics.map(\.code)).sorted { $0.rawValue.utf8Precedes($1.rawValue) }
        let ruleIndex = Dictionary(uniqueKeysWithValues: codes.enumerated().map { ($1, $0) })
        let rules: [JSONValue] = codes.map { code in
            var rule: [String: JSONValue] = ["id": .string(code.rawValue)]
            if let help = code.help {
                rule["shortDescription"] = .object(["text": .string(help.summary)])
                rule["fullDescription"] = .object(["text": .string(help.explanation)])
                rule["help"] = .object(["text": .string(help.fix)])
            }
            return .object(rule)
        }
        let results: [JSONValue] = diagnostics.map { diagnostic in
            var text = diagnostic.message
            if let hint = diagnostic.hint { text += "\nhint: " + hint }
            let level =
                switch diagnostic.severity {
                case .error: "error"
                case .warning: "warning"
                case .note: "note"
                }
            return .object([
                "ruleId": .string(diagnostic.code.rawValue),
                "ruleIndex": .int(ruleIndex[diagnostic.code] ?? 0),
                "level": .string(level),
                "message": .object(["text": .string(text)]),
                "locations": .array([
                    .object([
                        "physicalLocation": .object([
                            "artifactLocation": artifactLocation(path(diagnostic)),
                            "region": .object([
                                "startLine": .int(diagnostic.position.line),
                                "startColumn": .int(diagnostic.position.column),
                            ]),
                        ])
                    ])
                ]),
            ])
        }
        var run: [String: JSONValue] = [
            "tool": .object([
                "driver": .object([
                    "name": .string("locker"),
                    "version": .string(LockerVersion.current),
                    "rules": .array(rules),
                ])
            ]),
            "columnKind": .string("unicodeCodePoints"),
            "results": .array(results),
        ]
        if let leftOut {
            run["properties"] = .object(["changedSince": .string(leftOut.base), "notShown": .int(leftOut.count)])
        }
        let log: JSONValue = .object([
            "$schema": .string(Self.sarifSchema),
            "version": .string("2.1.0"),
            "runs": .array([.object(run)]),
        ])
        return String(decoding: CanonicalJSON.data(for: log), as: UTF8.self)
    }

    /// Where a file is, as SARIF says it: a URI reference, each byte but the unreserved ones
    /// and `/` percent-encoded (a path may hold Cyrillic, spaces, `#`); relative to
    /// ``sourceRoot``, or a `file:` URI when the vault was given by an absolute path.
    private func artifactLocation(_ path: String) -> JSONValue {
        var encoded = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += String(format: "%%%02X", byte)
            }
        }
        if path.hasPrefix("/") { return .object(["uri": .string("file://" + encoded)]) }
        return .object(["uri": .string(encoded), "uriBaseId": .string(Self.sourceRoot)])
    }
}
