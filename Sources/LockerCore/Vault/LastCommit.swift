import Foundation

/// When the vault's last commit was made: what a build dates its content by without
/// `SOURCE_DATE_EPOCH` (`git log -1 --format=%ct -- .` in the vault's folder).
enum LastCommit {
    /// The commit time of the last commit that touched `folder`, in seconds since 1970; nil
    /// outside a repository, without `git`, or before the first commit.
    static func time(of folder: URL) -> Int? {
        guard let output = Subprocess.output(of: ["git", "-C", folder.path, "log", "-1", "--format=%ct", "--", "."])
        else {
            return nil
        }
        return Int(String(decoding: output, as: UTF8.self).trimmingWhitespace)
    }
}
