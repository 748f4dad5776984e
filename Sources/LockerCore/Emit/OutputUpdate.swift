import Foundation
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension OutputWriter {
    /// A build written over the previous one in its own folder, touching only what changed.
    ///
    /// A file with the previous build's bytes, and a page with the previous build's inputs
    /// (``PageInputs``), is left where it is, as long as it is still the file that build wrote
    /// (same size, inode and modification time). Every other file is written into one hidden
    /// scratch folder inside the output (`.locker-tmp-<token>`, on the same file system), so that
    /// until the commit the folder is the previous build, and whatever a stopped build leaves is
    /// in one place, which the next build removes. The commit writes a ``Journal`` of what it is
    /// about to do and syncs it, then renames the new files into place (content-addressed files
    /// and assets first, then pages, then the manifests and `_headers`, so that every link a
    /// reader follows leads to a file), removes the files the build no longer has, and writes
    /// the marker. A build stopped during the commit (a crash, a power cut) leaves the journal,
    /// and the next build finishes that commit before anything else.
    ///
    /// Against the staging folder's two renames (``Staging``), a reader can see some pages of the
    /// new build beside pages of the old one while the commit lasts; in exchange an edit costs
    /// a file system operation per changed file, not one per file of the output.
    public final class Update: OutputTransaction, @unchecked Sendable {
        /// The output folder, which holds the previous build.
        public let output: URL
        /// The previous build's files, from its marker.
        private let previousFiles: OutputMarker
        /// Where new files wait for the commit, relative to the output.
        private let scratch = Journal.scratchPrefix + UUID().uuidString.prefix(8)
        private let ledger: OutputLedger
        private let gate = WriteGate()
        private let folders: FolderMaker
        /// Held until the update is released (``OutputLock``).
        private let lock: OutputLock?

        /// The previous files looked at ahead of the build (``OutputSurvey``).
        private let survey: OutputSurvey
        /// The previous build's files read ahead of the build, when they were.
        private let prefetched: OutputPrefetch?

        init(output: URL, previous: OutputMarker, lock: OutputLock? = nil, prefetched: OutputPrefetch? = nil) {
            self.output = output
            self.previousFiles = previous
            self.lock = lock
            self.prefetched = prefetched
            ledger = OutputLedger(previous: previous)
            folders = FolderMaker(root: output.path)
            survey = OutputSurvey(output: output.path, marker: previous)
        }

        public var reusedCount: Int { ledger.reused }

        public var recordsInputs: Bool { true }

        /// The previous build's line for `path` when the file is still the one it wrote; looked
        /// for first after `previous`, a line found before (``OutputMarker/index(of:after:)``).
        private func intact(_ path: String, after previous: Int? = nil) -> Int? {
            let found =
                if let previous { previousFiles.index(of: path, after: previous) } else {
                    previousFiles.index(of: path)
                }
            return found.flatMap(intact(line:))
        }

        /// `line` when its file is still the one the previous build wrote.
        private func intact(line: Int) -> Int? {
            switch survey.isIntact(line: line) {
            case true?: return line
            case false?: return nil
            case nil: return previousFiles.isIntact(at: line, in: output) ? line : nil
            }
        }

        /// Where `path` waits for the commit: a name in the scratch folder, one per path.
        private func temporary(_ path: String) -> String {
            scratch + "/" + ContentHash.sha256Hex(Data(path.utf8)).prefix(32)
        }

        public func keep(_ path: String, if unchanged: Unchanged) throws -> Bool {
            switch unchanged {
            case .bytes(let sha256):
                guard let line = intact(path), previousFiles.hasSHA256(sha256, at: line) else { return false }
                ledger.kept(line: line, path: path, inputs: nil, reused: false)
            case .inputs(let inputs):
                guard let line = pageLine(path), previousFiles.hasInputs(inputs, at: line) else { return false }
                ledger.kept(line: line, path: path, inputs: inputs, reused: true)
            case .recordedInputs:
                guard let line = pageLine(path), previousFiles.recordsInputs(at: line) else { return false }
                ledger.kept(line: line, reused: true)
            }
            return true
        }

        /// ``intact(_:after:)`` for a page. Pages come in the order of their documents, mostly
        /// their paths' order, in runs on each thread: each is looked for first after the line
        /// this thread found last, which it then is (measured: it spares much of the lookups' CPU).
        private func pageLine(_ path: String) -> Int? {
            let hint = LastLine.get()
            guard let line = intact(path, after: hint) else { return nil }
            LastLine.set(line)
            return line
        }

        /// The file as read ahead (``OutputPrefetch``) while it is still the one read, else read now.
        ///
        /// Bytes read ahead were read between two equal stamps, and `intact` holds that stamp to
        /// the marker's: they are trusted as a kept file is. Bytes read now are checked as
        /// ``OutputWriter/previousFile(at:of:in:)`` checks them.
        public func previousFile(_ path: String) -> [UInt8]? {
            guard let line = intact(path) else { return nil }
            if let bytes = prefetched?.file(path) { return bytes }
            return OutputWriter.previousFile(at: line, of: previousFiles, in: output)
        }

        public func write(_ file: OutputFile, sha256: String?, inputs: String?) throws {
            try gate.pass { try put(file, sha256: sha256, inputs: inputs) }
        }

        public func writeUnhashed(_ file: OutputFile) throws {
            try gate.pass {
                try folders.ensure(scratch)
                let target = output.path + "/" + temporary(file.path)
                do {
                    let stamp = try OutputWriter.writeFile(file, to: target)
                    ledger.wrote(file.path, RecordedFile(sha256: RecordedFile.unhashed, stamp: stamp))
                } catch {
                    unlink(target)
                    throw error
                }
            }
        }

        private func put(_ file: OutputFile, sha256: String?, inputs: String?) throws {
            /// Keeps the previous build's file when it has these bytes and is still the one it wrote.
            func kept(_ hash: String) -> Bool {
                guard let line = intact(file.path), previousFiles.hasSHA256(hash, at: line) else { return false }
                ledger.kept(line: line, path: file.path, inputs: inputs, reused: false)
                return true
            }
            // A large file is hashed while it is written, on another core (the record, last of a
            // rebuild, took measurable time for each), and its copy dropped when the previous is
            // kept. Not hashed first when the previous file has its size: the record and the
            // manifest keep theirs from one rebuild of a note to the next, and differ all the same.
            let atOnce = sha256 == nil && file.count >= Self.hashedWhileWritten
            // A large file read ahead (the manifest) is compared with the bytes read, not hashed:
            // a rebuild's manifest differs from the previous one in its first lines, and hashing
            // it was a measurable part of every rebuild's CPU. It is listed unhashed, and the
            // next build compares it with the bytes it reads ahead in turn.
            let readAhead: (line: Int, bytes: [UInt8])? =
                atOnce ? intact(file.path).flatMap { line in prefetched?.file(file.path).map { (line, $0) } } : nil
            if let readAhead, file.hasBytes(readAhead.bytes) {
                ledger.kept(line: readAhead.line, path: file.path, inputs: inputs, reused: false)
                return
            }
            let hash = atOnce ? nil : sha256 ?? file.sha256Hex
            if let hash, kept(hash) { return }
            try folders.ensure(scratch)
            let target = output.path + "/" + temporary(file.path)
            let written: (sha256: String, stamp: String?)
            do {
                if readAhead != nil {
                    written = (RecordedFile.unhashed, try OutputWriter.writeFile(file, to: target))
                } else if let hash {
                    written = (hash, try OutputWriter.writeFile(file, to: target))
                } else {
                    written = try OutputWriter.writeFileHashing(file, to: target)
                    if kept(written.sha256) {
                        unlink(target)
                        return
                    }
                }
            } catch {
                unlink(target)
                throw error
            }
            ledger.wrote(file.path, RecordedFile(sha256: written.sha256, stamp: written.stamp, inputs: inputs))
        }

        /// How many bytes a file has at least to be hashed while it is written.
        static let hashedWhileWritten = 1 << 20

        public func commit(record: BuildRecord?) throws {
            survey.stop()
            try journal(record: record).apply(in: output)
        }

        /// Syncs the written files and saves the journal of the commit, which ``Journal/apply(in:)``
        /// then carries out.
        func journal(record: BuildRecord?) throws -> Journal {
            let written = ledger.written
            let closing = ledger.closing(record: record)
            let removals = closing.removals
            // The new marker waits in the scratch folder like the new files,
            // under its own name: the journal names it rather than holding its megabytes.
            let newMarker = scratch + "/" + closing.marker.path
            let markerText = closing.marker
            // Known by its stamp (size, inode, modification time), which the rename keeps: a large
            // marker's hash was a measurable part of every rebuild's commit. Hashed only when the
            // file system gives no stamp.
            let markerStamp: String?
            var markerSHA256: String?
            do {
                try folders.ensure(scratch)
                markerStamp = try OutputWriter.writeFile(markerText, to: output.path + "/" + newMarker)
                if markerStamp == nil { markerSHA256 = markerText.sha256Hex }
            } catch {
                discard()
                throw error
            }
            var journal = Journal(
                renames: written.sorted { (Journal.rank($0), $0) < (Journal.rank($1), $1) }.map {
                    [temporary($0), $0]
                },
                removals: removals, twins: closing.twins)
            (journal.newMarker, journal.newMarkerStamp, journal.newMarkerSHA256) = (
                newMarker, markerStamp, markerSHA256
            )
            do {
                // The new files' bytes reach the disk before the journal that names them.
                OutputWriter.flush(output.path)
                try journal.save(in: output)
            } catch {
                discard()
                throw error
            }
            return journal
        }

        public func discard() {
            survey.stop()
            gate.close()
            try? FileManager.default.removeItem(atPath: output.path + "/" + scratch)
        }
    }

    /// What a commit of an ``Update`` does, written before it starts: the renames, the removals
    /// and the new marker (which holds the build's record). Applying it twice does what applying
    /// it once does.
    struct Journal: Codable {
        /// `[temporary, final]` paths, in the order to rename them.
        var renames: [[String]]
        var removals: [String]
        /// Where the new marker waits, renamed over the marker once the files are in place.
        var newMarker: String? = nil
        /// The new marker's stamp (``VaultScanner/contentStamp(of:)``): a marker with it is this
        /// commit's, renamed by an earlier apply of the journal.
        var newMarkerStamp: String? = nil
        /// The new marker's SHA-256, in place of its stamp when it had none.
        var newMarkerSHA256: String? = nil
        /// `[removal, new file]` pairs whose paths differ only in case (or width, or accents):
        /// on a file system that ignores the difference they may be one file, which must stay.
        var twins: [[String]] = []

        /// The new files each removal could be another spelling of (see ``twins``). The folding
        /// is looser than any file system's, so that no pair is missed; whether a pair is one file
        /// is decided by its device and inode when the journal is applied.
        static func twins(of removals: [String], among files: some Sequence<String>) -> [[String]] {
            var finder = TwinFinder(removals: removals)
            guard !removals.isEmpty else { return [] }
            for file in files {
                var text = file
                text.withUTF8 { bytes in finder.consider(bytes) { file } }
            }
            return finder.twins
        }

        /// Finds the ``twins`` of a few removals among the many files of a build, most of them
        /// looked at as bytes: an ASCII path folds to its lower case (no accents or widths to
        /// fold), and its hash is compared with the folded removals' before any string is made.
        /// Output paths are mostly ASCII, and Foundation's folding of each would cost more than
        /// the rest of a one-note rebuild's commit.
        struct TwinFinder {
            private var byFolding: [String: [String]]
            private var hashes: Set<Int>
            private var pairs: [[String]] = []
            private var lowered: [UInt8] = []
            /// The folded removals' bytes when they are few (a one-note rebuild removes one or
            /// two files): compared with each path as it is lowered, most told apart within their
            /// first bytes, which costs less than hashing the path.
            private var fewKeys: [(bytes: [UInt8], key: String)]?

            init(removals: [String]) {
                byFolding = Dictionary(grouping: removals, by: Self.folded)
                hashes = Set(byFolding.keys.map { key in Self.hash(Array(key.utf8)) })
                if byFolding.count <= 8 { fewKeys = byFolding.keys.map { (Array($0.utf8), $0) } }
            }

            /// Pairs `path` with the removals it could be another spelling of; `make` gives the
            /// path as a string, asked for only when it could be one.
            mutating func consider(_ path: UnsafeBufferPointer<UInt8>, _ make: () -> String) {
                guard !byFolding.isEmpty else { return }
                let folded: String
                // Eight bytes at a time: every path the previous build kept is looked at.
                let ascii = path.isASCII
                if ascii, let fewKeys {
                    guard let match = fewKeys.first(where: { Self.lowered(path, equals: $0.bytes) }) else { return }
                    folded = match.key
                } else if ascii {
                    lowered.removeAll(keepingCapacity: true)
                    for byte in path { lowered.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte) }
                    guard hashes.contains(Self.hash(lowered)) else { return }
                    folded = String(decoding: lowered, as: UTF8.self)
                } else {
                    folded = Self.folded(make())
                }
                guard let removals = byFolding[folded] else { return }
                let file = make()
                for removal in removals { pairs.append([removal, file]) }
            }

            /// The pairs found, in order.
            var twins: [[String]] { pairs.sorted { $0.lexicographicallyPrecedes($1) } }

            private static func folded(_ path: String) -> String {
                if let lowercased = path.asciiLowercased { return lowercased }
                return path.decomposedStringWithCanonicalMapping.folding(
                    options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            }

            /// Whether the ASCII `path` in lower case is `key`.
            private static func lowered(_ path: UnsafeBufferPointer<UInt8>, equals key: [UInt8]) -> Bool {
                guard path.count == key.count else { return false }
                for (byte, other) in zip(path, key)
                where (byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte) != other {
                    return false
                }
                return true
            }

            private static func hash(_ bytes: [UInt8]) -> Int {
                var hasher = Hasher()
                bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
                return hasher.finalize()
            }
        }

        static let file = ".locker-journal"
        /// The start of a scratch folder's name (``Update``).
        static let scratchPrefix = ".locker-tmp-"

        /// Content-addressed files and assets first (0), then pages and other named files (1),
        /// then the files that name the others: the manifest and `_headers` (2).
        static func rank(_ path: String) -> Int {
            if path == BundleSchema.folder + "/manifest.json" || VaultPath.fileName(of: path) == "_headers" { return 2 }
            if path.hasSuffix(".html") || path.hasSuffix(".xml") || path.hasSuffix(".txt") { return 1 }
            return 0
        }

        /// Writes the journal whole and durably (a temporary file, synced, then renamed) into `output`.
        func save(in output: URL) throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(self)
            try OutputWriter.replaceFile(data, at: output.path + "/" + Self.file, sync: true)
            OutputWriter.flush(output.path)
        }

        /// Renames, removes, puts the new marker in place, then deletes the journal and the
        /// scratch folders.
        ///
        /// A rename that fails does not stop the rest: the marker lists what each file should be,
        /// and a file that is not what it lists is written again by the next build, so the output
        /// comes right then; the failure is reported once the journal is gone.
        func apply(in output: URL) throws {
            let root = output.path + "/"
            var failure: String?
            let folders = FolderMaker(root: output.path)
            for pair in renames where pair.count == 2 {
                do {
                    try folders.ensure(VaultPath.folder(of: pair[1]))
                } catch {
                    failure = failure ?? "\(error)"
                    continue
                }
                if rename(root + pair[0], root + pair[1]) != 0, errno != ENOENT {
                    failure = failure ?? "cannot write \(root + pair[1]): \(String(cString: strerror(errno)))"
                }
            }
            // A removed path that is one of the new files under another spelling (a file system
            // that ignores case or normalises names) keeps the new file: the two have one inode.
            var spellings: [String: [String]] = [:]
            for pair in twins where pair.count == 2 { spellings[pair[0], default: []].append(pair[1]) }
            let twinsOf = spellings
            _ = Compiler.parallelMap(removals) { path in
                var status = stat()
                guard lstat(root + path, &status) == 0 else { return Int32(0) }
                for twin in twinsOf[path] ?? [] {
                    var other = stat()
                    if lstat(root + twin, &other) == 0, other.st_ino == status.st_ino, other.st_dev == status.st_dev {
                        return Int32(0)
                    }
                }
                return unlink(root + path)
            }
            // Folders left empty by the removals, deepest first; a folder with files stays.
            for folder in OutputWriter.folders(of: removals).sorted(by: { $0.utf8.count > $1.utf8.count }) {
                rmdir(root + folder)
            }
            /// Renames the new marker at `source` over `target`; false when it is not in place.
            func place(_ source: String, at target: String, stamp: String?, sha256: String?) -> Bool {
                guard rename(root + source, root + target) != 0 else { return true }
                // Gone when a commit cut short after this rename is applied again: then the
                // file in place is the new one.
                let reason = errno
                guard reason != ENOENT || !Self.isFile(at: root + target, stamp: stamp, sha256: sha256) else {
                    return true
                }
                let problem =
                    reason == ENOENT
                    ? "the new marker is gone from its scratch folder, and the marker in place is not this commit's"
                    : String(cString: strerror(reason))
                failure = failure ?? "cannot write \(root + target): \(problem)"
                return false
            }
            if let newMarker, !place(newMarker, at: OutputWriter.marker, stamp: newMarkerStamp, sha256: newMarkerSHA256)
            {
                Self.markUnknown(renames.compactMap { $0.count == 2 ? $0[1] : nil }, in: root)
            }
            OutputWriter.flush(output.path)
            unlink(root + Self.file)
            Self.sweep(output)
            if let failure { throw LockerError.io(failure) }
        }

        /// Adds to the marker in place, which this commit could not replace, a line for each of
        /// `paths` with no hash and no stamp: files the commit renamed in, which the marker would
        /// otherwise not describe. The next build takes none of them for the previous build's
        /// (nor the folder for up to date), and removes those it does not write.
        private static func markUnknown(_ paths: [String], in root: String) {
            guard !paths.isEmpty, var bytes = try? FileBytes.contents(of: root + OutputWriter.marker) else { return }
            if let last = bytes.last, last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
            for path in paths { OutputWriter.appendLine(path: path, entry: RecordedFile(sha256: "-"), to: &bytes) }
            try? OutputWriter.replaceFile(Data(bytes), at: root + OutputWriter.marker)
        }

        /// Whether the file at `path` is the new marker this journal names: by
        /// its stamp, or by its SHA-256 when the journal has no stamp.
        private static func isFile(at path: String, stamp: String?, sha256: String?) -> Bool {
            if let stamp { return FileStamp(regularFileAt: path)?.contentText == stamp }
            guard let sha256, let current = try? FileBytes.contents(of: path) else { return false }
            return ContentHash.sha256Hex(current) == sha256
        }

        /// Removes the scratch folders of builds that stopped before their commit.
        static func sweep(_ output: URL) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
            for name in names where name.hasPrefix(scratchPrefix) {
                try? FileManager.default.removeItem(atPath: output.path + "/" + name)
            }
        }

        /// Finishes the commit a journal in `output` describes, if there is one, and removes what
        /// builds that stopped earlier left. A journal that cannot be read was cut short while it
        /// was saved, before any rename (a commit renames only once its journal is on the disk):
        /// it is dropped, and the folder is the previous build.
        static func recover(_ output: URL) throws {
            let path = output.path + "/" + file
            if let data = FileManager.default.contents(atPath: path) {
                if let journal = try? JSONDecoder().decode(Journal.self, from: data) {
                    try journal.apply(in: output)
                } else {
                    unlink(path)
                }
            }
            sweep(output)
        }
    }

    /// Replaces the file at `path` with `data` in one step: a temporary file beside it, renamed;
    /// synced before the rename when `sync` is set.
    static func replaceFile(_ data: Data, at path: String, sync: Bool = false) throws {
        let temporary = path + ".locker-new"
        unlink(temporary)
        do {
            try writeFile(data, to: temporary, sync: sync)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw LockerError.io("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}

/// The marker line this thread found a page at last (``OutputWriter/Update/keep(_:if:)``): a hint, checked against the path asked about,
/// so one left by another update, or another marker, only costs a look.
private enum LastLine {
    /// One key for the process, made once and never deleted.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// The line, or nil when this thread found none.
    static func get() -> Int? {
        guard let key, let value = pthread_getspecific(key) else { return nil }
        return Int(bitPattern: value) - 1
    }

    static func set(_ line: Int) {
        guard let key else { return }
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: line + 1))
    }
}
