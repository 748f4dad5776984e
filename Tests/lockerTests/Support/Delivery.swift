import Foundation
import LockerKit
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One delivery test's world: nginx serving a folder the test publishes builds into, as a host
/// gets uploads; the fault proxy in front of it when the test asks for faults; and a store
/// folder alone in a parent folder, so that the test can tell nothing was written beside it.
/// ``close()`` stops the servers and removes everything.
final class Delivery: @unchecked Sendable {
    /// Everything of this test: `site/` (what nginx serves), `nginx/`, `proxy/`, `parent/store/`.
    let folder: URL
    /// The folder nginx serves: a build's output folder, as published.
    let site: URL
    /// The store's parent: it holds the store and a file of its own, and nothing else is written
    /// into it (``outsideStore()``).
    let parent: URL
    /// The folder the updater or `locker sync` keeps the bundle in.
    let store: URL
    let nginx: Nginx
    private var faultProxy: FaultProxy?
    private var publications = 0

    /// Publishes `built` and starts nginx serving it.
    init(publishing built: DeliveryBuilds.Built) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("locker-delivery-\(UUID().uuidString)")
        site = folder.appendingPathComponent("site")
        parent = folder.appendingPathComponent("parent")
        store = parent.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        try Data("not the store's\n".utf8).write(to: parent.appendingPathComponent("neighbour.txt"))
        do {
            try Self.publish(built, into: site, stamp: 0)
            nginx = try Nginx(serving: site, in: folder.appendingPathComponent("nginx"))
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        publications = 1
    }

    /// Stops the servers and removes the test's folders.
    func close() {
        faultProxy?.stop()
        nginx.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The fault proxy in front of nginx, started the first time it is asked for.
    func proxy() throws -> FaultProxy {
        if let faultProxy { return faultProxy }
        let started = try FaultProxy(upstreamPort: nginx.port, in: folder.appendingPathComponent("proxy"))
        faultProxy = started
        return started
    }

    /// Sets the fault proxy's rules (starting it the first time) and returns its manifest URL:
    /// where an update meets the faults.
    func proxied(_ rules: [FaultProxy.Rule]) throws -> URL {
        let proxy = try proxy()
        try proxy.set(rules)
        return proxy.manifestURL
    }

    /// Publishes `built` over what the site holds, in a host's order: the content-addressed files,
    /// then the signature, then `manifest.json` in one rename. Old files stay, as on a CDN.
    func publish(_ built: DeliveryBuilds.Built) throws {
        try Self.publish(built, into: site, stamp: publications)
        publications += 1
    }

    private static func publish(_ built: DeliveryBuilds.Built, into site: URL, stamp: Int) throws {
        let manager = FileManager.default
        let bundle = site.appendingPathComponent("bundles/v1")
        try manager.createDirectory(at: bundle, withIntermediateDirectories: true)
        try copy(built.output.appendingPathComponent("_headers"), to: site.appendingPathComponent("_headers"))
        for path in built.paths.sorted() {
            try copy(built.bundle.appendingPathComponent(path), to: bundle.appendingPathComponent(path))
        }
        let signature = built.bundle.appendingPathComponent(built.signaturePath)
        if manager.fileExists(atPath: signature.path) {
            try copy(signature, to: bundle.appendingPathComponent(built.signaturePath))
        }
        let staged = bundle.appendingPathComponent(".manifest.json.new")
        try built.manifestBytes.write(to: staged)
        // nginx's ETag is the file's modification time and size: two manifests of one size
        // published in the same second would share it, and the second would get 304. Each
        // publication gets its own time.
        try manager.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(stamp))], ofItemAtPath: staged.path)
        try move(staged, to: bundle.appendingPathComponent("manifest.json"))
    }

    private static func copy(_ source: URL, to target: URL) throws {
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let staged = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).new")
        try? FileManager.default.removeItem(at: staged)
        try FileManager.default.copyItem(at: source, to: staged)
        try move(staged, to: target)
    }

    /// Renames in one step, as a host replaces a file.
    private static func move(_ source: URL, to target: URL) throws {
        guard rename(source.path, target.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
    }

    /// Changes one byte of a published file, keeping its size: what a tampering host serves.
    func alter(_ path: String) throws {
        let url = site.appendingPathComponent("bundles/v1").appendingPathComponent(path)
        var bytes = try Data(contentsOf: url)
        let middle = bytes.count / 2
        bytes[middle] ^= 0x20
        try bytes.write(to: url)
    }

    // MARK: - What the store holds

    /// Every file and folder under ``parent`` but the store, with its size and modification time.
    func outsideStore() throws -> [String] {
        let manager = FileManager.default
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let walker = manager.enumerator(at: parent, includingPropertiesForKeys: keys) else { return [] }
        var entries: [String] = []
        let root = parent.standardizedFileURL.path + "/"
        for case let url as URL in walker {
            let path = String(url.standardizedFileURL.path.dropFirst(root.count))
            if path == "store" {
                walker.skipDescendants()
                continue
            }
            let values = try url.resourceValues(forKeys: Set(keys))
            entries.append(
                "\(path) \(values.fileSize ?? -1) \(values.contentModificationDate?.timeIntervalSince1970 ?? 0)")
        }
        return entries.sorted()
    }

    /// The paths of `built` (of `locales`' files) the store does not hold with the right bytes:
    /// what an update to `built` still has to download.
    func missing(of built: DeliveryBuilds.Built, locales: [String]? = nil) -> Set<String> {
        Set(
            built.manifest.files(forLocales: locales).filter { file in
                guard let data = FileManager.default.contents(atPath: store.appendingPathComponent(file.path).path)
                else { return true }
                return data.count != file.size || ContentHash.sha256Hex(data) != file.sha256
            }.map(\.path))
    }

    /// The content files the store holds: every file but the manifest, the signatures and the
    /// updater's own folder.
    func storedFiles() throws -> Set<String> {
        guard let walker = FileManager.default.enumerator(at: store, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var paths = Set<String>()
        let root = store.standardizedFileURL.path + "/"
        for case let url as URL in walker {
            let path = String(url.standardizedFileURL.path.dropFirst(root.count))
            if path == ".locker-sync" || path == ManifestSignature.folder {
                walker.skipDescendants()
                continue
            }
            if try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true, path != "manifest.json" {
                paths.insert(path)
            }
        }
        return paths
    }

    /// Checks that a failed update or sync changed nothing: `before` still active (nil: no set)
    /// and verifying, and nothing written beside the store, which held `outside` before.
    func expectUnchanged(
        _ before: DeliveryBuilds.Built?, outside: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        expectActive(before, sourceLocation: sourceLocation)
        #expect(try outsideStore() == outside, "nothing is written beside the store", sourceLocation: sourceLocation)
    }

    /// Checks what an update or sync to `new` downloaded, given the files of `new` the store was
    /// `missing` and the count of nginx's requests (`mark`) before it: the manifest, its
    /// signature and exactly those files; then that `new` is active and nothing was written
    /// beside the store, which held `outside` before.
    func expectDownloaded(
        _ missing: Set<String>, of new: DeliveryBuilds.Built, since mark: Int, outside: [String],
        _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(
            try nginx.requests().dropFirst(mark).map(\.bundlePath).sorted()
                == (["manifest.json", new.signaturePath] + missing).sorted(), "\(context)",
            sourceLocation: sourceLocation)
        expectActive(new, sourceLocation: sourceLocation)
        #expect(try outsideStore() == outside, "nothing is written beside the store", sourceLocation: sourceLocation)
    }

    /// Checks that the store's active set opens and verifies (every file of its locales in
    /// place, with its size and hash), and is `built`'s; nil, that no set is active.
    func expectActive(
        _ built: DeliveryBuilds.Built?, locales: [String]? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let bundle = try ContentUpdater.activeBundle(in: store)
            guard let built else {
                #expect(bundle == nil, "no set should be active", sourceLocation: sourceLocation)
                return
            }
            guard let bundle else {
                Issue.record("no active set; expected \(built)", sourceLocation: sourceLocation)
                return
            }
            #expect(
                bundle.manifest.contentVersion == built.manifest.contentVersion
                    && bundle.manifest.version == built.version,
                "the active set is version \(bundle.manifest.version.map(String.init) ?? "none"); expected \(built)",
                sourceLocation: sourceLocation)
            let bytes = FileManager.default.contents(atPath: store.appendingPathComponent("manifest.json").path)
            #expect(
                bytes == built.manifestBytes, "the active manifest is \(built)'s, byte for byte",
                sourceLocation: sourceLocation)
            #expect(bundle.openedLocales == locales, sourceLocation: sourceLocation)
        } catch {
            Issue.record("the active set does not verify: \(error)", sourceLocation: sourceLocation)
        }
    }
}
