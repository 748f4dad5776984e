import Foundation

/// What an update checks of a manifest before it downloads anything: its shape, its signature,
/// its expiry and its version.
extension ContentUpdater {
    func decode(_ bytes: Data) throws(UpdateError) -> Manifest {
        let manifest: Manifest
        do {
            manifest = try ContentBundle.decodeManifest(bytes)
        } catch {
            if case .unsupportedSchema(_, let version) = error { throw .unsupportedSchema(version: version) }
            throw .invalidManifest(error.description)
        }
        var seen: [String: String] = [:]
        for file in manifest.files {
            guard ContentStore.isWritable(file.path) else {
                throw .invalidManifest("\(file.path): not a path a bundle may list")
            }
            guard (0...Self.fileLimit).contains(file.size) else {
                throw .invalidManifest("\(file.path): a size of \(file.size) bytes")
            }
            if let other = seen.updateValue(file.sha256, forKey: file.path), other != file.sha256 {
                throw .invalidManifest("\(file.path) is listed twice with different hashes")
            }
        }
        return manifest
    }

    /// The fields of a manifest checked before its files are decoded: its schema major first,
    /// so that a future major is reported as such.
    static func header(of bytes: Data) throws(UpdateError) -> ManifestCopy.Header {
        struct Version: Decodable { var schemaVersion: String }
        guard let version = try? JSONDecoder().decode(Version.self, from: bytes).schemaVersion else {
            throw .invalidManifest("manifest.json: not a manifest (no schemaVersion)")
        }
        guard version.split(separator: ".", maxSplits: 1).first.flatMap({ Int($0) }) == BundleSchema.major else {
            throw .unsupportedSchema(version: version)
        }
        do {
            return try JSONDecoder().decode(ManifestCopy.Header.self, from: bytes)
        } catch {
            throw .invalidManifest("manifest.json: \(error)")
        }
    }

    /// Fetches and checks the manifest's signature file; nil for an unsigned manifest accepted
    /// under ``allowUnsigned``, which never replaces a signed set.
    func verifySignature(
        of header: ManifestCopy.Header, bytes: Data, replacing active: ManifestCopy?
    ) async throws(UpdateError) -> ManifestSignature? {
        let signed = !(header.signedBy ?? []).isEmpty
        if !signed {
            guard allowUnsigned else {
                throw .signature(
                    "the manifest is not signed (signedBy is absent); this app accepts signed manifests only")
            }
            if let active, !active.isUnsigned {
                throw .signature("an unsigned manifest does not replace the signed one the store holds")
            }
            return nil
        }
        let path = ManifestSignature.path(forManifest: bytes)
        let url = manifestURL.deletingLastPathComponent().appendingPathComponent(path)
        let response = try await fetch(url, limit: Self.signatureLimit)
        guard response.status == 200 else {
            if response.status == 404 { throw .signature("\(path): no signature file for this manifest") }
            throw .httpStatus(url: url.absoluteString, status: response.status)
        }
        let signature: ManifestSignature
        do {
            signature = try ManifestSignature(data: response.body)
        } catch {
            throw .signature("\(path): \(error)")
        }
        guard signature.signatures.count <= Self.signatureCount else {
            throw .signature("\(path): \(signature.signatures.count) signatures, more than \(Self.signatureCount)")
        }
        if trustedKeys.isEmpty, allowUnsigned { return signature }
        do {
            _ = try signature.verify(manifest: bytes, naming: header.signedBy, trusting: trustedKeys)
        } catch {
            throw .signature(error.description)
        }
        guard header.version != nil, header.expires != nil else {
            throw .invalidManifest("a signed manifest without a version and an expiry time")
        }
        return signature
    }

    /// Whether the store's signature file of `active` holds a valid signature by a trusted key
    /// that the manifest names.
    func isTrusted(_ active: ManifestCopy) -> Bool {
        guard let data = files.read(files.url(of: ManifestSignature.path(forManifest: active.bytes))),
            let signature = try? ManifestSignature(data: data), signature.signatures.count <= Self.signatureCount
        else { return false }
        return (try? signature.verify(manifest: active.bytes, naming: active.header.signedBy, trusting: trustedKeys))
            != nil
    }

    /// Whether `expires` has passed; a time that does not read is not expired here, but
    /// ``checkExpiry(_:)`` refuses it.
    func isExpired(_ expires: String?) -> Bool {
        guard let date = expires.flatMap(Self.date) else { return false }
        return now() >= date
    }

    func checkExpiry(_ expires: String?) throws(UpdateError) {
        guard let expires else { return }
        guard let date = Self.date(expires) else {
            throw .invalidManifest("expires: '\(expires)' is not an RFC 3339 time")
        }
        if now() >= date { throw .expired(expires: expires) }
    }

    /// A version higher than the active one's passes, and so does an equal one with the same
    /// files (signed again, by another key, or wanted for other locales): nothing older comes back.
    func checkVersion(of manifest: Manifest, against active: ManifestCopy.Header) throws(UpdateError) {
        guard let activeVersion = active.version else { return }
        guard let version = manifest.version else { throw .rollback(active: activeVersion, offered: nil) }
        if version > activeVersion { return }
        if version == activeVersion, manifest.contentVersion == active.contentVersion { return }
        throw .rollback(active: activeVersion, offered: version)
    }
}
