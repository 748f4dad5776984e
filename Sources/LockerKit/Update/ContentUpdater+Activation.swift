import Foundation

/// Making a set active: the one rename, what is recorded around it, what is collected after, and
/// the seed.
extension ContentUpdater {
    /// Makes `bytes` the active manifest in one rename, the one it replaces kept as the previous,
    /// once the files it lists that the previous did not (`fresh` of `needed`) are durable.
    func activate(
        _ bytes: Data, replacing previous: Data?, files needed: [Manifest.File], besides active: Manifest?
    ) throws(UpdateError) {
        let kept = Set((active?.files ?? []).map { "\($0.path)\t\($0.sha256)" })
        var fresh = needed.filter { !kept.contains("\($0.path)\t\($0.sha256)") }.map { files.url(of: $0.path) }
        fresh.append(files.url(of: ManifestSignature.path(forManifest: bytes)))
        files.syncFiles(fresh)
        if let previous { try files.place(previous, at: files.previousManifestURL, synced: true) }
        try files.place(bytes, at: files.manifestURL, synced: true)
        files.syncFolder(store)
    }

    /// Records, before a new set becomes active, locales that both the active set and the new
    /// one hold every file of: the locales the store keeps in common before and after a change
    /// (``ContentUpdater/activeBundle(in:)`` opens the store with the recorded locales, whichever
    /// manifest a crash leaves active). ``saveState(etag:manifestSHA256:)`` records the new ones
    /// after.
    func recordLocales(during state: ContentStore.State?) throws(UpdateError) {
        let before = state?.locales
        guard before != locales else { return }
        let common: [String]? =
            switch (before, locales) {
            case (nil, let after): after
            case (let before, nil): before
            case (let before?, let after?): before.filter(after.contains)
            }
        let record = ContentStore.State(etag: nil, manifestSHA256: "", locales: common)
        do {
            try files.place(try JSONEncoder().encode(record), at: files.stateURL, synced: true)
        } catch let error as UpdateError {
            throw error
        } catch {
            throw .store("\(files.stateURL.path): \(error)")
        }
    }

    func saveState(etag: String?, manifestSHA256: String) {
        let state = ContentStore.State(etag: etag, manifestSHA256: manifestSHA256, locales: locales)
        guard let data = try? JSONEncoder().encode(state) else { return }
        // After the new set is active: were it lost, the next update fetches the manifest whole,
        // and the store is opened with the locales ``recordLocales(during:)`` recorded.
        try? files.place(data, at: files.stateURL, synced: true)
    }

    /// Removes the files that neither the new set (`manifest`, of the locales kept) nor the
    /// previous one (of the locales it kept) lists: a locale no longer kept goes with the next
    /// update but one.
    func collect(_ manifest: Manifest, bytes: Data, previous: ManifestCopy?, previousLocales: [String]?) {
        var keep = Set(manifest.files(forLocales: locales).map(\.path))
        keep.insert(ManifestSignature.path(forManifest: bytes))
        if let previous, let old = previous.manifest {
            for file in old.files(forLocales: previousLocales) { keep.insert(file.path) }
            keep.insert(ManifestSignature.path(forManifest: previous.bytes))
        }
        files.removeFiles(notIn: keep)
    }

    // MARK: - The seed

    /// Installs the seed when the store has no set or an older one; the versions it went from
    /// and to, or nil when it did not.
    func installSeedLocked() throws(UpdateError) -> (from: Int?, to: Int?)? {
        guard let seed else { return nil }
        let seedFiles = ContentStore(folder: seed)
        guard let bytes = seedFiles.read(seedFiles.manifestURL) else { return nil }
        let active = activeSet()
        if let active {
            // Only the versions, before the seed's files are decoded, at every update.
            guard let seedVersion = ManifestCopy(bytes: bytes)?.header.version,
                let activeVersion = active.header.version, seedVersion > activeVersion
            else { return nil }
        }
        let manifest = try decode(bytes)
        let needed = try neededFiles(of: manifest)
        for file in needed {
            let target = files.url(of: file.path)
            if files.size(of: target) == file.size, let data = files.read(target),
                ContentHash.sha256Hex(data) == file.sha256.lowercased()
            {
                continue
            }
            guard let data = seedFiles.read(seedFiles.url(of: file.path)) else {
                throw .damagedFile(path: file.path, reason: "missing from the seed bundle")
            }
            guard data.count == file.size, ContentHash.sha256Hex(data) == file.sha256.lowercased() else {
                throw .damagedFile(path: file.path, reason: "the seed bundle's copy does not match its manifest")
            }
            try files.place(data, at: target)
        }
        let signaturePath = ManifestSignature.path(forManifest: bytes)
        if let signature = seedFiles.read(seedFiles.url(of: signaturePath)) {
            try files.place(signature, at: files.url(of: signaturePath))
        }
        let state = files.state()
        try recordLocales(during: state)
        try activate(bytes, replacing: active?.bytes, files: needed, besides: active?.manifest)
        saveState(etag: nil, manifestSHA256: ContentHash.sha256Hex(bytes))
        collect(manifest, bytes: bytes, previous: active, previousLocales: state?.locales)
        return (active?.header.version, manifest.version)
    }
}
