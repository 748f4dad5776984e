import Foundation
import LockerKit

/// Vault files that notes embed, read and hashed once each, whichever note asks first.
///
/// Shared by the notes being built in parallel, hence the lock.
final class AssetCatalog: @unchecked Sendable {
    /// A file copied into the bundle under its content hash.
    struct Asset: Sendable, Hashable {
        var vaultPath: String
        var bundlePath: String
        var data: Data
        var sha256: String
    }

    private let root: URL
    private let lock = NSLock()
    private var assets: [String: Result<Asset, LockerError>] = [:]
    /// Vault paths a document embeds: what bundles carry. The site also shows assets read for it
    /// alone, such as a landing page's image.
    private var bundled: Set<String> = []

    init(root: URL) { self.root = root }

    /// An asset only the site shows; it stays out of the bundle unless a document embeds it too.
    func siteAsset(for vaultPath: String) -> Result<Asset, LockerError> {
        asset(for: vaultPath, bundled: false)
    }

    /// The asset's path inside the bundle, reading and hashing it the first time.
    func asset(for vaultPath: String) -> Result<Asset, LockerError> {
        asset(for: vaultPath, bundled: true)
    }

    /// Looks the asset up as a document that embeds it would, and returns its content hash, or
    /// why it cannot be read: how a reused document counts its assets as used.
    func use(_ vaultPath: String, bundled: Bool) -> String {
        Self.state(of: asset(for: vaultPath, bundled: bundled))
    }

    /// An asset's content hash, or the error that kept it from being read.
    static func state(of result: Result<Asset, LockerError>) -> String {
        switch result {
        case .success(let asset): asset.sha256
        case .failure(let error): "error: \(error.description)"
        }
    }

    private func asset(for vaultPath: String, bundled: Bool) -> Result<Asset, LockerError> {
        lock.lock()
        if bundled { self.bundled.insert(vaultPath) }
        if let known = assets[vaultPath] {
            lock.unlock()
            return known
        }
        lock.unlock()
        let result: Result<Asset, LockerError>
        do {
            let data = Data(try FileBytes.contents(of: root.appendingPathComponent(vaultPath).path))
            let sha = ContentHash.sha256Hex(data)
            let fileExtension = VaultPath.fileExtension(of: vaultPath)
            let name = String(sha.prefix(16)) + (fileExtension.isEmpty ? "" : "." + fileExtension)
            result = .success(Asset(vaultPath: vaultPath, bundlePath: "assets/" + name, data: data, sha256: sha))
        } catch {
            result = .failure(.io("cannot read \(vaultPath): \(error)"))
        }
        lock.lock()
        assets[vaultPath] = result
        lock.unlock()
        return result
    }

    /// Every asset a document embeds, read successfully, by bundle path: what the bundle carries.
    var all: [Asset] {
        lock.lock()
        defer { lock.unlock() }
        return Self.distinct(assets.filter { bundled.contains($0.key) }.values.compactMap { try? $0.get() })
    }

    /// Every vault file read so far, with its content hash or why it could not be read.
    var states: [(path: String, sha256: String)] {
        lock.lock()
        defer { lock.unlock() }
        return assets.map { ($0.key, Self.state(of: $0.value)) }
    }

    /// Every asset read successfully, for documents or for the site alone: what the site carries.
    var site: [Asset] {
        lock.lock()
        defer { lock.unlock() }
        return Self.distinct(assets.values.compactMap { try? $0.get() })
    }

    /// One asset per bundle path, sorted by it: identical bytes at several vault paths share one
    /// hashed name, and are written once.
    private static func distinct(_ assets: [Asset]) -> [Asset] {
        var seen: Set<String> = []
        return assets.sorted { $0.bundlePath < $1.bundlePath }.filter { seen.insert($0.bundlePath).inserted }
    }
}
