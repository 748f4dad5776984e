import Foundation
import LockerKit

/// Formats diagnostics for people, for tools (JSON, SARIF), and for GitHub Actions.
public struct DiagnosticPrinter: Sendable {
    /// The output formats of `locker check --format`.
    public enum Format: String, Sendable, CaseIterable {
        /// `path:line:col: severity: message [code]`, with an indented hint line.
        case text
        /// One JSON document with every diagnostic and a summary.
        case json
        /// GitHub Actions workflow commands, shown as annotations on a pull request.
        case github
        /// A SARIF 2.1.0 log, for code scanning and review tools (``sarif(_:leftOut:)``).
        case sarif
    }

    /// What a report of the changes since a commit left out (`locker check --changed-since`):
    /// the problems in files the changes did not touch and did not cause.
    public struct LeftOut: Sendable, Hashable {
        /// The commit the changes count from.
        public var base: String
        /// How many problems, of any severity, are not shown.
        public var count: Int

        public init(base: String, count: Int) {
            self.base = base
            self.count = count
        }
    }

    public var format: Format
    /// Prepended to every file path, so paths are relative to where the command was run.
    public var pathPrefix: String

    public init(format: Format, pathPrefix: String = "") {
        self.format = format
        self.pathPrefix = pathPrefix
    }

    func path(_ diagnostic: Diagnostic) -> String {
        guard !pathPrefix.isEmpty else { return diagnostic.file }
        return pathPrefix.hasSuffix("/") ? pathPrefix + diagnostic.file : pathPrefix + "/" + diagnostic.file
    }

    /// Renders the diagnostics (already sorted) and a summary of the run, which says what
    /// was `leftOut` when the report is of a vault's changes.
    public func render(_ diagnostics: [Diagnostic], notesChecked: Int, leftOut: LeftOut? = nil) -> String {
        switch format {
        case .text: return text(diagnostics, notesChecked: notesChecked, leftOut: leftOut)
        case .json: return json(diagnostics, notesChecked: notesChecked, leftOut: leftOut)
        case .github: return github(diagnostics)
        case .sarif: return sarif(diagnostics, leftOut: leftOut)
        }
    }

    private func text(_ diagnostics: [Diagnostic], notesChecked: Int, leftOut: LeftOut?) -> String {
        var out = ""
        for diagnostic in diagnostics {
            out += line(for: diagnostic) + "\n"
            if let hint = diagnostic.hint { out += "  hint: \(hint)\n" }
        }
        out += Self.summary(diagnostics, notesChecked: notesChecked, leftOut: leftOut) + "\n"
        return out
    }

    /// `path:line:col: severity: message [code]`: one diagnostic as the text format prints it, without its hint.
    public func line(for diagnostic: Diagnostic) -> String {
        "\(path(diagnostic)):\(diagnostic.position.line):\(diagnostic.position.column): "
            + "\(diagnostic.severity.rawValue): \(diagnostic.message) [\(diagnostic.code)]"
    }

    /// `3 notes checked: 1 error, 2 warnings.`; with what a report of changes left out,
    /// `3 notes checked: 1 error, 2 warnings (4 problems in unchanged files not shown).`
    public static func summary(_ diagnostics: [Diagnostic], notesChecked: Int, leftOut: LeftOut? = nil) -> String {
        let errors = diagnostics.filter { $0.severity == .error }.count
        let warnings = diagnostics.filter { $0.severity == .warning }.count
        func plural(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }
        let left = leftOut.map { " (\(plural($0.count, "problem")) in unchanged files not shown)" } ?? ""
        return "\(plural(notesChecked, "note")) checked: \(plural(errors, "error")), \(plural(warnings, "warning"))"
            + left + "."
    }

    private func json(_ diagnostics: [Diagnostic], notesChecked: Int, leftOut: LeftOut?) -> String {
        let items: [JSONValue] = diagnostics.map { diagnostic in
            var object: [String: JSONValue] = [
                "severity": .string(diagnostic.severity.rawValue),
                "code": .string(diagnostic.code.rawValue),
                "message": .string(diagnostic.message),
                "file": .string(path(diagnostic)),
                "line": .int(diagnostic.position.line),
                "column": .int(diagnostic.position.column),
            ]
            if let hint = diagnostic.hint { object["hint"] = .string(hint) }
            return .object(object)
        }
        var summary: [String: JSONValue] = [
            "notes": .int(notesChecked),
            "errors": .int(diagnostics.filter { $0.severity == .error }.count),
            "warnings": .int(diagnostics.filter { $0.severity == .warning }.count),
        ]
        if let leftOut {
            summary["changedSince"] = .string(leftOut.base)
            summary["notShown"] = .int(leftOut.count)
        }
        let document: JSONValue = .object(["diagnostics": .array(items), "summary": .object(summary)])
        return String(decoding: CanonicalJSON.data(for: document), as: UTF8.self)
    }

    private func github(_ diagnostics: [Diagnostic]) -> String {
        var out = ""
        for diagnostic in diagnostics {
            let command =
                switch diagnostic.severity {
                case .error: "error"
                case .warning: "warning"
                case .note: "notice"
                }
            let properties = [
                "file=" + Self.escapeProperty(path(diagnostic)),
                "line=\(diagnostic.position.line)",
                "col=\(diagnostic.position.column)",
                "title=" + Self.escapeProperty(diagnostic.code.rawValue),
            ].joined(separator: ",")
            var message = diagnostic.message
            if let hint = diagnostic.hint { message += "\n" + hint }
            out += "::\(command) \(properties)::\(Self.escapeData(message))\n"
        }
        return out
    }

    static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
