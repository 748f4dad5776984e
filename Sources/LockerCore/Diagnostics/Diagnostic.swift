import LockerKit

/// How serious a diagnostic is.
public enum Severity: String, Sendable, Hashable, Codable, Comparable {
    /// Informational: never fails a run, not even under `--strict`.
    case note
    /// Worth fixing; fails a run only under `--strict`.
    case warning
    /// The content is wrong: the build writes nothing and exits 1.
    case error

    private var rank: Int {
        switch self {
        case .note: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// A 1-based line and column in a file. Columns count Unicode scalars, as editors show them.
public struct SourcePosition: Sendable, Hashable, Codable, Comparable {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The start of a file.
    public static let start = SourcePosition(line: 1, column: 1)

    public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// A problem found in the content: a value, printed in one place by ``DiagnosticPrinter``.
public struct Diagnostic: Sendable, Hashable, Codable {
    public var severity: Severity
    public var code: DiagnosticCode
    public var message: String
    /// The file's path relative to the vault, with `/` separators; `locker.yml` for configuration.
    public var file: String
    public var position: SourcePosition
    /// What to do about it, when there is something useful to say.
    public var hint: String?

    public init(
        _ severity: Severity, _ code: DiagnosticCode, _ message: String, file: String,
        at position: SourcePosition = .start, hint: String? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.file = file
        self.position = position
        self.hint = hint
    }

    /// Orders diagnostics by file, position, then code, so output is stable; those about the
    /// settings first (`locker.yml`'s, and the folders named for a kind), as the settings change
    /// how every note reads.
    private var isAboutSettings: Bool { file == VaultConfig.fileName || code == .configKindFolder }

    public static func ordered(_ lhs: Diagnostic, _ rhs: Diagnostic) -> Bool {
        if lhs.isAboutSettings != rhs.isAboutSettings { return lhs.isAboutSettings }
        if !lhs.file.utf8.elementsEqual(rhs.file.utf8) { return lhs.file.utf8Precedes(rhs.file) }
        if lhs.position != rhs.position { return lhs.position < rhs.position }
        if lhs.code != rhs.code { return lhs.code.rawValue < rhs.code.rawValue }
        return lhs.message.utf8Precedes(rhs.message)
    }
}

extension Array where Element == Diagnostic {
    /// Whether these diagnostics fail a run: any error, or any warning when strict.
    public func fail(strict: Bool) -> Bool {
        contains { $0.severity == .error || (strict && $0.severity == .warning) }
    }

    /// The same diagnostics with warnings raised to errors, as `--strict` reports them.
    public func escalated(strict: Bool) -> [Diagnostic] {
        guard strict else { return self }
        return map { diagnostic in
            var raised = diagnostic
            if raised.severity == .warning { raised.severity = .error }
            return raised
        }
    }
}

extension Diagnostic: Error {}

extension String {
    /// The text's first line, cut to 60 characters, for quoting in a message.
    var excerpt: String {
        let firstLine = split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        return firstLine.count > 60 ? firstLine.prefix(59) + "…" : firstLine
    }
}
