import Crypto
import Foundation

/// Stable identity of a document: the same kind and id give the same UUID in every build.
public enum ContentIdentity {
    /// The RFC 4122 namespace for DNS names.
    static let dnsNamespace = UUID(
        uuid: (0x6B, 0xA7, 0xB8, 0x10, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8))

    /// The fixed namespace every Locker UUID is derived from: the UUIDv5 of the DNS name
    /// `content.locker`, `486d1760-afaf-5698-9544-04b484c2cbce`; it never changes.
    public static let namespace = uuidV5(namespace: dnsNamespace, name: "content.locker")

    /// The UUIDv5 of `kind/id` in ``namespace``: what deep links and app progress are keyed by.
    public static func uuid(kind: ContentKind, id: String) -> UUID {
        uuidV5(namespace: namespace, name: "\(kind.rawValue)/\(id)")
    }

    /// The UUIDv5 of a part of a document, `kind/id/part…` joined by `/`: a checklist's section
    /// (`section/<id>`), subsection (`subsection/<section id>/<id>`) or item (`item/<id>`), a deck's card (`card/<id>`).
    public static func uuid(kind: ContentKind, id: String, part: [String]) -> UUID {
        uuidV5(namespace: namespace, name: ([kind.rawValue, id] + part).joined(separator: "/"))
    }

    /// ``uuid(kind:id:part:)`` as bundles write it: lowercase, with hyphens.
    public static func uuidString(kind: ContentKind, id: String, part: [String] = []) -> String {
        lowercaseString(uuid(kind: kind, id: id, part: part))
    }

    /// `uuid.uuidString.lowercased()`, written byte by byte: Foundation formats each byte with
    /// `printf`, then lowercases the string, and a build writes a UUID for every note, item and card.
    public static func lowercaseString(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var out = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[out] = UInt8(ascii: "-")
                        out += 1
                    }
                    buffer[out] = ContentHash.digits[Int(byte >> 4)]
                    buffer[out + 1] = ContentHash.digits[Int(byte & 0x0F)]
                    out += 2
                }
                return out
            }
        }
    }

    /// A name-based UUID (RFC 4122, version 5, SHA-1).
    public static func uuidV5(namespace: UUID, name: String) -> UUID {
        var bytes = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        bytes.append(contentsOf: Array(name.utf8))
        var digest = Array(Insecure.SHA1.hash(data: bytes).prefix(16))
        digest[6] = (digest[6] & 0x0F) | 0x50
        digest[8] = (digest[8] & 0x3F) | 0x80
        let t = (
            digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
            digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]
        )
        return UUID(uuid: t)
    }
}
