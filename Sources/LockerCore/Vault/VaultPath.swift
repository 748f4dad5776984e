import Foundation

/// Helpers for vault-relative paths: `/`-separated, NFC-normalised, no leading slash.
enum VaultPath {
    /// NFC, forward slashes: how every path and link target is compared.
    static func normalize(_ path: String) -> String {
        // ASCII without backslashes, the usual case, is already normal.
        if path.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "\\") }) { return path }
        return path.replacingOccurrences(of: "\\", with: "/").precomposedStringWithCanonicalMapping
    }

    // Paths are split at their bytes, as the file system splits them: `/` and `.` are ASCII, no
    // byte of another character's UTF-8 is one of them, and a combining mark after one does not
    // hide it (as it would from a search by `Character`).

    /// The folder part of a path, `""` for the vault root.
    static func folder(of path: String) -> String {
        let bytes = path.utf8
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(decoding: bytes[..<slash], as: UTF8.self)
    }

    /// The last component.
    static func fileName(of path: String) -> String {
        let bytes = path.utf8
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(decoding: bytes[bytes.index(after: slash)...], as: UTF8.self)
    }

    /// Where a path's last component starts in its bytes, and where that component's extension
    /// dot is (its last dot, not its first byte; nil when there is none). The one place this rule
    /// is written, for strings and for the link tables' bytes (``VaultIndex``).
    static func nameAndExtensionDot<Bytes: BidirectionalCollection<UInt8>>(
        in bytes: Bytes
    ) -> (name: Bytes.Index, dot: Bytes.Index?) {
        let nameStart = bytes.lastIndex(of: UInt8(ascii: "/")).map { bytes.index(after: $0) } ?? bytes.startIndex
        guard let dot = bytes[nameStart...].lastIndex(of: UInt8(ascii: ".")), dot != nameStart else {
            return (nameStart, nil)
        }
        return (nameStart, dot)
    }

    /// Where the extension's dot is in `path`: in its last component, not its first byte.
    private static func extensionDot(in path: String) -> String.Index? {
        nameAndExtensionDot(in: path.utf8).dot
    }

    /// The extension, lowercased, without the dot; `""` when there is none.
    static func fileExtension(of path: String) -> String {
        guard let dot = extensionDot(in: path) else { return "" }
        let ext = String(decoding: path.utf8[path.utf8.index(after: dot)...], as: UTF8.self)
        return ext.asciiLowercased ?? ext.lowercased()
    }

    /// Whether the path names a note: its extension is `md`, in any case. The same answer as
    /// `fileExtension(of:) == "md"` without making a string (no other character lowercases to
    /// an ASCII `m` or `d`).
    static func isNote(_ path: String) -> Bool {
        guard let dot = extensionDot(in: path) else { return false }
        let ext = path.utf8[path.utf8.index(after: dot)...]
        return ext.count == 2 && ext.first.map { $0 | 0x20 } == UInt8(ascii: "m")
            && ext.last.map { $0 | 0x20 } == UInt8(ascii: "d")
    }

    /// The path without its extension.
    static func removingExtension(_ path: String) -> String {
        guard let dot = extensionDot(in: path) else { return path }
        return String(decoding: path.utf8[..<dot], as: UTF8.self)
    }

    /// ``removingExtension(_:)`` as a part of `path`, sharing its storage.
    static func removingExtension(from path: String) -> Substring {
        guard let dot = extensionDot(in: path) else { return path[...] }
        return Substring(path.utf8[..<dot])
    }

    /// ``fileName(of:)`` as a part of `path`, sharing its storage.
    static func fileName(in path: Substring) -> Substring {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return Substring(path.utf8[path.utf8.index(after: slash)...])
    }

    /// A note's path without its extension and without a `.<locale>` suffix naming one of
    /// `locales` (`guides/anchoring.en.md` → `guides/anchoring`, `en`): what its translations
    /// share. The one place the suffix rule is written.
    static func basePath(of path: String, locales: [String]) -> (base: String, suffixLocale: String?) {
        let withoutExtension = removingExtension(path)
        let name = fileName(of: withoutExtension)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (withoutExtension, nil) }
        let suffix = String(name[name.index(after: dot)...])
        guard locales.contains(suffix) else { return (withoutExtension, nil) }
        return (removingExtension(withoutExtension), suffix)
    }

    /// Joins a folder and a relative path, resolving `.` and `..`. Nil when it would leave the vault.
    static func resolve(_ relative: String, from folder: String) -> String? {
        var components = relative.hasPrefix("/") ? [] : folder.split(separator: "/").map(String.init)
        for part in relative.split(separator: "/") {
            switch part {
            case ".": continue
            case "..":
                if components.isEmpty { return nil }
                components.removeLast()
            default: components.append(String(part))
            }
        }
        return components.joined(separator: "/")
    }
}

extension String {
    /// The string without leading and trailing `/`.
    var trimmingSlashes: String {
        var result = Substring(self)
        while result.hasPrefix("/") { result = result.dropFirst() }
        while result.hasSuffix("/") { result = result.dropLast() }
        return String(result)
    }
}
