import Foundation

/// Helpers for vault-relative paths: `/`-separated, NFC-normalised, no leading slash.
enum VaultPath {
    /// NFC, forward slashes: how every path and link target is compared.
    static func normalize(_ path: String) -> String {
        // ASCII without backslashes, the usual case, is already normal.
        if path.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "\\") }) { return path }
        return path.replacingOccurrences(of: "\\", with: "/").precomposedStringWithCanonicalMapping
    }

    /// The folder part of a path, `""` for the vault root.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    /// The last component.
    static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The extension, lowercased, without the dot; `""` when there is none.
    static func fileExtension(of path: String) -> String {
        let name = fileName(of: path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The path without its extension.
    static func removingExtension(_ path: String) -> String {
        let name = fileName(of: path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path }
        let stem = String(name[..<dot])
        let folder = folder(of: path)
        return folder.isEmpty ? stem : folder + "/" + stem
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
