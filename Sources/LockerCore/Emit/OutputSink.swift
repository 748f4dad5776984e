import Foundation
import LockerKit

/// A file of the build output: its path relative to the output folder, and its bytes, whole or
/// in pieces.
///
/// A large file made in runs on several cores (the manifest, the ``NoteRecord``) is kept in its
/// pieces and written and hashed piece by piece: joining megabytes only to write them cost a
/// copy, and memory touched for the first time, which is slow to get on a virtual machine.
public struct OutputFile: Sendable, Hashable {
    public var path: String
    private var content: Content

    private enum Content: Sendable {
        case whole(Data)
        case pieces([ArraySlice<UInt8>])
    }

    public init(path: String, data: Data) {
        self.path = path
        content = .whole(data)
    }

    /// A file whose bytes are `pieces`, one after the other.
    public init(path: String, pieces: [[UInt8]]) {
        self.init(path: path, pieces: pieces.map { $0[...] })
    }

    /// A file whose bytes are `pieces`, one after the other: slices of larger arrays, which are
    /// not copied.
    public init(path: String, pieces: [ArraySlice<UInt8>]) {
        self.path = path
        content = .pieces(pieces)
    }

    /// The file's bytes, joined when it is in pieces.
    public var data: Data {
        get {
            switch content {
            case .whole(let data): return data
            case .pieces(let pieces): return OutputFile.joined(pieces)
            }
        }
        set { content = .whole(newValue) }
    }

    /// How many bytes the file has.
    public var count: Int {
        switch content {
        case .whole(let data): return data.count
        case .pieces(let pieces): return pieces.reduce(0) { $0 + $1.count }
        }
    }

    /// Calls `body` with each piece of the file's bytes, in order (once for a whole file).
    public func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        switch content {
        case .whole(let data): try data.withUnsafeBytes(body)
        case .pieces(let pieces): for piece in pieces { try piece.withUnsafeBytes(body) }
        }
    }

    /// The lowercase hexadecimal SHA-256 of the file's bytes, taken piece by piece.
    public var sha256Hex: String {
        switch content {
        case .whole(let data): return ContentHash.sha256Hex(data)
        case .pieces(let pieces): return ContentHash.sha256Hex(pieces: pieces)
        }
    }

    /// Files are equal when their paths and bytes are, however the bytes are cut.
    public static func == (lhs: OutputFile, rhs: OutputFile) -> Bool {
        lhs.path == rhs.path && lhs.count == rhs.count && lhs.data == rhs.data
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(data)
    }

    static func joined(_ pieces: [ArraySlice<UInt8>]) -> Data {
        var data = Data(capacity: pieces.reduce(0) { $0 + $1.count })
        for piece in pieces { data.append(contentsOf: piece) }
        return data
    }
}

/// Where a build's files go as they are made, so that no build holds its whole output in memory:
/// the output folder for `locker build` (``OutputWriter/Transaction``), memory for tests and
/// `serve` (``MemoryOutput``).
public protocol OutputSink: Sendable {
    /// Takes one file, with its SHA-256 (lowercase hex) when the caller knows it already and what
    /// it was made from when the build worked it out (for the next build's ``keep(_:if:)``).
    /// Called from several threads at once, once per path.
    func write(_ file: OutputFile, sha256: String?, inputs: String?) throws

    /// Takes a file of the build's own that the next build reads back and checks by its own
    /// format (the ``NoteRecord``): not hashed, and always written, never kept.
    func writeUnhashed(_ file: OutputFile) throws

    /// Whether the sink records what files were made from and may take files from the previous
    /// build (``keep(_:if:)``): whether working out inputs is worth it.
    var recordsInputs: Bool { get }

    /// Takes the file at `path` from the previous build, without its bytes at hand, when it is
    /// still the file that build wrote and `unchanged` holds of it; false when it must be made.
    func keep(_ path: String, if unchanged: Unchanged) throws -> Bool

    /// The bytes of the file the previous build wrote at `path`, when it is still that file.
    func previousFile(_ path: String) -> [UInt8]?

    /// Forgets every file written or kept so far: the build starts again.
    func restart()
}

/// What makes a file of the previous build this build's own (``OutputSink/keep(_:if:)``).
public enum Unchanged: Sendable {
    /// It has these bytes, by SHA-256.
    case bytes(sha256: String)
    /// It was made from these inputs (see ``PageInputs``).
    case inputs(String)

    /// Whether it holds of a previous file with this SHA-256 (worked out only when asked for)
    /// and these recorded inputs: the one rule every sink keeps files by.
    func holds(sha256: () -> String, inputs: String?) -> Bool {
        switch self {
        case .bytes(let wanted): sha256() == wanted
        case .inputs(let wanted): inputs == wanted
        }
    }

    /// Whether a file kept so carries its inputs on: one kept for its bytes is as a file written
    /// anew, with none.
    var keepsInputs: Bool {
        if case .bytes = self { false } else { true }
    }
}

/// A build's output being written: files from any thread, then ``commit(record:)`` once, or
/// ``discard()``; until the commit, the output is the previous build.
public protocol OutputTransaction: OutputSink {
    /// Makes the written files the output, with the record the next build compares with.
    func commit(record: BuildRecord?) throws
    /// Drops what was written; the output stays as it was.
    func discard()
    /// How many files ``OutputSink/keep(_:if:)`` took from the previous build for their inputs.
    var reusedCount: Int { get }
}

extension OutputTransaction {
    public func commit() throws { try commit(record: nil) }
}

extension OutputSink {
    /// Takes one file, hashed by the sink if it needs the hash.
    public func write(_ file: OutputFile) throws { try write(file, sha256: nil, inputs: nil) }

    /// Takes one file whose SHA-256 the caller may know already.
    public func write(_ file: OutputFile, sha256: String?) throws { try write(file, sha256: sha256, inputs: nil) }

    public func writeUnhashed(_ file: OutputFile) throws { try write(file) }

    public var recordsInputs: Bool { false }

    public func keep(_ path: String, if unchanged: Unchanged) throws -> Bool { false }

    public func previousFile(_ path: String) -> [UInt8]? { nil }
}

/// Keeps every file in memory: the output of ``Compiler/compile()``, and of each build `locker
/// serve` makes.
///
/// Made over the previous build's output (``init(over:)``), it is that build's output as an
/// output folder is: it records what each file was made from and gives the next build the files
/// it may keep and the ``NoteRecord`` it left, so a rebuild in memory reuses exactly what a
/// rebuild of a folder does.
public final class MemoryOutput: OutputSink, @unchecked Sendable {
    /// A file taken, with its SHA-256 when the writer knew it and what it was made from.
    private struct Entry {
        var file: OutputFile
        var sha256: String?
        var inputs: String?
        /// A file of the build's own for the next (``OutputSink/writeUnhashed(_:)``), not output.
        var isState = false
    }

    private var collected: [Entry] = []
    /// The previous build's files, by path, until the build is done (``letPreviousGo()``).
    private var previous: [String: Entry]
    private let lock = NSLock()
    public let recordsInputs: Bool
    private var keptPaths: [String] = []

    /// An output that keeps nothing from an earlier build and records nothing for a later one.
    public init() {
        previous = [:]
        recordsInputs = false
    }

    /// An output that the next build can be made over, itself made over `previous` (nil for a
    /// first build).
    public init(over previous: MemoryOutput?) {
        var files: [String: Entry] = [:]
        for entry in previous?.entries ?? [] { files[entry.file.path] = entry }
        self.previous = files
        recordsInputs = true
    }

    private var entries: [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    public func write(_ file: OutputFile, sha256: String?, inputs: String?) throws {
        lock.lock()
        collected.append(Entry(file: file, sha256: sha256, inputs: inputs))
        lock.unlock()
    }

    public func writeUnhashed(_ file: OutputFile) throws {
        lock.lock()
        collected.append(Entry(file: file, isState: true))
        lock.unlock()
    }

    public func keep(_ path: String, if unchanged: Unchanged) throws -> Bool {
        guard var entry = lock.withLock({ previous[path] }),
            unchanged.holds(sha256: { entry.sha256 ?? entry.file.sha256Hex }, inputs: entry.inputs)
        else { return false }
        if !unchanged.keepsInputs { entry.inputs = nil }
        lock.lock()
        collected.append(entry)
        keptPaths.append(path)
        lock.unlock()
        return true
    }

    public func previousFile(_ path: String) -> [UInt8]? {
        lock.withLock { previous[path] }.map { [UInt8]($0.file.data) }
    }

    public func restart() {
        lock.withLock {
            collected = []
            keptPaths = []
        }
    }

    /// Lets the previous build's files go once this build is done: the next build is made over
    /// this one, which must not hold the one before it.
    public func letPreviousGo() {
        lock.withLock { previous = [:] }
    }

    /// The paths of the files kept from the previous build, sorted.
    public var kept: [String] {
        lock.lock()
        defer { lock.unlock() }
        return keptPaths.sorted { $0.utf8Precedes($1) }
    }

    /// The files taken so far, sorted by path.
    public var files: [OutputFile] {
        let files = written
        // Offsets are sorted rather than the files: moving a file copies its path and data.
        return files.indices.sorted { files[$0].path.utf8Precedes(files[$1].path) }
            .map { files[$0] }
    }

    /// The files taken so far, in the order they were written: for a reader that looks them up
    /// by path and does not need them sorted.
    public var written: [OutputFile] { entries.compactMap { $0.isState ? nil : $0.file } }
}

/// Builds a vault into memory again and again, each build over the last good one's output, as
/// `locker build` builds over its output folder: what `locker serve` serves. A build with errors
/// leaves the last good output to the next.
public final class MemoryBuilds: @unchecked Sendable {
    private let lock = NSLock()
    private var last: MemoryOutput?

    public init() {}

    /// Compiles with `compiler` into a new ``MemoryOutput`` over the last good one, and returns
    /// both.
    public func build(_ compiler: Compiler, taking fingerprint: BuildFingerprint? = nil) throws
        -> (Compilation, MemoryOutput)
    {
        let output = MemoryOutput(over: lock.withLock { last })
        defer { output.letPreviousGo() }
        let compilation = try compiler.compile(into: output, taking: fingerprint)
        // A build that fails writes nothing: what it wrote as it went is forgotten.
        if compilation.failed { output.restart() } else { lock.withLock { last = output } }
        return (compilation, output)
    }
}
