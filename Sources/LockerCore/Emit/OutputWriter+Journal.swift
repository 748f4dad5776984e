import Foundation
import LockerKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension OutputWriter {
    /// What the commit of a build over a previous one does, saved before it starts: the renames,
    /// the removals and the new marker. Applying it twice does what applying it once does, so a
    /// commit cut short (a crash, a power cut) is finished by the next build (``recover(_:)``).
    ///
    /// It is saved in the build's scratch folder, beside the files it renames, and goes with that
    /// folder: the output holds nothing of the build's own but the marker, the note record and,
    /// while a build writes, its scratch folder.
    struct Journal: Codable {
        /// The scratch folder's name in the output, where the journal is saved.
        var scratch: String
        /// `[scratch, final]` paths, in the order to rename them.
        var renames: [[String]]
        /// The previous build's files this build does not have.
        var removals: [String]
        /// Where the new marker waits, renamed over the marker once the files are in place.
        var newMarker: String?
        /// The new marker's stamp: a marker with it is this commit's, put in place by an earlier
        /// apply of the journal.
        var newMarkerStamp: String?
        /// `[removal, new file]` pairs whose paths differ only in case (or width, or accents): on
        /// a file system that ignores the difference they may be one file (a note renamed from
        /// `guide.md` to `Guide.md`), which must stay. A kept file has no such twin: the previous
        /// build could not have written both spellings.
        var twins: [[String]] = []
        /// The derived folders this commit makes stale (``OutputWriter/derivedFolders``), removed
        /// first; nil when there are none (and in the journals of builds before there were any).
        var stale: [String]?

        static let file = ".locker-journal"
        /// The start of a scratch folder's name (``Transaction``).
        static let scratchPrefix = ".locker-tmp-"

        /// Content-addressed files and assets first (0), then pages and other named files (1),
        /// then the files that name the others: the manifest and `_headers` (2); so that every
        /// link a reader follows during the commit leads to a file.
        static func rank(_ path: String) -> Int {
            if path == BundleSchema.folder + "/manifest.json" || VaultPath.fileName(of: path) == "_headers" { return 2 }
            if path.hasSuffix(".html") || path.hasSuffix(".xml") || path.hasSuffix(".txt") { return 1 }
            return 0
        }

        /// The files each removal could be another spelling of, by a folding looser than any file
        /// system's; whether a pair is one file is decided by its inode when the journal is applied.
        static func twins(of removals: [String], among files: some Sequence<String>) -> [[String]] {
            guard !removals.isEmpty else { return [] }
            let byFolding = Dictionary(grouping: removals, by: folded)
            var pairs: [[String]] = []
            for file in files {
                for removal in byFolding[folded(file)] ?? [] { pairs.append([removal, file]) }
            }
            return pairs.sorted { $0.lexicographicallyPrecedes($1) }
        }

        private static func folded(_ path: String) -> String {
            path.asciiLowercased
                ?? path.decomposedStringWithCanonicalMapping.folding(
                    options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        }

        /// Writes the journal whole and durably into its scratch folder in `output`.
        func save(in output: URL) throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try OutputWriter.replaceFile(
                try encoder.encode(self), at: output.path + "/" + scratch + "/" + Self.file, sync: true)
            OutputWriter.flush(output.path)
        }

        /// The path of a journal saved in a scratch folder of `output`, if there is one: a commit
        /// that did not finish.
        static func saved(in output: URL) -> String? {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
            return names.sorted().lazy.filter { $0.hasPrefix(scratchPrefix) }
                .map { output.path + "/" + $0 + "/" + file }
                .first { FileManager.default.fileExists(atPath: $0) }
        }

        /// Renames, removes, puts the new marker in place, then deletes the scratch folders, the
        /// journal with its own.
        ///
        /// A rename that fails does not stop the rest: the marker lists what each file should be,
        /// and a file that is not what it lists is written again by the next build; the failure
        /// is reported once the journal is gone.
        func apply(in output: URL) throws {
            let root = output.path + "/"
            var failure: String?
            // Gone before the new files arrive: at no time does an index describe pages it was
            // not made from. Gone already when an earlier apply removed it.
            for folder in stale ?? [] where OutputWriter.derivedFolders.contains(folder) {
                var status = stat()
                guard lstat(root + folder, &status) == 0 else { continue }
                do {
                    try FileManager.default.removeItem(atPath: root + folder)
                } catch {
                    failure = failure ?? "cannot remove \(root + folder), made from the previous build: \(error)"
                }
            }
            let folders = FolderMaker(root: output.path)
            for pair in renames where pair.count == 2 {
                do {
                    try folders.ensure(VaultPath.folder(of: pair[1]))
                    // Gone when an earlier apply renamed it.
                    if rename(root + pair[0], root + pair[1]) != 0, errno != ENOENT {
                        throw OutputWriter.failure("cannot write \(root + pair[1])")
                    }
                } catch {
                    failure = failure ?? "\(error)"
                }
            }
            // A removed path that is a new file under another spelling keeps it: one inode.
            var spellings: [String: [String]] = [:]
            for pair in twins where pair.count == 2 { spellings[pair[0], default: []].append(pair[1]) }
            for path in removals {
                var status = stat()
                guard lstat(root + path, &status) == 0 else { continue }
                let isTwin = (spellings[path] ?? []).contains { twin in
                    var other = stat()
                    return lstat(root + twin, &other) == 0 && other.st_ino == status.st_ino
                        && other.st_dev == status.st_dev
                }
                if !isTwin { unlink(root + path) }
            }
            // Folders left empty by the removals, deepest first; a folder with files stays.
            var emptied: Set<String> = []
            for path in removals {
                var folder = VaultPath.folder(of: path)
                while !folder.isEmpty, emptied.insert(folder).inserted { folder = VaultPath.folder(of: folder) }
            }
            for folder in emptied.sorted(by: { $0.utf8.count > $1.utf8.count }) { rmdir(root + folder) }
            if let newMarker, rename(root + newMarker, root + OutputWriter.marker) != 0 {
                // Gone when an earlier apply renamed it: then the marker in place is this one.
                if errno != ENOENT
                    || FileStamp(regularFileAt: root + OutputWriter.marker)?.contentText != newMarkerStamp
                {
                    failure = failure ?? "cannot write \(root + OutputWriter.marker): the new marker is not in place"
                    Self.markUnknown(renames.compactMap { $0.count == 2 ? $0[1] : nil }, in: output)
                }
            }
            OutputWriter.flush(output.path)
            Self.sweep(output)
            if let failure { throw LockerError.io(failure) }
        }

        /// Adds to the marker in place, which this commit could not replace, the files the commit
        /// renamed in, unknown (no hash, no stamp): the next build takes none of them for the
        /// previous build's, nor the folder for up to date, and removes those it does not write.
        private static func markUnknown(_ paths: [String], in output: URL) {
            guard var marker = OutputMarker(in: output) else { return }
            for path in paths { marker.files[path] = OutputMarker.Entry(sha256: OutputMarker.Entry.unhashed) }
            try? OutputWriter.replaceFile(marker.text, at: output.path + "/" + OutputWriter.marker)
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
        /// was saved, before any rename: it goes with its scratch folder, and the folder is the
        /// previous build.
        /// Whether a journal was found and applied.
        @discardableResult
        static func recover(_ output: URL) throws -> Bool {
            defer { sweep(output) }
            guard let path = saved(in: output), let data = FileManager.default.contents(atPath: path),
                let journal = try? JSONDecoder().decode(Journal.self, from: data),
                journal.holds(in: VaultPath.folder(of: String(path.dropFirst(output.path.count + 1))))
            else { return false }
            try journal.apply(in: output)
            return true
        }

        /// Whether the journal is one a commit saved in the scratch folder `scratch`: it moves
        /// files out of that folder only, and every path it names is inside the output.
        private func holds(in scratch: String) -> Bool {
            let fromScratch = { (path: String) in
                path.hasPrefix(scratch + "/") && OutputMarker.isInside(String(path.dropFirst(scratch.count + 1)))
            }
            return self.scratch == scratch && (newMarker.map { $0 == scratch + "/" + OutputWriter.marker } ?? true)
                && renames.allSatisfy { $0.count == 2 && fromScratch($0[0]) && OutputMarker.isInside($0[1]) }
                && removals.allSatisfy(OutputMarker.isInside) && twins.joined().allSatisfy(OutputMarker.isInside)
                && (stale ?? []).allSatisfy(OutputWriter.derivedFolders.contains)
        }
    }
}
