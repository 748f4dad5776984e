import Foundation

/// A file found in the vault.
struct VaultFile: Sendable, Hashable {
    /// Relative to the vault, `/`-separated, NFC.
    var path: String
    /// Where it is on disk.
    var url: URL
}

/// What a scan of the vault found: the notes, the other files links may point at, and problems.
struct VaultListing: Sendable {
    var notes: [VaultFile] = []
    var assets: [VaultFile] = []
    var diagnostics: [Diagnostic] = []
}

/// Walks a vault folder.
///
/// Hidden files and folders (`.obsidian/`, `.git/`, `.trash/`) are skipped; so is the output
/// folder when it lies inside the vault, and anything `exclude` names. Symbolic links are followed
/// only when they stay inside the vault.
struct VaultScanner: Sendable {
    var root: URL
    var config: VaultConfig
    /// Folders to skip, as absolute standardized paths (the output folder).
    var skipping: [String] = []

    func scan() throws -> VaultListing {
        let fileManager = FileManager.default
        let rootPath = root.resolvingSymlinksInPath().standardizedFileURL.path
        var listing = VaultListing()
        let keys: [URLResourceKey] = [.isDirectoryKey, .isSymbolicLinkKey, .isRegularFileKey]
        guard
            let enumerator = fileManager.enumerator(
                at: root, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles, .skipsPackageDescendants])
        else {
            throw LockerError.io("cannot read the vault folder \(root.path)")
        }
        let skipped = Set(skipping)
        for case let url as URL in enumerator {
            let values = try? url.resourceValues(forKeys: Set(keys))
            let absolute = url.standardizedFileURL.path
            guard let relative = Self.relativePath(absolute, root: root.standardizedFileURL.path) else { continue }
            let path = VaultPath.normalize(relative)
            if values?.isDirectory == true {
                if skipped.contains(absolute) || config.isExcluded(path) { enumerator.skipDescendants() }
                continue
            }
            if config.isExcluded(path) || path == VaultConfig.fileName { continue }
            if values?.isSymbolicLink == true {
                let target = url.resolvingSymlinksInPath().standardizedFileURL.path
                let inside = target == rootPath || target.hasPrefix(rootPath + "/")
                guard inside else {
                    listing.diagnostics.append(
                        Diagnostic(.warning, .fileOutsideVault, "symbolic link leads outside the vault; not read", file: path))
                    continue
                }
                var isDirectory: ObjCBool = false
                guard fileManager.fileExists(atPath: target, isDirectory: &isDirectory), !isDirectory.boolValue else {
                    continue
                }
            } else if values?.isRegularFile != true {
                continue
            }
            let file = VaultFile(path: path, url: url)
            if VaultPath.fileExtension(of: path) == "md" {
                listing.notes.append(file)
            } else {
                listing.assets.append(file)
            }
        }
        listing.notes.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        listing.assets.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return listing
    }

    static func relativePath(_ path: String, root: String) -> String? {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return String(path.dropFirst(prefix.count))
    }
}
