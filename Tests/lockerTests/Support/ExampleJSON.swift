import Foundation

/// A JSON value read from a bundle file or a command's output, as the documentation shows it:
/// pretty (`locker check --format json`'s layout), spaced on one line, or wrapped at a width;
/// abridged with `/* … */` comments where a doc wants a short example.
///
/// Object keys keep the order read from canonical JSON (sorted by UTF-8 bytes).
indirect enum ExampleJSON: Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([ExampleJSON])
    case object([(key: String, value: ExampleJSON)])
    /// Not JSON: `/* text */` in place of values left out (JSON with comments, `jsonc`).
    case comment(String)

    enum Failure: Error, CustomStringConvertible {
        case unreadable(String)
        case missing(String)

        var description: String {
            switch self {
            case .unreadable(let reason): "not JSON: \(reason)"
            case .missing(let what): "no \(what)"
            }
        }
    }

    static func == (lhs: ExampleJSON, rhs: ExampleJSON) -> Bool { lhs.spaced == rhs.spaced }

    /// Parses JSON text; object keys come out sorted by their UTF-8 bytes, as canonical JSON
    /// has them.
    init(_ data: Data) throws {
        do {
            self = try JSONDecoder().decode(Decoded.self, from: data).value
        } catch {
            throw Failure.unreadable("\(error)")
        }
    }

    init(_ text: String) throws { try self.init(Data(text.utf8)) }

    /// Reads the JSON file at `url`.
    init(contentsOf url: URL) throws { try self.init(Data(contentsOf: url)) }

    private struct Decoded: Decodable {
        var value: ExampleJSON

        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                value = .null
            } else if let bool = try? single.decode(Bool.self) {
                value = .bool(bool)
            } else if let int = try? single.decode(Int.self) {
                value = .int(int)
            } else if let double = try? single.decode(Double.self) {
                value = .double(double)
            } else if let string = try? single.decode(String.self) {
                value = .string(string)
            } else if let array = try? single.decode([Decoded].self) {
                value = .array(array.map(\.value))
            } else {
                let object = try single.decode([String: Decoded].self)
                value = .object(
                    object.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
                        .map { (key: $0.key, value: $0.value.value) })
            }
        }
    }

    // MARK: - Reading

    /// The member `key` of an object, or nil.
    subscript(key: String) -> ExampleJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The member `key`, or an error naming `what` was looked for.
    func member(_ key: String) throws -> ExampleJSON {
        guard let value = self[key] else { throw Failure.missing("member '\(key)' in \(spaced.prefix(80))") }
        return value
    }

    /// The elements of an array; empty for anything else.
    var elements: [ExampleJSON] {
        guard case .array(let elements) = self else { return [] }
        return elements
    }

    /// The text of a string; nil for anything else.
    var text: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// This object with `key`'s value replaced (or added, in key order).
    func setting(_ key: String, to value: ExampleJSON) -> ExampleJSON {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            let index =
                members.firstIndex { Array(key.utf8).lexicographicallyPrecedes(Array($0.key.utf8)) } ?? members.count
            members.insert((key: key, value: value), at: index)
        }
        return .object(members)
    }

    /// Every value in this one, depth first, this one included, in document order.
    var descendants: [ExampleJSON] {
        switch self {
        case .array(let elements): [self] + elements.flatMap(\.descendants)
        case .object(let members): [self] + members.flatMap(\.value.descendants)
        default: [self]
        }
    }

    // MARK: - Abridging

    /// A comment naming the strings given, quoted: `/* "a", "b" */`.
    static func commentListing(_ names: [String], prefix: String = "") -> ExampleJSON {
        .comment(prefix + names.map { "\"\($0)\"" }.joined(separator: ", "))
    }

    /// This array's first `count` elements and a comment saying how many more there are
    /// (`what` names them: "files"); the array itself when it has no more.
    func firstElements(_ count: Int, more what: String) -> ExampleJSON {
        let all = elements
        guard all.count > count else { return self }
        return .array(Array(all.prefix(count)) + [.comment("\(all.count - count) more \(what)")])
    }

    // MARK: - Writing

    /// Indented by two spaces, `": "` after keys, one value a line; empty arrays and objects as
    /// `[]` and `{}`: the layout of `locker check --format json`.
    var pretty: String { pretty(indent: 0) }

    private func pretty(indent: Int) -> String {
        let inner = String(repeating: "  ", count: indent + 1)
        let outer = String(repeating: "  ", count: indent)
        switch self {
        case .array(let elements):
            if elements.isEmpty { return "[]" }
            if elements.allSatisfy(\.isComment) {
                return "[ " + elements.map { $0.pretty(indent: indent) }.joined(separator: " ") + " ]"
            }
            let lines = Self.separated(elements.map { ($0.pretty(indent: indent + 1), $0.isComment) })
            return "[\n" + lines.map { inner + $0 }.joined(separator: "\n") + "\n" + outer + "]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            let lines = Self.separated(
                members.map { (Self.quoted($0.key) + ": " + $0.value.pretty(indent: indent + 1), false) })
            return "{\n" + lines.map { inner + $0 }.joined(separator: "\n") + "\n" + outer + "}"
        default:
            return scalar
        }
    }

    /// Commas between values, none after a comment or the last value.
    private static func separated(_ items: [(text: String, isComment: Bool)]) -> [String] {
        let lastValue = items.lastIndex { !$0.isComment }
        return items.enumerated().map { index, item in
            item.isComment || index == lastValue ? item.text : item.text + ","
        }
    }

    /// On one line, with a space after each `:` and `,`: `{"a": [1, 2]}`.
    var spaced: String {
        switch self {
        case .array(let elements):
            return "[" + Self.separated(elements.map { ($0.spaced, $0.isComment) }).joined(separator: " ") + "]"
        case .object(let members):
            return "{"
                + Self.separated(members.map { (Self.quoted($0.key) + ": " + $0.value.spaced, false) })
                .joined(separator: " ") + "}"
        default:
            return scalar
        }
    }

    /// ``spaced``, but an array or object that does not fit in `width` columns has one element
    /// or member a line, aligned after its opening bracket.
    func wrapped(width: Int = 100) -> String { wrapped(column: 0, width: width) }

    private func wrapped(column: Int, width: Int) -> String {
        let flat = spaced
        if column + flat.count <= width { return flat }
        let pad = String(repeating: " ", count: column + 1)
        switch self {
        case .array(let elements):
            let items = elements.map { ($0.wrapped(column: column + 1, width: width), $0.isComment) }
            return "[" + Self.separated(items).joined(separator: "\n" + pad) + "]"
        case .object(let members):
            let items = members.map { member in
                let key = Self.quoted(member.key) + ": "
                return (key + member.value.wrapped(column: column + 1 + key.count, width: width), false)
            }
            return "{" + Self.separated(items).joined(separator: "\n" + pad) + "}"
        default:
            return flat
        }
    }

    private var isComment: Bool {
        if case .comment = self { return true }
        return false
    }

    private var scalar: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): Self.quoted(value)
        case .comment(let text): "/* \(text) */"
        case .array, .object: spaced
        }
    }

    /// A JSON string as canonical JSON writes it: `"`, `\` and control characters escaped,
    /// everything else (slashes, non-ASCII text) as it is.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
