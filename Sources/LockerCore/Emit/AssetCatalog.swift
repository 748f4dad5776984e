import Crypto
import Foundation

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

    init(root: URL) { self.root = root }

    /// The asset's path inside the bundle, reading and hashing it the first time.
    func asset(for vaultPath: String) -> Result<Asset, LockerError> {
        lock.lock()
        if let known = assets[vaultPath] {
            lock.unlock()
            return known
        }
        lock.unlock()
        let result: Result<Asset, LockerError>
        do {
            let data = try Data(contentsOf: root.appendingPathComponent(vaultPath))
            let sha = SHA256.hash(data: data).hexString
            let fileExtension = VaultPath.fileExtension(of: vaultPath)
            let name = String(sha.prefix(16)) + (fileExtension.isEmpty ? "" : "." + fileExtension)
            result = .success(Asset(vaultPath: vaultPath, bundlePath: "assets/" + name, data: data, sha256: sha))
        } catch {
            result = .failure(.io("cannot read \(vaultPath): \(error.localizedDescription)"))
        }
        lock.lock()
        assets[vaultPath] = result
        lock.unlock()
        return result
    }

    /// Every asset read successfully, by bundle path.
    var all: [Asset] {
        lock.lock()
        defer { lock.unlock() }
        return assets.values.compactMap { try? $0.get() }.sorted { $0.bundlePath < $1.bundlePath }
    }
}

extension Sequence where Element == UInt8 {
    /// Lowercase hexadecimal.
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for byte in self {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension SHA256.Digest {
    var hexString: String { Array(self).hexString }
}
