import Foundation
import LockerKit

/// What the output stage wrote.
struct WrittenOutput {
    var manifest: WrittenManifest
    /// How many HTML pages the site has.
    var pageCount: Int
    var templateTime: TemplateTime?
    /// What it made on the way, kept for a one-shot build to exit without freeing it.
    var workingSet: [any Sendable]
}

extension Compiler {
    /// The output stage: the bundle (each document's file, the indexes, the manifest and its
    /// signatures), the site's pages and the record for the next build, written into `sink` as
    /// they are made; the manifest and the record while the pages render.
    func writeOutput(
        _ vault: BuiltVault, indexed: IndexedVault, parsed: ParsedVault, templates: TemplateSet, settings: Settings,
        record previous: NoteRecord?, into sink: some OutputSink
    ) throws -> WrittenOutput {
        let config = settings.config
        let (documents, pages, assets) = (vault.documents, vault.pages, vault.assets)
        let surfaceSHA256 = indexed.surfaceSHA256
        let program = BuildFingerprint.program
        let recording = records(into: sink)
        let noteCount = indexed.notes.count
        var writer = BundleWriter(config: config, generatedAt: generatedAt())
        writer.config.baseURL = baseURL ?? config.baseURL
        let contentTime = contentTime()
        writer.version = bundleVersion ?? contentTime
        writer.expires = contentTime.flatMap { Self.expiry(of: $0, days: config.manifestExpiryDays) }
        // An app refuses a signed manifest without both: sign none it would refuse.
        if !signingKeys.isEmpty, writer.version == nil || writer.expires == nil {
            guard let contentTime else { throw LockerError.usage(Self.untimedSigning) }
            throw LockerError.usage(Self.unexpiringSigning(contentTime: contentTime, days: config.manifestExpiryDays))
        }
        writer.signingKeys = signingKeys
        writer.previousManifestHolds = previous != nil
        /// The error a bundle that cannot be written throws.
        @Sendable func bundleError(_ error: any Error) -> LockerError {
            error as? LockerError ?? LockerError.io("cannot encode the bundle: \(error)")
        }
        let layout: BundleWriter.Layout
        do {
            layout = try writer.render(
                documents: documents, assets: assets.all, into: sink,
                progress: ProgressCounter(progress, .bundling, total: documents.count))
        } catch {
            throw bundleError(error)
        }
        var site =
            vault.site?.builder
            ?? siteBuilder(
                settings: settings, templates: templates, surfaceSHA256: surfaceSHA256, sink: sink,
                keys: vault.sortKeys, runs: vault.order.runs, pages: pages, assets: assets)
        site.inputSources?.bundleFiles = layout.documentSHA256s
        let pagesSite = vault.site ?? site.prepare()
        // The manifest and the record are written while the site is rendered (the longer of the
        // two, and on one core for part of it).
        let bundle = writer
        let (manifest, rendered) = try Self.concurrently {
            do {
                let manifest = try bundle.writeManifest(of: layout, into: sink)
                if recording, let program, let surfaceSHA256 {
                    let record = NoteRecord(
                        program: program, config: settings.hash, linkSurface: surfaceSHA256, notes: [])
                    try record.write(
                        runs: noteRecordRuns(vault, indexed: indexed, parsed: parsed, layout: layout),
                        noteCount: noteCount, into: sink)
                }
                return manifest
            } catch {
                throw bundleError(error)
            }
        } and: {
            try site.render(
                documents, with: pagesSite, into: sink,
                progress: ProgressCounter(progress, .rendering, total: documents.count))
        }
        var workingSet: [any Sendable] = [layout]
        if let previous { workingSet.append(previous) }
        if let tables = rendered.tables { workingSet.append(tables) }
        return WrittenOutput(
            manifest: manifest, pageCount: rendered.pageCount, templateTime: site.templateClock.total,
            workingSet: workingSet)
    }

    /// The site of the documents with these keys (in order), runs of one kind and ID, landing
    /// pages and vault files.
    func siteBuilder(
        settings: Settings, templates: TemplateSet, surfaceSHA256: String?, sink: some OutputSink,
        keys: [DocumentSortKey], runs: [Range<Int>], pages: [LandingPage], assets: AssetCatalog
    ) -> SiteBuilder {
        let config = settings.config
        var site = SiteBuilder(
            config: config, templates: templates, baseURL: baseURL ?? config.baseURL, keys: keys, pages: pages,
            assets: assets)
        site.versionRuns = runs
        site.pageSkeletons = environment["LOCKER_PAGE_SKELETONS"] != "off"
        // Without a way to tell this program from the next, pages are always rendered.
        if sink.recordsInputs, let surfaceSHA256, let program = BuildFingerprint.program {
            site.inputSources = SiteBuilder.InputSources(linkSurface: surfaceSHA256, program: program, bundleFiles: [])
        }
        return site
    }

    /// The note record's entries in runs (all of the record but its first bytes, which hold the
    /// site's inputs).
    private func noteRecordRuns(
        _ vault: BuiltVault, indexed: IndexedVault, parsed: ParsedVault, layout: BundleWriter.Layout
    ) -> [[UInt8]] {
        let (notes, documents, documentPlaces, built): ([ParsedNote], [Document], [Int], [Compiler.Built]) = (
            indexed.notes, vault.documents, vault.documentPlaces, vault.built
        )
        let (fileStamps, parseDiagnostics, settled, currentHashes) = (
            parsed.stamps, parsed.guideDiagnostics, parsed.settled, parsed.hashes
        )
        // Each guide's document, by its note's place: its index entry is copied out only
        // for a guide built again.
        var guideOffsets = [Int?](repeating: nil, count: notes.count)
        for (offset, document) in documents.enumerated() where document.kind == .guide {
            let place = documentPlaces[offset]
            guard place >= 0, place < guideOffsets.count else { continue }
            guideOffsets[place] = offset
        }
        let guides = guideOffsets
        /// The note's stamp for the record: kept only once it has settled.
        @Sendable func stamp(_ noteIndex: Int) -> FileStamp? {
            guard noteIndex < fileStamps.count, let stamp = fileStamps[noteIndex] else { return nil }
            return stamp.changedSeconds < settled ? stamp : nil
        }
        /// The guide kept unread from the record, when it keeps the bundle file it had: the
        /// record's own, as it was.
        let kept = vault.keptGuides
        @Sendable func keptGuide(_ noteIndex: Int, document offset: Int) -> NoteRecord.KeptGuide? {
            guard noteIndex < kept.count, let guide = kept[noteIndex],
                layout.documentFile(offset, is: guide.bundleSHA256, size: guide.bundleSize)
            else { return nil }
            return guide
        }
        return NoteRecord.encodedRuns(count: notes.count) { noteIndex -> NoteRecord.Entry in
            let note = notes[noteIndex]
            var entry = NoteRecord.Entry(path: note.path, stamp: stamp(noteIndex), sha256: currentHashes[noteIndex])
            if note.kind == .guide, let offset = guides[noteIndex], offset < layout.documentCount {
                if let kept = keptGuide(noteIndex, document: offset) {
                    entry.guide = kept
                    return entry
                }
                let file = layout.documentFile(offset)
                let result = built[noteIndex]
                entry.guide = NoteRecord.KeptGuide(
                    id: note.id, idPosition: note.idPosition, locale: note.locale,
                    explicitLocale: note.explicitLocale, aliases: note.frontmatter.aliases, basePath: note.basePath,
                    frontmatterID: note.frontmatter.id, frontmatterKind: note.frontmatter.kind?.rawValue,
                    frontmatterType: note.frontmatter.type,
                    parseDiagnostics: (noteIndex < parseDiagnostics.count ? parseDiagnostics[noteIndex] : [])
                        + result.bodyDiagnostics,
                    diagnostics: result.diagnostics, reads: result.reads, assets: result.assets,
                    entry: documents[offset].indexEntry,
                    bundleSHA256: file.sha256, bundleSize: file.size)
            }
            return entry
        }
    }
}
