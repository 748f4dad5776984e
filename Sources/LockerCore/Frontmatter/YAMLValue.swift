import Foundation
import LockerKit

/// A YAML value with the position it was written at, so every problem can point at its line.
indirect enum YAMLValue: Sendable, Hashable {
    /// A scalar: its text, what YAML resolves it to, and where it stands.
    case scalar(String, ScalarType, SourcePosition)
    case sequence([YAMLValue], SourcePosition)
    case mapping([Entry], SourcePosition)

    /// What a plain scalar resolves to under YAML's core schema.
    enum ScalarType: Sendable, Hashable { case null, bool, int, float, string }

    /// One key and its value in a mapping, in the order written.
    struct Entry: Sendable, Hashable {
        var key: String
        var keyPosition: SourcePosition
        var value: YAMLValue
    }

    var position: SourcePosition {
        switch self {
        case .scalar(_, _, let position), .sequence(_, let position), .mapping(_, let position): position
        }
    }

    /// The scalar's text, whatever YAML resolved it to; nil for sequences and mappings.
    var scalarText: String? {
        if case .scalar(let text, _, _) = self { return text }
        return nil
    }

    /// What a person would call this value's type, for messages.
    var typeName: String {
        switch self {
        case .scalar(_, .null, _): "null"
        case .scalar(_, .bool, _): "a boolean"
        case .scalar(_, .int, _): "a number"
        case .scalar(_, .float, _): "a number"
        case .scalar: "a string"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }

    /// The value as JSON, for frontmatter keys kept under `extra`.
    var json: JSONValue {
        switch self {
        case .scalar(let text, let type, _):
            switch type {
            case .null: return .null
            case .bool: return .bool(["true", "yes", "on", "y"].contains(text.lowercased()))
            case .int: return Int(text.replacingOccurrences(of: "_", with: "")).map(JSONValue.int) ?? .string(text)
            case .float: return Double(text).map(JSONValue.double) ?? .string(text)
            case .string: return .string(text)
            }
        case .sequence(let values, _): return .array(values.map(\.json))
        case .mapping(let entries, _):
            var object: [String: JSONValue] = [:]
            for entry in entries { object[entry.key] = entry.value.json }
            return .object(object)
        }
    }
}
