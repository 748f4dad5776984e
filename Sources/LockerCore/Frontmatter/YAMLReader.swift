import LockerKit
import Yams

/// Reads YAML into ``YAMLValue``s with file positions, turning every failure into a diagnostic.
struct YAMLReader: Sendable {
    /// How many values one document may expand to: stops alias bombs long before memory does.
    var nodeBudget = 10_000
    /// Added to YAML's own line numbers: the line the YAML starts at in its file, minus one.
    var lineOffset = 0
    /// The file the YAML came from, for diagnostics.
    var file: String
    /// Codes to report syntax errors and complexity with.
    var syntaxCode: DiagnosticCode
    var complexityCode: DiagnosticCode
    var duplicateCode: DiagnosticCode
    /// The last line of the text being read and the column after its end, in YAML's own lines.
    private var end = (line: Int.max, column: 1)

    init(
        lineOffset: Int = 0, file: String, syntaxCode: DiagnosticCode = .frontmatterSyntax,
        complexityCode: DiagnosticCode = .frontmatterTooComplex,
        duplicateCode: DiagnosticCode = .frontmatterDuplicateKey
    ) {
        self.lineOffset = lineOffset
        self.file = file
        self.syntaxCode = syntaxCode
        self.complexityCode = complexityCode
        self.duplicateCode = duplicateCode
    }

    /// What `compose` is given: it constructs nothing, but `Constructor.default` builds its
    /// tables on every use, so one is made once. Never mutated: its maps are constants.
    nonisolated(unsafe) private static let constructor = Constructor.default

    /// The parsed document, nil for an empty one; or the diagnostic that stopped it.
    func read(_ text: String) -> Result<YAMLValue?, Diagnostic> {
        // Only a text without a final line break has marks past its end: the end is worked out
        // for those alone, not for every note's frontmatter.
        guard let last = text.utf8.last, last != UInt8(ascii: "\n") else { return reading(text) }
        var reader = self
        let lastBreak = text.utf8.lastIndex(of: UInt8(ascii: "\n"))
        reader.end = (
            line: text.utf8.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 },
            column: (lastBreak.map { text[text.index(after: $0)...] } ?? text[...]).unicodeScalars.count + 1
        )
        return reader.reading(text)
    }

    private func reading(_ text: String) -> Result<YAMLValue?, Diagnostic> {
        let node: Node?
        do {
            // The basic resolver tags no scalar, so composing runs no regular expression per
            // scalar; `scalarType` resolves only the scalars that can be other than text.
            node = try Yams.compose(yaml: text, .basic, Self.constructor, .utf8)
        } catch let error as YamlError {
            return .failure(diagnostic(for: error))
        } catch {
            return .failure(
                Diagnostic(.error, syntaxCode, "invalid YAML: \(error)", file: file, at: position(line: 1, column: 1)))
        }
        guard let node else { return .success(nil) }
        var budget = nodeBudget
        guard let value = convert(node, budget: &budget) else {
            return .failure(
                Diagnostic(
                    .error, complexityCode,
                    "YAML expands to more than \(nodeBudget) values; aliases (*name) may be multiplying it",
                    file: file, at: position(node.mark)))
        }
        return .success(value)
    }

    /// A position in the file. At the end of a text without a final line break, libyaml adds
    /// one and marks the line after the last; such a mark is the end of the last line instead,
    /// which editors can go to.
    private func position(line: Int, column: Int) -> SourcePosition {
        guard line <= end.line else { return SourcePosition(line: end.line + lineOffset, column: end.column) }
        return SourcePosition(line: max(1, line) + lineOffset, column: max(1, column))
    }

    private func position(_ mark: Mark?) -> SourcePosition {
        position(line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    private func diagnostic(for error: YamlError) -> Diagnostic {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return Diagnostic(
                .error, syntaxCode, "invalid YAML: \(problem)", file: file, at: position(mark))
        case .duplicatedKeysInMapping(let duplicates, let context):
            let name = duplicates.first ?? "?"
            return Diagnostic(
                .error, duplicateCode, "key '\(name)' appears more than once", file: file,
                at: position(context.mark))
        case .reader(let problem, _, _, _):
            return Diagnostic(
                .error, syntaxCode, "invalid YAML: \(problem)", file: file, at: position(line: 1, column: 1))
        default:
            return Diagnostic(.error, syntaxCode, "invalid YAML", file: file, at: position(line: 1, column: 1))
        }
    }

    /// Converts with an explicit budget; nil once the budget runs out.
    private func convert(_ node: Node, budget: inout Int) -> YAMLValue? {
        budget -= 1
        guard budget >= 0 else { return nil }
        switch node {
        case .scalar(let scalar):
            return .scalar(scalar.string, scalarType(scalar), position(scalar.mark))
        case .sequence(let sequence):
            var values: [YAMLValue] = []
            for element in sequence {
                guard let value = convert(element, budget: &budget) else { return nil }
                values.append(value)
            }
            return .sequence(values, position(sequence.mark))
        case .mapping(let mapping):
            var entries: [YAMLValue.Entry] = []
            for (key, value) in mapping {
                guard let keyValue = convert(key, budget: &budget), let converted = convert(value, budget: &budget)
                else { return nil }
                let keyText = keyValue.scalarText ?? ""
                entries.append(.init(key: keyText, keyPosition: keyValue.position, value: converted))
            }
            return .mapping(entries, position(mapping.mark))
        case .alias(let alias):
            return .scalar("", .null, position(alias.mark))
        }
    }

    private func scalarType(_ scalar: Node.Scalar) -> YAMLValue.ScalarType {
        guard scalar.style == .plain || scalar.style == .any else { return .string }
        // An explicit tag (`!!str 0042`) decides the type itself, as Yams resolves it: as
        // written. So do the mapping keys, whose tags Yams resolves (to `str`) as it hashes them.
        // Read here, not through `Resolver.default`, whose seven regular expressions were
        // compiled anew for every rebuild, even of one note.
        guard scalar.tag.rawValue == Tag.Name.implicit.rawValue else {
            return Self.type(of: Tag.Name(rawValue: scalar.tag.rawValue))
        }
        return Self.plainScalarType(scalar.string)
    }

    /// The type of a plain scalar under YAML 1.1's rules, as Yams' default resolver gives it, with
    /// the common cases decided without its regular expressions.
    static func plainScalarType(_ text: String) -> YAMLValue.ScalarType {
        let bytes = text.utf8
        // Nothing at all is null (`aliases:`), as YAML 1.1's null rule has it.
        guard let first = bytes.first else { return .null }
        // Starting with an ASCII letter, only these words are other than text.
        if (first | 0x20) >= 0x61, (first | 0x20) <= 0x7A { return letterWords[text] ?? .string }
        // Plain decimals without a leading zero are integers.
        if bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), bytes.count == 1 || first != 0x30 { return .int }
        // YAML's null, bool, int and float forms start with one of these characters or are at
        // most five letters long (`false`, `NULL`); anything else is text, without a regex.
        if bytes.count > 5, !"-+.~0123456789<=".utf8.contains(first) { return .string }
        return resolvedType(text)
    }

    /// The words starting with a letter that YAML 1.1 reads as other than text.
    private static let letterWords: [String: YAMLValue.ScalarType] = {
        var words: [String: YAMLValue.ScalarType] = [:]
        for word in ["yes", "no", "true", "false", "on", "off"] {
            for form in [word, word.prefix(1).uppercased() + word.dropFirst(), word.uppercased()] {
                words[form] = .bool
            }
        }
        for form in ["null", "Null", "NULL"] { words[form] = .null }
        return words
    }()

    /// The type Yams' default resolver gives a plain scalar, by its regular expressions.
    static func resolvedType(_ text: String) -> YAMLValue.ScalarType {
        type(of: Resolver.default.resolveTag(of: .scalar(Node.Scalar(text))))
    }

    private static func type(of tag: Tag.Name) -> YAMLValue.ScalarType {
        switch tag {
        case .null: return .null
        case .bool: return .bool
        case .int: return .int
        case .float: return .float
        default: return .string
        }
    }
}
