/// Encodes `Encodable` values into a tree of ``JSONNode``s, with no JSON text in between.
///
/// ``CanonicalJSON`` writes the tree. The containers implement the concrete `encode` overloads
/// (`String`, `Int`, `Bool`, …) so the common fields never go through a dynamic cast, and object
/// members are kept in arrays, sorted once when written. Coding paths are not tracked: the
/// bundle's types never throw while encoding, and tracking them costs an array per value.
struct JSONValueEncoder {
    func node(for value: some Encodable) throws -> JSONNode {
        let root = JSONNode()
        try encodeValue(value, into: root)
        return root
    }
}

/// A value under construction: a scalar, an object or an array.
final class JSONNode {
    /// A member or element: a finished scalar, kept inline with no node of its own (most values
    /// are), or a node still being filled.
    enum Child {
        case value(JSONValue)
        case node(JSONNode)
    }

    var scalar: JSONValue?
    /// An object's members in the order they were encoded; a key encoded twice keeps its last value.
    var members: [(key: String, child: Child)]?
    var elements: [Child]?

    init() {}

    /// The members sorted by their keys' UTF-8 bytes, the last of any repeated key kept.
    var sortedMembers: [(key: String, child: Child)] {
        guard let members else { return [] }
        let ordered = members.enumerated().sorted { lhs, rhs in
            if lhs.element.key.utf8.elementsEqual(rhs.element.key.utf8) { return lhs.offset < rhs.offset }
            return lhs.element.key.utf8Precedes(rhs.element.key)
        }
        var result: [(key: String, child: Child)] = []
        result.reserveCapacity(ordered.count)
        for (_, member) in ordered {
            if let last = result.last, last.key.utf8.elementsEqual(member.key.utf8) {
                result[result.count - 1] = member
            } else {
                result.append(member)
            }
        }
        return result
    }
}

extension JSONNode.Child {
    /// A value as a child: a scalar inline, anything else encoded into a node of its own.
    static func encoding(_ value: some Encodable) throws -> Self {
        if let scalar = value as? any JSONScalar { return .value(scalar.jsonValue) }
        let node = JSONNode()
        try value.encode(to: TreeEncoder(node: node))
        return .node(node)
    }
}

private struct TreeEncoder: Encoder {
    let node: JSONNode
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.members == nil { node.members = [] }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.elements == nil { node.elements = [] }
        return UnkeyedContainer(node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node)
    }
}

/// The scalars `Encodable` knows, and ``JSONValue`` itself: values written as they are.
///
/// One conformance check finds them, where a cast per scalar type would cost a dozen failed
/// casts for every nested value.
private protocol JSONScalar { var jsonValue: JSONValue { get } }

extension JSONValue: JSONScalar { fileprivate var jsonValue: JSONValue { self } }
extension String: JSONScalar { fileprivate var jsonValue: JSONValue { .string(self) } }
extension Bool: JSONScalar { fileprivate var jsonValue: JSONValue { .bool(self) } }
extension Int: JSONScalar { fileprivate var jsonValue: JSONValue { .int(self) } }
extension Int8: JSONScalar { fileprivate var jsonValue: JSONValue { .int(Int(self)) } }
extension Int16: JSONScalar { fileprivate var jsonValue: JSONValue { .int(Int(self)) } }
extension Int32: JSONScalar { fileprivate var jsonValue: JSONValue { .int(Int(self)) } }
extension Int64: JSONScalar { fileprivate var jsonValue: JSONValue { .int(Int(self)) } }
extension UInt: JSONScalar {
    fileprivate var jsonValue: JSONValue { Int(exactly: self).map(JSONValue.int) ?? .double(Double(self)) }
}
extension UInt8: JSONScalar { fileprivate var jsonValue: JSONValue { .int(Int(self)) } }
extension UInt16: JSONScalar { fileprivate var jsonValue: JSONValue { .int(Int(self)) } }
extension UInt32: JSONScalar { fileprivate var jsonValue: JSONValue { .int(Int(self)) } }
extension UInt64: JSONScalar {
    fileprivate var jsonValue: JSONValue { Int(exactly: self).map(JSONValue.int) ?? .double(Double(self)) }
}
extension Double: JSONScalar { fileprivate var jsonValue: JSONValue { .double(self) } }
extension Float: JSONScalar { fileprivate var jsonValue: JSONValue { .double(Double(self)) } }

private func encodeValue(_ value: some Encodable, into node: JSONNode) throws {
    if let scalar = value as? any JSONScalar {
        node.scalar = scalar.jsonValue
    } else {
        try value.encode(to: TreeEncoder(node: node))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    var codingPath: [any CodingKey] { [] }

    private func child(_ key: Key) -> JSONNode {
        let child = JSONNode()
        node.members?.append((key.stringValue, .node(child)))
        return child
    }

    private func add(_ key: Key, _ value: JSONValue) { node.members?.append((key.stringValue, .value(value))) }

    mutating func encodeNil(forKey key: Key) throws { add(key, .null) }
    mutating func encode(_ value: String, forKey key: Key) throws { add(key, .string(value)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { add(key, .bool(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { add(key, .int(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { add(key, .double(value)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.members?.append((key.stringValue, try .encoding(value)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        TreeEncoder(node: child(key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        TreeEncoder(node: child(key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = JSONNode()
        node.members?.append(("super", .node(child)))
        return TreeEncoder(node: child)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: child(key))
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: JSONNode
    var codingPath: [any CodingKey] { [] }
    var count: Int { node.elements?.count ?? 0 }

    private func append() -> JSONNode {
        let child = JSONNode()
        node.elements?.append(.node(child))
        return child
    }

    private func add(_ value: JSONValue) { node.elements?.append(.value(value)) }

    mutating func encodeNil() throws { add(.null) }
    mutating func encode(_ value: String) throws { add(.string(value)) }
    mutating func encode(_ value: Bool) throws { add(.bool(value)) }
    mutating func encode(_ value: Int) throws { add(.int(value)) }
    mutating func encode(_ value: Double) throws { add(.double(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        node.elements?.append(try .encoding(value))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        TreeEncoder(node: append()).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        TreeEncoder(node: append()).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: append()) }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: JSONNode
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { node.scalar = .null }
    mutating func encode(_ value: String) throws { node.scalar = .string(value) }
    mutating func encode(_ value: Bool) throws { node.scalar = .bool(value) }
    mutating func encode(_ value: Int) throws { node.scalar = .int(value) }
    mutating func encode(_ value: Double) throws { node.scalar = .double(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encodeValue(value, into: node)
    }
}
