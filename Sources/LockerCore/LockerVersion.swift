import LockerKit

/// Locker's release: what `locker --version` prints, what the CI workflow of `locker init`
/// installs, and what tools that read Locker's output (SARIF) are told made it.
public enum LockerVersion {
    /// The release, as tagged in Locker's repository (`v` followed by it); bumped at each release.
    public static let current = "0.9.0"

    /// `locker 0.9.0 (bundle schema 1.4)`: the release, and the bundle schema it writes.
    public static var description: String { "locker \(current) (bundle schema \(BundleSchema.version))" }
}
