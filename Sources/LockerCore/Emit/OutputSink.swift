import Foundation

/// A file of the build output: its path relative to the output folder, and its bytes.
public struct OutputFile: Sendable, Hashable {
    public var path: String
    public var data: Data

    public init(path: String, data: Data) {
        self.path = path
        self.data = data
    }
}

/// Where a build's files go as they are made, so that no build holds its whole output in memory:
/// a staging folder for `locker build` (``OutputWriter/Staging``), memory for tests (``MemoryOutput``).
public protocol OutputSink: Sendable {
    /// Takes one file whose SHA-256 (lowercase hex) the caller may know already, so that the
    /// sink need not hash it again. Called from several threads at once, once per path.
    func write(_ file: OutputFile, sha256: String?) throws
}

extension OutputSink {
    /// Takes one file, hashed by the sink if it needs the hash.
    public func write(_ file: OutputFile) throws { try write(file, sha256: nil) }
}

/// Keeps every file in memory: the output of ``Compiler/compile()``.
public final class MemoryOutput: OutputSink, @unchecked Sendable {
    private var collected: [OutputFile] = []
    private let lock = NSLock()

    public init() {}

    public func write(_ file: OutputFile, sha256: String?) throws {
        lock.lock()
        collected.append(file)
        lock.unlock()
    }

    /// The files taken so far, sorted by path.
    public var files: [OutputFile] {
        lock.lock()
        defer { lock.unlock() }
        return collected.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }
}
