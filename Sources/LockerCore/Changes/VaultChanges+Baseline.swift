import Foundation

extension VaultChanges {
    /// The problems of the vault as it was at ``base``, checked as `compiler` checks it now:
    /// what ``reported(_:baseline:)`` compares the vault's problems with. None when the vault's
    /// folder did not exist then.
    ///
    /// The vault's folder at ``base`` is unpacked into a temporary folder (`git archive` of its
    /// tree, then `tar`), which is removed after the check.
    public func baseline(checkedAs compiler: Compiler) throws -> [Diagnostic] {
        // The vault's tree at the base: its files at the archive's top.
        let tree = folder.isEmpty ? base + "^{tree}" : base + ":" + String(folder.dropLast())
        let kind = Subprocess.output(of: ["git", "-C", repository, "cat-file", "-t", tree])
        guard let kind, String(decoding: kind, as: UTF8.self).trimmingWhitespace == "tree" else { return [] }

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locker-base-\(UUID().uuidString)", isDirectory: true)
        let archive = scratch.appendingPathComponent("vault.tar")
        let unpacked = scratch.appendingPathComponent("vault", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
        } catch {
            throw LockerError.io("--changed-since: cannot make a temporary folder: \(error.localizedDescription)")
        }
        guard
            Subprocess.output(of: ["git", "-C", repository, "archive", "--format=tar", "-o", archive.path, tree])
                != nil,
            Subprocess.output(of: ["tar", "-x", "-f", archive.path, "-C", unpacked.path]) != nil
        else {
            throw LockerError.io("--changed-since: cannot unpack the vault as it was at \(base) into \(scratch.path)")
        }
        let before = Compiler(
            vault: unpacked, strict: compiler.strict, environment: compiler.environment, emit: false)
        do {
            return try before.compile().diagnostics
        } catch let error as LockerError {
            throw LockerError.io("--changed-since: the vault as it was at \(base): \(error)")
        }
    }
}
