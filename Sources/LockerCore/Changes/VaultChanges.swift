import Foundation

/// What changed in a vault since a commit, from `git`: what `locker check --changed-since`
/// reports problems in, and the vault as it was before, to tell which problems elsewhere the
/// changes caused.
public struct VaultChanges: Sendable {
    /// The commit the changes count from: where the history of the revision given meets
    /// `HEAD`'s (`git merge-base`), so that commits made on a base branch since a pull
    /// request left it are not its changes.
    public let base: String
    /// The vault's files added, modified or removed since ``base``, relative to the vault: by
    /// the commits since, staged, not staged, or new and not ignored. A renamed file counts as
    /// its new path and its old one.
    public let paths: Set<String>
    /// The vault's folder.
    let vault: URL
    /// The repository's top folder.
    let repository: String
    /// The vault's folder in the repository, `content/`; empty when the vault is the
    /// repository's top folder.
    let folder: String

    /// The changes to `vault` since `revision` (a commit, branch or tag, as `git` names them).
    /// Throws ``LockerError/usage(_:)`` when `git` is missing, the vault is not in a
    /// repository, or `revision` is not a commit of it.
    public static func since(_ revision: String, vault: URL) throws -> VaultChanges {
        func git(_ arguments: [String]) -> String? {
            Subprocess.output(of: ["git", "-C", vault.path] + arguments).map { String(decoding: $0, as: UTF8.self) }
        }
        // Two lines: the repository's top folder, and the vault's folder in it (empty at the top).
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: vault.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw LockerError.usage("no vault folder at \(vault.path)")
        }
        guard let place = git(["rev-parse", "--show-toplevel", "--show-prefix"]), place.hasSuffix("\n") else {
            throw LockerError.usage(
                Subprocess.output(of: ["git", "--version"]) == nil
                    ? "--changed-since needs git, which is not on PATH"
                    : "--changed-since: the vault \(vault.path) is not in a git repository "
                        + "(or git refuses it: `git -C \(vault.path) status` says why)")
        }
        // `--end-of-options`: a revision that starts with `-` is not taken for an option.
        guard
            let commit = git(["rev-parse", "--verify", "--quiet", "--end-of-options", revision + "^{commit}"])?
                .trimmingWhitespace
        else {
            throw LockerError.usage(
                "--changed-since: '\(revision)' is not a commit of the vault's repository "
                    + "(in a shallow clone, fetch it first, e.g. actions/checkout with fetch-depth: 0)")
        }
        guard let base = git(["merge-base", commit, "HEAD"])?.trimmingWhitespace else {
            // A shallow clone has the commit but not the history that joins it to HEAD.
            if git(["rev-parse", "--is-shallow-repository"])?.trimmingWhitespace == "true" {
                throw LockerError.usage(
                    "--changed-since: the clone is shallow, so git cannot find where '\(revision)' and HEAD meet: "
                        + "fetch the history (git fetch --unshallow, or actions/checkout with fetch-depth: 0)")
            }
            throw LockerError.usage("--changed-since: '\(revision)' and HEAD have no history in common")
        }
        // Relative to the vault and only within it (`--relative`, and `ls-files` from the vault's
        // folder); NUL-separated, so no path is quoted. Renames are left as a removal and an
        // addition: the old path is gone, the new one changed.
        guard
            let changed = git([
                "diff", "--name-only", "-z", "--no-renames", "--relative", "--no-ext-diff", "--no-textconv", base,
                "--",
            ]),
            let untracked = git(["ls-files", "-z", "--others", "--exclude-standard"])
        else {
            throw LockerError.io("--changed-since: git could not list the changes in \(vault.path) since \(base)")
        }
        let paths = (changed + untracked).split(separator: "\0").map(String.init)
        let lines = place.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        return VaultChanges(
            base: base, paths: Set(paths), vault: vault, repository: String(lines[0]),
            folder: lines.count > 1 ? String(lines[1]) : "")
    }

    /// The problems of `diagnostics` (the vault's now) that the changes are answerable for:
    /// every one in a file changed, and in the other files those that `baseline` (the vault's
    /// at ``base``) does not have: the same file, code, message, position and severity. An
    /// unchanged file's positions are what they were, so a problem that matches is an old one.
    public func reported(_ diagnostics: [Diagnostic], baseline: [Diagnostic]) -> [Diagnostic] {
        // A problem is the same one without its hint, which may name things the change added.
        func problem(_ diagnostic: Diagnostic) -> Diagnostic {
            var problem = diagnostic
            problem.hint = nil
            return problem
        }
        var before: [Diagnostic: Int] = [:]
        for diagnostic in baseline where !paths.contains(diagnostic.file) {
            before[problem(diagnostic), default: 0] += 1
        }
        return diagnostics.filter { diagnostic in
            guard !paths.contains(diagnostic.file) else { return true }
            let old = problem(diagnostic)
            guard let count = before[old], count > 0 else { return true }
            before[old] = count - 1
            return false
        }
    }
}
