import Foundation
import LockerKit

/// Vault files that notes embed, read and hashed once each, whichever note asks first.
///
/// A `.drawing` description is embedded as the SVG it draws, one per language of the notes that
/// embed it (its title is its caption in their language), under the key ``drawingKey(_:locale:)``;
/// its problems are reported once, whatever embeds it (``drawingDiagnostics``).
///
/// Shared by the notes being built in parallel, hence the lock.
final class AssetCatalog: @unchecked Sendable {
    /// A file copied into the bundle under its content hash.
    struct Asset: Sendable, Hashable {
        var vaultPath: String
        var bundlePath: String
        var data: Data
        var sha256: String
        /// A drawing's caption, in the language asked for: the image's alt text.
        var caption: String? = nil
    }

    /// The extension of drawing descriptions (``DrawingParser``).
    static let drawingExtension = "drawing"

    /// The key a drawing's SVG is known by: its description's vault path and the language of its
    /// caption (`#` cannot be part of a file name in a vault).
    static func drawingKey(_ vaultPath: String, locale: String) -> String { vaultPath + "#" + locale }

    private let root: URL
    private let lock = NSLock()
    private var assets: [String: Result<Asset, LockerError>] = [:]
    /// Vault paths a document embeds: what bundles carry. The site also shows assets read for it
    /// alone, such as a landing page's image.
    private var bundled: Set<String> = []
    /// Each drawing description read, by vault path: what it draws and its problems.
    private var drawings: [String: (drawing: Drawing?, diagnostics: [Diagnostic])] = [:]

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
        if let hash = vaultPath.firstIndex(of: "#") {
            result = drawing(String(vaultPath[..<hash]), locale: String(vaultPath[vaultPath.index(after: hash)...]))
        } else {
            result = file(vaultPath)
        }
        lock.lock()
        assets[vaultPath] = result
        lock.unlock()
        return result
    }

    /// A file of the vault, copied as it is.
    private func file(_ vaultPath: String) -> Result<Asset, LockerError> {
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
        return result
    }

    /// A drawing description's SVG, captioned in `locale`'s language; the description is read
    /// and checked once for every language.
    private func drawing(_ vaultPath: String, locale: String) -> Result<Asset, LockerError> {
        lock.lock()
        var parsed = drawings[vaultPath]
        lock.unlock()
        if parsed == nil {
            do {
                let data = Data(try FileBytes.contents(of: root.appendingPathComponent(vaultPath).path))
                parsed = DrawingParser.parse(data, file: vaultPath)
            } catch {
                return .failure(.io("cannot read \(vaultPath): \(error)"))
            }
            lock.lock()
            if drawings[vaultPath] == nil { drawings[vaultPath] = parsed }
            lock.unlock()
        }
        guard let drawing = parsed?.drawing else {
            return .failure(.io("\(vaultPath) draws nothing: it has errors"))
        }
        let caption = drawing.caption(locale: locale)
        let data = Data(DrawingRenderer.svg(drawing, title: caption).utf8)
        let sha = ContentHash.sha256Hex(data)
        return .success(
            Asset(
                vaultPath: vaultPath, bundlePath: "assets/" + String(sha.prefix(16)) + ".svg", data: data,
                sha256: sha, caption: caption))
    }

    /// Whether the description at `vaultPath` was read and draws nothing, for problems reported
    /// in it (``drawingDiagnostics``) rather than where it is embedded.
    func drawingFailed(_ vaultPath: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return drawings[vaultPath].map { $0.drawing == nil } ?? false
    }

    /// The problems of every drawing description read, each reported once.
    var drawingDiagnostics: [Diagnostic] {
        lock.lock()
        defer { lock.unlock() }
        return drawings.values.flatMap(\.diagnostics).sorted(by: Diagnostic.ordered)
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
