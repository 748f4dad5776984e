import Foundation
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything a build's output depends on, hashed: every file of the vault (name, size,
/// modification time, inode), the settings that change what is written or printed, the content
/// date, the signing keys (by ID) and the manifest version given, and the `locker` binary itself. Equal fingerprints mean the previous output is this
/// build's output, so `locker build` can stop there.
///
/// Like `make` and `ninja`, it trusts modification times: an edit that keeps a file's size and
/// its nanosecond modification time goes unseen.
public struct BuildFingerprint: Sendable, Equatable, Codable {
    /// The SHA-256 of the stamps, in hex.
    public var hex: String
    /// The vault's folders the walk entered, absolute, the vault's own first: what a watcher
    /// watches (``files(in:skipping:)``). Neither saved nor compared.
    public internal(set) var folders: [String] = []
    /// The walk's files, which the build it was taken for lists instead of reading the vault's
    /// folders again (``VaultScanner/listing(of:)``). Neither saved nor compared.
    var walk: VaultWalk?

    private enum CodingKeys: String, CodingKey {
        case hex
    }

    public init(hex: String) { self.hex = hex }

    public static func == (lhs: BuildFingerprint, rhs: BuildFingerprint) -> Bool { lhs.hex == rhs.hex }

    /// The vault's files alone (names, sizes, modification times, inodes): what a watcher compares
    /// to see that something was saved, added, renamed or removed. The walk stays with it, for
    /// the build the watcher starts when it changed.
    public static func files(in vault: URL, skipping: [URL] = []) -> BuildFingerprint {
        let walk = VaultScanner.walk(root: vault, skipping: Set(skipping.map { $0.standardizedFileURL.path }))
        var fingerprint = BuildFingerprint(hex: walk.recordSHA256())
        fingerprint.folders = walk.folders
        fingerprint.walk = walk
        return fingerprint
    }

    /// The running `locker` program, by path, size, inode and modification time: a new build of
    /// it may write other bytes. Not by its change time, which a hard link to it changes (a
    /// profiler's cache of binaries makes one) without changing what it writes.
    static var program: String? {
        guard let binary = executablePath else { return nil }
        var status = stat()
        guard stat(binary, &status) == 0 else { return nil }
        return "binary \(binary) \(VaultScanner.contentStamp(of: status))"
    }

    /// The running program's path. On Linux from `/proc/self/exe`: `Bundle.main` lists the
    /// program's folder first (`/usr/local/bin`, say), which took longer than the rest of a
    /// no-change rebuild's set-up.
    static let executablePath: String? = {
        #if os(Linux)
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            if length > 0 {
                return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        #endif
        return Bundle.main.executablePath
    }()

    /// The walk of the vault's files stays with it (``walk``), with their stamps, for the build
    /// it is taken for.
    ///
    /// - Parameters:
    ///   - compiler: the build's vault, output folder (skipped) and environment.
    ///   - settings: everything else the output or the report depends on (options, the output path).
    public init(compiler: Compiler, settings: [String]) {
        // The content date (`git`, without `SOURCE_DATE_EPOCH`) is worked out while the vault
        // is walked.
        let skipping = Set(compiler.skipping.map { $0.standardizedFileURL.path })
        let (date, walk) = Compiler.concurrently {
            compiler.generatedAt()
        } and: {
            VaultScanner.walk(root: compiler.vault, skipping: skipping)
        }
        var lines = ["locker-build-fingerprint 1"]
        lines += settings
        lines.append("date \(date ?? "-")")
        // A key added, removed or replaced changes the manifest's `signedBy` and the signatures.
        lines.append("signed-by \(BundleWriter.signers(compiler.signingKeys).joined(separator: " "))")
        lines.append("bundle-version \(compiler.bundleVersion.map(String.init) ?? "-")")
        if let program = Self.program { lines.append(program) }
        self.walk = walk
        // The settings as lines, a zero byte (which no line holds), then the vault's files.
        hex = walk.recordSHA256(after: Array(lines.joined(separator: "\n").utf8) + [0])
    }
}

/// What `locker build` keeps in its output's marker to recognise an unchanged vault: the inputs'
/// fingerprint and what the build printed.
public struct BuildRecord: Sendable, Equatable, Codable {
    public var fingerprint: BuildFingerprint
    /// The report on standard error and the summary on standard output.
    public var report: String
    public var summary: String

    public init(fingerprint: BuildFingerprint, report: String, summary: String) {
        self.fingerprint = fingerprint
        self.report = report
        self.summary = summary
    }
}
