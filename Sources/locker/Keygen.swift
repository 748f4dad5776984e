import ArgumentParser
import Foundation
import LockerCore
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `locker keygen`: make a key pair that signs manifests.
struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make an Ed25519 key pair to sign manifests with.",
        discussion: """
            Writes <out>/locker-signing.key, the private key (readable by you alone: keep it \
            secret, out of every repository; in CI, give its text as the secret \
            LOCKER_SIGNING_KEY), and <out>/locker-signing.pub, the public key, which apps embed \
            to trust the manifests it signs, and prints the public key. Each is the base64 text \
            of the key's 32 bytes.

            Refuses to overwrite either file, and to write into a vault (a folder holding \
            locker.yml, or below one) or a build's output folder, whose files get published.

            Examples:
              locker keygen --out ~/.config/locker
              locker build --sign-key ~/.config/locker/locker-signing.key
            """)

    @Option(help: "The folder to write the two files into; made when missing.", completion: .directory)
    var out: String

    /// The private key's file name.
    static let privateFile = "locker-signing.key"
    /// The public key's file name.
    static let publicFile = "locker-signing.pub"

    func run() throws {
        let folder = URL(fileURLWithPath: Self.resolved(URL(fileURLWithPath: out).standardizedFileURL.path))
        let ancestors = Self.ancestors(of: folder.path)
        if let vault = ancestors.first(where: { Self.exists($0 + "/locker.yml") }) {
            throw LockerError.usage(
                "\(out) is inside the vault \(vault) (it holds locker.yml): keys must not be published with the "
                    + "content; write them elsewhere")
        }
        if let build = ancestors.first(where: { Self.exists($0 + "/.locker-build") }) {
            throw LockerError.usage(
                "\(out) is inside the build output \(build) (it holds .locker-build): keys must not be published; "
                    + "write them elsewhere")
        }
        let display = out.hasSuffix("/") ? String(out.dropLast()) : out
        let privatePath = folder.path + "/" + Self.privateFile
        let publicPath = folder.path + "/" + Self.publicFile
        for (path, name) in [(privatePath, Self.privateFile), (publicPath, Self.publicFile)] where Self.exists(path) {
            throw LockerError.usage(
                "\(display)/\(name) already exists: remove it first, or choose another --out "
                    + "(apps that trust a key need an update to trust another)")
        }
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw LockerError.io("cannot make the folder \(out): \(error.localizedDescription)")
        }
        let key = try SigningKey.generate()
        let publicText = key.publicKey.text + "\n"
        // Made readable by its owner alone from the start: written, then restricted, the key
        // would be readable by others for a moment.
        try Self.create(privatePath, mode: 0o600, text: key.text + "\n")
        do {
            try Self.create(publicPath, mode: 0o644, text: publicText)
        } catch {
            // Half a pair is no use, and the next run would refuse to overwrite it.
            unlink(privatePath)
            throw error
        }
        FileHandle.standardOutput.write(Data(publicText.utf8))
        if let repository = ancestors.first(where: { Self.exists($0 + "/.git") }) {
            FileHandle.standardError.write(
                Data(
                    ("locker: warning: \(display) is inside the git work tree \(repository): keep "
                        + "\(Self.privateFile) out of the repository (add it to .gitignore, or move it)\n").utf8))
        }
        FileHandle.standardError.write(
            Data(
                ("locker: wrote \(display)/\(Self.privateFile), the private key: keep it secret (in CI, the secret "
                    + "LOCKER_SIGNING_KEY), and \(display)/\(Self.publicFile), the public key for the apps\n").utf8))
    }

    /// `path` with the symbolic links of its longest part that exists resolved (the rest is
    /// made by the command), so that a link into a vault is found to be in it.
    static func resolved(_ path: String) -> String {
        var head = path
        var tail: [String] = []
        while !exists(head), head != "/", !head.isEmpty {
            tail.insert((head as NSString).lastPathComponent, at: 0)
            head = (head as NSString).deletingLastPathComponent
        }
        guard let real = realpath(head, nil) else { return path }
        defer { free(real) }
        return ([String(cString: real)] + tail).joined(separator: "/").replacingOccurrences(of: "//", with: "/")
    }

    /// `path` and every folder above it, `path` first.
    static func ancestors(of path: String) -> [String] {
        var folders: [String] = []
        var current = path
        while true {
            folders.append(current)
            if current == "/" || current.isEmpty { return folders }
            let parent = (current as NSString).deletingLastPathComponent
            if parent == current { return folders }
            current = parent
        }
    }

    /// Whether anything is at `path`, a dangling symbolic link included.
    static func exists(_ path: String) -> Bool {
        // Not following a link, as `lstat`.
        (try? FileManager.default.attributesOfItem(atPath: path)) != nil
    }

    /// Creates the file at `path` with `mode` (less the umask), refusing one already there (or a
    /// link in its place), and writes `text` into it.
    static func create(_ path: String, mode: mode_t, text: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else {
            throw LockerError.io("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        var written = 0
        var failure: Int32?
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            written += count
        }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if let failure {
            unlink(path)
            throw LockerError.io("cannot write \(path): \(String(cString: strerror(failure)))")
        }
    }
}
