import Foundation
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension OutputWriter {
    /// A build being written into its output folder: files from any thread, then
    /// ``commit(record:)`` or ``discard()``.
    ///
    /// A file the previous build wrote with the same bytes, or a page made from the same inputs
    /// (``PageInputs``), is left where it is while it is still the file that build wrote (its
    /// stamp: size, inode, modification time). Every other file is written into a folder of its
    /// own until the commit:
    ///
    /// - for a first build, a staging folder beside the output, renamed into place at the commit;
    /// - over a previous build, a scratch folder inside the output (`.locker-tmp-<token>`). The
    ///   commit saves a ``Journal`` of its renames and removals, then carries it out; a commit cut
    ///   short is finished by the next build.
    final class Transaction: OutputTransaction, @unchecked Sendable {
        private let output: String
        /// The previous build's files that are still the ones it wrote, as the transaction began;
        /// empty for a first build.
        private let previous: [String: OutputMarker.Entry]
        /// Every file the previous build's marker lists: what the commit removes unless this build
        /// has it.
        private let listed: Dictionary<String, OutputMarker.Entry>.Keys
        /// Where new files wait for the commit: the staging folder, or the scratch folder.
        private let folder: String
        /// The scratch folder's name in the output; nil for a first build.
        private let scratch: String?
        private let folders: FolderMaker
        private let gate = WriteGate()
        /// Held until the transaction is released (``OutputLock``).
        private let lock: OutputLock?

        private let state = NSLock()
        /// The new build's files: the next marker.
        private var files: [String: OutputMarker.Entry]
        /// The files written into ``folder``.
        private var written: [String] = []
        private var reused = 0

        /// Starts a build over `previous` (nil: there is no output folder yet).
        init(output: URL, previous: OutputMarker?, lock: OutputLock?) throws {
            self.output = output.path
            var files = previous?.files ?? [:]
            listed = files.keys
            for path in previous?.changedFiles(in: output) ?? [] { files[path] = nil }
            self.previous = files
            self.files = Dictionary(minimumCapacity: files.count)
            self.lock = lock
            let token = UUID().uuidString.prefix(8)
            scratch = previous == nil ? nil : Journal.scratchPrefix + token
            folder =
                scratch.map { output.path + "/" + $0 }
                ?? output.deletingLastPathComponent().path + "/.\(output.lastPathComponent).staging-\(token)"
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw LockerError.io("cannot create \(folder): \(error.localizedDescription)")
            }
            folders = FolderMaker(root: folder)
        }

        public var recordsInputs: Bool { true }

        public var reusedCount: Int { state.withLock { reused } }

        public func keep(_ path: String, if unchanged: Unchanged) throws -> Bool {
            guard var entry = previous[path], unchanged.holds(sha256: { entry.sha256 }, inputs: entry.inputs)
            else { return false }
            if !unchanged.keepsInputs { entry.inputs = nil }
            record(path, entry, reused: unchanged.keepsInputs)
            return true
        }

        /// The bytes of the previous build's file, read after the transaction began and before
        /// another look at its stamp, both the one the marker lists: trusted as a kept file is.
        public func previousFile(_ path: String) -> [UInt8]? {
            guard let entry = previous[path], let bytes = try? FileBytes.contents(of: output + "/" + path),
                OutputMarker.isIntact(output + "/" + path, entry, in: AT_FDCWD)
            else { return nil }
            return bytes
        }

        public func write(_ file: OutputFile, sha256: String?, inputs: String?) throws {
            let sha256 = sha256 ?? file.sha256Hex
            var entry = OutputMarker.Entry(sha256: sha256, inputs: inputs)
            if let old = previous[file.path], old.sha256 == sha256 {
                entry.stamp = old.stamp
                return record(file.path, entry)
            }
            try put(file, entry)
        }

        public func writeUnhashed(_ file: OutputFile) throws {
            try put(file, OutputMarker.Entry(sha256: OutputMarker.Entry.unhashed))
        }

        private func put(_ file: OutputFile, _ entry: OutputMarker.Entry) throws {
            try gate.pass {
                try folders.ensure(VaultPath.folder(of: file.path))
                var entry = entry
                entry.stamp = try OutputWriter.writeFile(file, to: folder + "/" + file.path)
                record(file.path, entry, written: true)
            }
        }

        private func record(_ path: String, _ entry: OutputMarker.Entry, written: Bool = false, reused: Bool = false) {
            state.withLock {
                files[path] = entry
                if written { self.written.append(path) }
                if reused { self.reused += 1 }
            }
        }

        public func restart() {
            state.withLock { (files, written, reused) = ([:], [], 0) }
            // The folder emptied, the folders made in it with it; a transaction discarded
            // meanwhile (Ctrl-C) keeps its folder removed, and its writers out.
            gate.ifOpen {
                try? FileManager.default.removeItem(atPath: folder)
                try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                folders.forget()
            }
        }

        /// Makes the written files the output, with a marker that lists them and `record`.
        public func commit(record: BuildRecord?) throws {
            try prepare(record: record)?.apply(in: URL(fileURLWithPath: output))
        }

        /// Writes the new marker and syncs the new files. Then renames a first build's staging
        /// folder into place, or saves the journal of a build over a previous one, and returns it
        /// for ``Journal/apply(in:)`` to carry out.
        func prepare(record: BuildRecord?) throws -> Journal? {
            let (files, written) = state.withLock { (self.files, self.written) }
            do {
                let marker = OutputFile(
                    path: OutputWriter.marker, data: OutputMarker(files: files, record: record).text)
                let stamp = try OutputWriter.writeFile(marker, to: folder + "/" + marker.path)
                OutputWriter.flush(folder)
                guard let scratch else {
                    guard rename(folder, output) == 0 else { throw OutputWriter.failure("cannot write \(output)") }
                    return nil
                }
                let removals = listed.filter { files[$0] == nil }.sorted { $0.utf8Precedes($1) }
                var journal = Journal(
                    scratch: scratch,
                    renames: written.sorted { (Journal.rank($0), $0) < (Journal.rank($1), $1) }.map {
                        [scratch + "/" + $0, $0]
                    },
                    removals: removals, newMarker: scratch + "/" + OutputWriter.marker, newMarkerStamp: stamp,
                    twins: Journal.twins(of: removals, among: written))
                let stale = OutputWriter.staleFolders(in: output, written: written, removals: removals)
                if !stale.isEmpty { journal.stale = stale }
                try journal.save(in: URL(fileURLWithPath: output))
                return journal
            } catch {
                discard()
                throw error
            }
        }

        /// Removes what was written; the output folder stays as it was.
        public func discard() {
            gate.close()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
