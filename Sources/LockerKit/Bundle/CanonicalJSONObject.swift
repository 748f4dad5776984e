/// Where an object's members go: ``CanonicalJSONWriter``, for a bundle's bytes, or an `Encoder`,
/// for `Encodable` (``CanonicalJSONObject/encodeMembers(to:)``), so that one list of members
/// serves both.
package protocol CanonicalJSONMembers {
    /// Writes a member.
    mutating func member(_ name: StaticString, _ value: some CanonicalJSONWritable & Encodable)
    /// Writes a member whose value is the ETag of `sha256` (``ContentHash/etag(sha256:)``).
    mutating func member(_ name: StaticString, etagOf sha256: String)
}

extension CanonicalJSONMembers {
    /// Writes a member unless its value is nil, as `encodeIfPresent` leaves it out.
    package mutating func member(_ name: StaticString, _ value: (some CanonicalJSONWritable & Encodable)?) {
        guard let value else { return }
        member(name, value)
    }
}

/// A value written as one JSON object from a single list of its members, ``writeMembers(to:)``:
/// the canonical writer writes them straight, and the type's `encode(to:)` is
/// ``encodeMembers(to:)``, so the two cannot differ.
///
/// For the types whose `Encodable` is not synthesized: a tagged union's `type` member, a file's
/// ETag. The others' is, from their stored properties, and their `write(to:)` lists their
/// members; tests hold the two to the same bytes.
package protocol CanonicalJSONObject: CanonicalJSONWritable, Encodable {
    /// Writes the members in the order of their keys' UTF-8 bytes, the order canonical JSON
    /// needs (debug builds check it); an encoder takes them in any order.
    func writeMembers(to json: inout some CanonicalJSONMembers)
}

extension CanonicalJSONObject {
    package func write(to json: inout CanonicalJSONWriter) {
        json.openObject()
        writeMembers(to: &json)
        json.closeObject()
    }

    /// Encodes the members ``writeMembers(to:)`` lists, nil ones left out: what the type's
    /// `encode(to:)` does.
    package func encodeMembers(to encoder: any Encoder) throws {
        var members = EncodedMembers(container: encoder.container(keyedBy: JSONKey.self))
        writeMembers(to: &members)
        if let error = members.error { throw error }
    }
}

/// Members encoded into a keyed container. The list of members cannot throw, so the first
/// error is kept, to be thrown after it, and the members after it are skipped.
private struct EncodedMembers: CanonicalJSONMembers {
    var container: KeyedEncodingContainer<JSONKey>
    var error: (any Error)?

    mutating func member(_ name: StaticString, _ value: some CanonicalJSONWritable & Encodable) {
        guard error == nil else { return }
        let key = JSONKey(name)
        do {
            // Scalars through the container's own methods, as synthesized code calls them: its
            // generic one looks for the types an encoder treats apart (dates, URLs, …) first.
            switch value {
            case let text as String: try container.encode(text, forKey: key)
            case let number as Int: try container.encode(number, forKey: key)
            case let flag as Bool: try container.encode(flag, forKey: key)
            default: try container.encode(value, forKey: key)
            }
        } catch {
            self.error = error
        }
    }

    mutating func member(_ name: StaticString, etagOf sha256: String) {
        member(name, ContentHash.etag(sha256: sha256))
    }
}

/// A key by its name: any key of a JSON object, and the members' keys, which decoding names as
/// ``CanonicalJSONObject/writeMembers(to:)`` writes them.
package struct JSONKey: CodingKey, ExpressibleByStringLiteral {
    package var stringValue: String
    package var intValue: Int? { nil }

    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
    package init(stringLiteral name: String) { stringValue = name }
    init(_ name: StaticString) { stringValue = name.description }
}
