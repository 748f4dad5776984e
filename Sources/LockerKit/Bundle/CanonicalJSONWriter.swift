import Foundation

/// A value that writes itself as canonical JSON, member by member in key order.
///
/// Its output must equal what its `Encodable` conformance gives through
/// ``CanonicalJSON/encode(_:layout:)`` with ``CanonicalJSON/Layout/compact``: the tests hold every
/// conforming type to that, over the default vault and random values.
package protocol CanonicalJSONWritable {
    /// Writes the value as one JSON value.
    func write(to json: inout CanonicalJSONWriter)
}

/// Writes compact canonical JSON straight from values, without the tree ``CanonicalJSON`` builds
/// from an `Encodable` conformance: bundle files, indexes and the manifest are written with it,
/// since a build writes one per document.
///
/// Objects list their members in the order of their keys' UTF-8 bytes, as ``CanonicalJSON``
/// orders them; debug builds check the order. Members whose value is nil are left out, as
/// `encodeIfPresent` leaves them out.
package struct CanonicalJSONWriter {
    /// What has been written so far.
    package private(set) var bytes: [UInt8] = []
    /// Whether the last thing written was a value, so the next one needs a comma first.
    private var afterValue = false
    #if DEBUG
        /// The last key written in each open object, innermost last.
        private var lastKeys: [[UInt8]] = []
    #endif

    /// A writer whose buffer has room for `capacity` bytes.
    package init(capacity: Int = 8192) {
        bytes.reserveCapacity(capacity)
    }

    /// A value's canonical compact JSON, ending with a newline as every bundle file does.
    package static func data(for value: some CanonicalJSONWritable, capacity: Int = 8192) -> Data {
        var writer = CanonicalJSONWriter(capacity: capacity)
        value.write(to: &writer)
        writer.bytes.append(0x0A)
        return Data(writer.bytes)
    }

    private mutating func beginValue() {
        if afterValue { bytes.append(0x2C) }
    }

    /// Writes an object; `members` writes its members in key order.
    package mutating func object(_ members: (inout CanonicalJSONWriter) -> Void) {
        openObject()
        members(&self)
        closeObject()
    }

    /// Opens an object, whose members come next, in key order, and then ``closeObject()``:
    /// ``object(_:)`` without a closure, for a value written thousands of times, which a
    /// closure would copy (retaining its strings) to capture.
    mutating func openObject() {
        beginValue()
        bytes.append(0x7B)
        afterValue = false
        #if DEBUG
            lastKeys.append([])
        #endif
    }

    /// Closes the object ``openObject()`` opened.
    mutating func closeObject() {
        #if DEBUG
            lastKeys.removeLast()
        #endif
        bytes.append(0x7D)
        afterValue = true
    }

    /// Writes an array of values.
    package mutating func array<Values: Sequence>(_ values: Values) where Values.Element: CanonicalJSONWritable {
        beginValue()
        bytes.append(0x5B)
        afterValue = false
        for value in values { value.write(to: &self) }
        bytes.append(0x5D)
        afterValue = true
    }

    /// Writes a string.
    package mutating func string(_ text: String) {
        beginValue()
        CanonicalJSON.writeString(text, into: &bytes)
        afterValue = true
    }

    /// Writes the string `"sha256-<sha256>"` (an ETag, quotes included) as ``string(_:)``
    /// would, without making it: a manifest has 10,000.
    mutating func etag(sha256: String) {
        beginValue()
        bytes.append(contentsOf: Self.etagOpening)
        CanonicalJSON.writeEscaped(sha256, into: &bytes)
        bytes.append(contentsOf: Self.etagClosing)
        afterValue = true
    }

    /// What an ETag's JSON string has before its hash, and after it: a quote, then an escaped one.
    private static let etagOpening: [UInt8] = [0x22, 0x5C, 0x22] + Array("sha256-".utf8)
    private static let etagClosing: [UInt8] = [0x5C, 0x22, 0x22]

    /// Writes `json`, one value or several separated by commas, as they are: canonical JSON
    /// written earlier, copied rather than written again.
    mutating func values(copying json: UnsafeBufferPointer<UInt8>) {
        guard !json.isEmpty else { return }
        beginValue()
        bytes.append(contentsOf: json)
        afterValue = true
    }

    /// Writes an integer.
    package mutating func int(_ number: Int) {
        beginValue()
        CanonicalJSON.writeInt(number, into: &bytes)
        afterValue = true
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ flag: Bool) {
        beginValue()
        bytes.append(contentsOf: flag ? Self.trueBytes : Self.falseBytes)
        afterValue = true
    }

    /// Writes any JSON value, as ``CanonicalJSON/data(for:layout:)`` does.
    package mutating func value(_ value: JSONValue) {
        beginValue()
        CanonicalJSON.write(value, compactInto: &bytes)
        afterValue = true
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)

    /// Writes a member's key; its value comes next.
    package mutating func key(_ name: StaticString) {
        beginValue()
        name.withUTF8Buffer { key in
            #if DEBUG
                if let last = lastKeys.last {
                    precondition(
                        last.isEmpty || last.lexicographicallyPrecedes(key),
                        "canonical JSON keys out of order: '\(String(decoding: key, as: UTF8.self))' after '\(String(decoding: last, as: UTF8.self))'"
                    )
                    lastKeys[lastKeys.count - 1] = Array(key)
                }
            #endif
            bytes.append(0x22)
            bytes.append(contentsOf: key)
            bytes.append(0x22)
        }
        bytes.append(0x3A)
        afterValue = false
    }

    /// Writes a member.
    // Always inlined, so that a member's value is written by code specialized where the member
    // is: through the generic lists of ``CanonicalJSONObject``, the optimizer left the items of
    // a `Block.List`, written inside this method's specialization for the list, to generic calls.
    @inline(__always)
    package mutating func member(_ name: StaticString, _ value: some CanonicalJSONWritable) {
        key(name)
        value.write(to: &self)
    }

    /// Writes a member whose value is the ETag of `sha256`, as ``etag(sha256:)`` writes it.
    package mutating func member(_ name: StaticString, etagOf sha256: String) {
        key(name)
        etag(sha256: sha256)
    }

    /// Writes a member whose value is an object of JSON values, such as frontmatter's extra keys.
    package mutating func member(_ name: StaticString, _ members: [String: JSONValue]) {
        key(name)
        value(.object(members))
    }
}

// Optional members are written by the protocol's `member(_:_:)`, which leaves out nil ones.
extension CanonicalJSONWriter: CanonicalJSONMembers {}

extension String: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) { json.string(self) }
}

extension Int: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) { json.int(self) }
}

extension Bool: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) { json.bool(self) }
}

extension Array: CanonicalJSONWritable where Element: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) { json.array(self) }
}

extension JSONValue: CanonicalJSONWritable {
    package func write(to json: inout CanonicalJSONWriter) { json.value(self) }
}
