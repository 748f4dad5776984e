import Foundation
import LockerKit

/// The result of reading and checking a vault, and of laying out its bundle when it is clean.
public struct Compilation: Sendable {
    /// Every problem found, sorted by file and position; warnings raised to errors under `strict`.
    public var diagnostics: [Diagnostic]
    /// How many notes were read.
    public var noteCount: Int
    /// Every document, sorted by kind, ID and locale: what the views below are taken from, when
    /// asked for (a build into memory of 10,000 notes need not copy them).
    var documents: [Document] = [] {
        didSet { idCounts = nil }
    }
    /// The guides built, sorted by ID and locale; without those kept from the previous build
    /// unbuilt (``keptGuides``).
    public var guides: [Guide] {
        documents.compactMap { if case .guide(let guide) = $0 { guide } else { nil } }
    }
    /// The IDs of the guides `locker build` kept from the previous build in its output without
    /// building them again, their note and every note they show being unchanged (one per locale).
    public var keptGuides: [String] {
        documents.compactMap { if case .kept(let kept) = $0 { kept.id } else { nil } }
    }
    /// How many documents of `kind` there are, each ID counted once whatever its locales: the
    /// documents are sorted by kind and ID, so an ID's versions are side by side.
    public func idCount(of kind: ContentKind) -> Int {
        (idCounts ?? Self.idCounts(of: documents))[kind] ?? 0
    }
    /// ``idCount(of:)`` of every kind, counted by a build as it sorted the documents
    /// (``DocumentOrder``; the count looked at every document again, the last thing a rebuild
    /// did before its commit).
    var idCounts: [ContentKind: Int]?

    /// How many documents of each kind there are, each ID counted once, in one pass.
    static func idCounts(of documents: [Document]) -> [ContentKind: Int] {
        DocumentOrder(keys: documents.map { ($0.kind, $0.id, $0.locale) }).idCounts
    }
    /// The checklists built, sorted by ID and locale.
    public var checklists: [Checklist] {
        documents.compactMap { if case .checklist(let checklist) = $0 { checklist } else { nil } }
    }
    /// The decks built, sorted by ID and locale.
    public var decks: [Deck] {
        documents.compactMap { if case .deck(let deck) = $0 { deck } else { nil } }
    }
    /// The site's landing pages, sorted by order, ID and locale.
    var pages: [LandingPage] = []
    /// How many HTML pages the site has (`index.html` files), every locale and variant counted.
    public var sitePageCount = 0
    /// How long the pages rendered (not those kept from the previous build) took in their
    /// templates, summed over threads; nil when no site was rendered.
    public var templateTime: TemplateTime?
    /// Checklist items and cards whose IDs are derived from their text: what `locker ids --write` writes.
    public var stamps: [IDStamp] = []
    /// The output files, relative to the output folder, sorted by path, when compiled into
    /// memory; empty when the vault has errors or the files went to another ``OutputSink``.
    public var files: [OutputFile]
    /// The bundle's manifest, as written.
    public var writtenManifest: WrittenManifest?
    /// The bundle's manifest, its files sorted when asked for.
    public var manifest: Manifest? { writtenManifest?.manifest }
    /// The vault's settings, as read from `locker.yml`.
    public var config = VaultConfig()
    /// What the compile made on the way to its result: the parsed notes, their link tables and
    /// what linking built, the bundle's layout, the site's tables, the note record written and the
    /// one read. Kept with the result, so
    /// that a one-shot command can exit without freeing them object by object (see
    /// `exitKeeping` in the `locker` command); freed with the compilation otherwise.
    var workingSet: [any Sendable] = []

    /// The folder of the output that holds the site (the bundles are in `BundleSchema.folder`).
    public static let siteFolder = SiteBuilder.folder

    /// Whether the run fails: any error (warnings count as errors under `strict`).
    public var failed: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Runs the pipeline over a vault: scan → parse → resolve → validate → emit.
///
/// Stages are values in, values and diagnostics out; nothing is written here (see ``OutputWriter``).
public struct Compiler: Sendable {
    public var vault: URL
    /// Warnings fail the run.
    public var strict: Bool
    /// A folder inside the vault that is not content (the output folder).
    public var skipping: [URL]
    /// Where `SOURCE_DATE_EPOCH` is read from.
    public var environment: [String: String]
    /// What earlier compilations made, reused where its inputs are unchanged (see ``BuildCache``).
    public var cache: BuildCache?
    /// Whether to lay out the bundle; `locker check` only checks.
    public var emit: Bool
    /// The site's public address, overriding `baseURL` in `locker.yml`.
    public var baseURL: String?
    /// Told what the compilation is doing, for a progress display.
    public var progress: (any BuildProgress)?
    /// The keys that sign the manifest, each adding its signature to the signature file
    /// (several while one key replaces another); none for an unsigned build.
    public var signingKeys: [SigningKey] = []
    /// The manifest's `version` when given (`--bundle-version`), in place of the content's time.
    public var bundleVersion: Int?
    /// The content's date once worked out: the fingerprint and the manifest both ask for it, and
    /// it may take a `git` process.
    private let contentDate = ContentDate()
    /// How long after its last change a note's stamp goes into the ``NoteRecord``, so that the
    /// next build trusts it without reading the note: a second save within the file system's
    /// clock tick would keep the stamp of the first (see ``BuildCache/Hashed``). Tests shorten it.
    var settlingTime = BuildCache.settlingTime

    public init(
        vault: URL, strict: Bool = false, skipping: [URL] = [], environment: [String: String] = [:],
        cache: BuildCache? = nil, emit: Bool = true, baseURL: String? = nil, progress: (any BuildProgress)? = nil
    ) {
        self.progress = progress
        self.emit = emit
        self.baseURL = baseURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        self.vault = vault
        self.strict = strict
        self.skipping = skipping
        self.environment = environment
        self.cache = cache
    }

    /// Reads and checks the vault; lays out the bundle in memory (``Compilation/files``) when
    /// nothing fails. Throws ``LockerError`` only when the vault itself cannot be read.
    public func compile() throws -> Compilation {
        let memory = MemoryOutput()
        var compilation = try compile(into: memory)
        compilation.files = memory.files
        return compilation
    }

    /// Reads and checks the vault; when nothing fails, writes the bundle and the site into `sink`
    /// as they are made. Throws ``LockerError`` only when the vault itself cannot be read or the
    /// sink cannot be written.
    ///
    /// - Parameter fingerprint: the ``BuildFingerprint`` taken for this build just before it:
    ///   the stamps of the vault's files it took stand in for a `stat` per note. A note saved
    ///   in between is built as it was then, or read as it is now under its earlier stamp;
    ///   either way the next fingerprint and build see the new stamp.
    public func compile(into sink: some OutputSink, taking fingerprint: BuildFingerprint? = nil) throws -> Compilation {
        try compile(into: sink, usingRecord: true, walk: fingerprint?.walk)
    }

    /// Compiles into `sink`, keeping guides from the previous build's ``NoteRecord`` when
    /// `usingRecord` and the sink has one that holds for this build.
    private func compile(
        into sink: some OutputSink, usingRecord: Bool, walk: VaultWalk? = nil
    ) throws -> Compilation {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: vault.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw LockerError.io("no vault folder at \(vault.path)")
        }
        var diagnostics: [Diagnostic] = []
        cache?.start()
        var emitted = false
        defer { cache?.finish(emitted: emitted) }

        // Configuration.
        var config = VaultConfig()
        var configData: Data?
        let configURL = vault.appendingPathComponent(VaultConfig.fileName)
        if fileManager.fileExists(atPath: configURL.path) {
            let bytes: [UInt8]
            do {
                bytes = try FileBytes.contents(of: configURL.path)
            } catch {
                throw LockerError.io("cannot read \(configURL.path): \(error)")
            }
            configData = Data(bytes)
            let (decoded, decodeDiagnostics) = SourceDecoder(
                maxBytes: 1 << 20, sizeHint: "keep the settings under 1 MiB"
            ).decode(bytes, file: VaultConfig.fileName)
            diagnostics += decodeDiagnostics.filter { $0.severity != .warning }
            if let decoded {
                let (parsed, configDiagnostics) = VaultConfig.parse(decoded.text)
                config = parsed
                diagnostics += configDiagnostics
            }
        }

        if emit { TemplateSet.parseDefaultsAhead() }
        progress?.update(.scanning, done: 0, total: 0)
        // Scan.
        let scanner = VaultScanner(
            root: vault, config: config, skipping: skipping.map { $0.standardizedFileURL.path })
        // The files the fingerprint's walk found, when it was taken for this build: the folders
        // are not read again.
        let listing = try walk.flatMap(scanner.listing(of:)) ?? scanner.scan()
        diagnostics += listing.diagnostics

        // What the previous build recorded of each note, when it holds for this one: the
        // same program and settings. A build into memory or with a cache records nothing.
        let configHash = configData.map { ContentHash.sha256Hex($0) } ?? ""
        let program = BuildFingerprint.program
        let recording = cache == nil && sink.recordsInputs && program != nil
        let previous =
            recording && usingRecord
            ? NoteRecord.read(from: sink)
                .flatMap { $0.program == program && $0.config == configHash ? $0 : nil }
            : nil

        // A stamp goes into the record only when the note had not changed for `settlingTime`
        // before it was read: taken now, before any note is read.
        let settled = Int64(time(nil)) - Int64(settlingTime)

        // Parse, in parallel.
        let parsed = parseNotes(
            listing.notes, config: config, configHash: configHash, previous: previous, hashing: recording)
        var notes: [ParsedNote] = []
        // Each note's content hash ("" when not hashed), by its place in `notes`.
        var noteHashes: [String] = []
        // For the next build's record: each note's stamp, and a guide's parse diagnostics, by
        // its place in `notes`.
        var fileStamps: [FileStamp?] = []
        var parseDiagnostics: [[Diagnostic]] = []
        for (note, noteDiagnostics, sha256, stamp) in parsed {
            diagnostics += noteDiagnostics
            if let note {
                notes.append(note)
                noteHashes.append(sha256 ?? "")
                if recording {
                    fileStamps.append(stamp)
                    parseDiagnostics.append(note.kind == .guide ? noteDiagnostics : [])
                }
            }
        }

        // Identity: decks gather their notes, then documents must not share an ID.
        let catalog = DeckCatalog(notes: &notes, config: config)
        diagnostics += catalog.diagnostics
        let cache = self.cache
        // Sorted by their bytes, as the scanner lists them.
        let assetPaths = listing.assets.map(\.path)
        let linkSurface =
            cache != nil || sink.recordsInputs
            ? LinkSurface(config: configData, notes: notes, assets: assetPaths, decks: catalog.groups) : nil
        let surface = linkSurface.flatMap { cache?.identify($0) } ?? 0
        // Its hash, for the record and the page inputs: hashed once (the surface of 10,000 notes
        // is 640 kB, hashed three times in every rebuild, twice on one core).
        let surfaceSHA256 = sink.recordsInputs ? linkSurface?.sha256 : nil
        // The surface holds every note's kind, ID and locale: while it is the one a build found
        // no two documents sharing an ID under, none do. So it is for the surface the record was
        // written under: only a build without errors writes one.
        let recordedSurface = previous.map { $0.linkSurface == surfaceSHA256 } ?? false
        if !(cache?.hasNoDuplicateIDs(surface: surface) ?? false), !recordedSurface {
            let duplicates = Self.duplicateIDs(notes.filter { $0.kind != .deck })
            diagnostics += duplicates
            if duplicates.isEmpty, surface != 0 { cache?.foundNoDuplicateIDs(surface: surface) }
        }

        // Resolve and build, in parallel.
        // Guides are kept from the record only while the vault's shape is the one it was written
        // under: every note keeps its place, kind, ID and locale. Otherwise the notes kept unread
        // are read after all, by compiling again without the record.
        let keeping = recordedSurface && previous?.notes.count == notes.count
        if previous != nil, !keeping, notes.contains(where: \.isHollow) {
            return try compile(into: sink, usingRecord: false, walk: walk)
        }
        // Each note's content hash by its place, what built results are traced and kept by.
        let currentHashes = cache != nil || recording ? noteHashes : []
        let assets = AssetCatalog(root: vault)
        let keptNotes = notes
        // The record's notes while guides are kept from it. (Read through `previous`, the whole
        // record was copied for every note, a dozen references retained on both cores at once.)
        let recordedNotes = keeping ? previous?.notes ?? [] : []
        /// A guide the record keeps: its note and every note it read have their recorded hashes,
        /// and every vault file it embeds its recorded state.
        @Sendable func kept(_ noteIndex: Int) -> NoteRecord.KeptGuide? {
            guard noteIndex < recordedNotes.count, noteIndex < currentHashes.count,
                let guide = recordedNotes[noteIndex].guide
            else { return nil }
            let note = keptNotes[noteIndex]
            guard note.kind == .guide, recordedNotes[noteIndex].path == note.path,
                recordedNotes[noteIndex].sha256 == currentHashes[noteIndex]
            else { return nil }
            // The record's places are checked when it is read: each is one of its notes.
            for place in guide.reads
            where place >= recordedNotes.count || place >= currentHashes.count
                || recordedNotes[place].sha256 != currentHashes[place]
            {
                return nil
            }
            return BuildTrace.holds(guide.assets, in: assets) ? guide : nil
        }
        // Which guides the record keeps, by place: decided before the link tables are made,
        // which a rebuild that links only a few notes does not build (``VaultIndex``).
        let keptGuides = keeping ? Self.parallelMap(Array(notes.indices), kept) : []
        let linkedCount = notes.count - keptGuides.count { $0 != nil }
        var linkTables =
            cache?.index(for: surface)?.replacingNotes(notes)
            ?? VaultIndex(notes: notes, assets: assetPaths, scanningFirst: linkedCount <= Self.fewLinkedNotes)
        cache?.keep(linkTables, for: surface)
        let loader = previous.map { _ in
            NoteLoader(vault: vault, parser: NoteParser(config: config), hashes: currentHashes)
        }
        linkTables.loader = loader
        let index = linkTables
        let resolver = LinkResolver(
            index: index, unresolvedSeverity: config.unresolvedLinks, preference: config.localePreference)
        let embedDepth = config.embedDepth
        let linking = ProgressCounter(progress, .linking, total: notes.count)
        // What builds a kept guide when it is asked for: one object that every kept document
        // shares, rather than the link tables copied into each one's closure.
        let keptBuilder = KeptGuideBuilder(index: index, resolver: resolver, assets: assets, embedDepth: embedDepth)
        /// What a builder's result was made from.
        @Sendable func trace(of builder: DocumentBuilder) -> BuildTrace {
            BuildTrace(
                surface: surface,
                notes: builder.reads.sorted().map { ($0, $0 < currentHashes.count ? currentHashes[$0] : "") },
                assets: builder.assetUses.sorted { ($0.path, $0.bundled ? 1 : 0) < ($1.path, $1.bundled ? 1 : 0) })
        }
        /// Whether a result built earlier still holds: nothing it was made from changed.
        @Sendable func stillHolds(_ trace: BuildTrace) -> Bool {
            trace.holds(surface: surface, hashes: currentHashes, assets: assets)
        }
        let built = Self.parallelMap(Array(notes.indices)) { noteIndex -> Built in
            defer { linking.tick() }
            let note = index.notes[noteIndex]
            if note.kind == .deck { return Built() }
            if noteIndex < keptGuides.count, let guide = keptGuides[noteIndex] {
                let document = KeptDocument(source: note.path, guide: guide, place: noteIndex, builder: keptBuilder)
                return Built(
                    document: .kept(document), diagnostics: guide.diagnostics, reads: guide.reads, assets: guide.assets)
            }
            if let reused = cache?.linked.lookup(note.path, where: { stillHolds($0.trace) }) {
                return Built(
                    document: reused.document, page: reused.page, diagnostics: reused.diagnostics,
                    serial: reused.serial)
            }
            var builder = DocumentBuilder(index: index, resolver: resolver, assets: assets, embedDepth: embedDepth)
            let result: (Document?, LandingPage?, [Diagnostic])
            switch note.kind {
            case .checklist:
                let (checklist, found) = builder.checklist(noteIndex)
                result = (.checklist(checklist), nil, found)
            case .page:
                let (page, found) = builder.landingPage(noteIndex)
                result = (nil, page, found)
            default:
                let (guide, found) = builder.guide(noteIndex)
                result = (.guide(guide), nil, found)
            }
            let serial = cache?.newSerial() ?? 0
            let made = cache != nil || recording ? trace(of: builder) : nil
            if let made {
                cache?.linked.store(
                    BuildCache.Linked(
                        trace: made, serial: serial, document: result.0, page: result.1, diagnostics: result.2),
                    for: note.path)
            }
            return Built(
                document: result.0, page: result.1, diagnostics: result.2, serial: serial,
                reads: made?.notes.map(\.place) ?? [], assets: made?.assets ?? [])
        }
        // The kinds whose every document is the record's, or has the index entry it recorded:
        // their indexes list what the previous build's listed.
        var unchangedListings: Set<ContentKind> = []
        if keeping, let previous,
            built.indices.allSatisfy({ place in
                guard case .guide(let guide)? = built[place].document else { return true }
                return place < previous.notes.count
                    && previous.notes[place].guide?.entry == Document.guide(guide).indexEntry
            })
        {
            unchangedListings.insert(.guide)
        }
        var documents: [Document] = []
        var pages: [LandingPage] = []
        // Which built result each document and landing page is: what later stages reuse by.
        var origins = BuildOrigins(linkSurface: surface)
        // Each document's serial, beside it.
        var serials: [Int] = []
        // Each document's note, by place (-1 for a deck).
        var documentPlaces: [Int] = []
        // Each field read where it lies: a result copied whole retained its five references.
        for place in built.indices {
            if let document = built[place].document {
                documents.append(document)
                serials.append(built[place].serial)
                documentPlaces.append(place)
            }
            if let page = built[place].page {
                pages.append(page)
                if cache != nil { origins.pages[BuildOrigins.key(page)] = built[place].serial }
            }
            if !built[place].diagnostics.isEmpty { diagnostics += built[place].diagnostics }
        }
        pages.sort { ($0.order ?? Int.max, $0.id, $0.locale) < ($1.order ?? Int.max, $1.id, $1.locale) }
        diagnostics += LandingPageIDChecker(locales: config.locales, defaultLocale: config.defaultLocale).check(
            pages, notes: notes)
        let templates = TemplateSet.load(vault: vault)
        diagnostics += templates.diagnostics
        var stamps: [IDStamp] = []
        var versions: [VersionParts] = []
        let adopted = TranslationIDs.adopted(notes, config: config)
        for note in notes {
            guard let checklist = note.checklist, note.kind == .checklist else { continue }
            for item in checklist.items where !item.isExplicit {
                stamps.append(
                    IDStamp(
                        file: note.path, placement: .endOfLine(item.titleLine),
                        id: adopted[note.path]?[item.titleLine] ?? item.id, label: item.plainTitle.excerpt,
                        position: item.position))
            }
            versions.append(
                VersionParts(
                    kind: .checklist, id: note.id, locale: note.locale, source: note.path,
                    parts: checklist.items.map { PartSite(id: $0.id, file: note.path, position: $0.position) }))
        }
        let finalConfig = config
        let deckResults = Self.parallelMap(catalog.groups) { group in
            let key = group.path + "\u{0}" + group.id
            if let reused = cache?.decks.lookup(key, where: { stillHolds($0.trace) }) {
                return (
                    decks: reused.decks, diagnostics: reused.diagnostics, stamps: reused.stamps,
                    versions: reused.versions, serials: reused.serials
                )
            }
            var builder = DocumentBuilder(index: index, resolver: resolver, assets: assets, embedDepth: embedDepth)
            let result = builder.decks(group, config: finalConfig)
            // One serial per locale's deck: each is a document of its own.
            let serials = result.decks.map { _ in cache?.newSerial() ?? 0 }
            cache?.decks.store(
                BuildCache.BuiltDeck(
                    trace: trace(of: builder), serials: serials, decks: result.decks, diagnostics: result.diagnostics,
                    stamps: result.stamps, versions: result.versions),
                for: key)
            return (
                decks: result.decks, diagnostics: result.diagnostics, stamps: result.stamps,
                versions: result.versions, serials: serials
            )
        }
        for result in deckResults {
            serials += result.serials
            documents += result.decks.map { .deck($0) }
            documentPlaces += result.decks.map { _ in -1 }
            diagnostics += result.diagnostics
            stamps += result.stamps
            versions += result.versions
        }
        // Sorted by kind, ID and locale, by keys read once: a document's fields are read through
        // its case, and reading them in every comparison retained them. Documents that come in
        // that order already (notes named as they are known) are not moved.
        let keys = documents.map { (kind: $0.kind, id: $0.id, locale: $0.locale) }
        let documentOrder = DocumentOrder(keys: keys)
        if let order = documentOrder.order {
            documents = order.map { documents[$0] }
            documentPlaces = order.map { documentPlaces[$0] }
            serials = order.map { serials[$0] }
        }
        let idCounts = documentOrder.idCounts
        if cache != nil { origins.documents = serials }
        diagnostics += TranslationChecker(config: config, strict: strict).check(documents, versions: versions)
        // A note kept unread but needed by a guide or deck built again, and saved since it was
        // recorded, fails the build rather than ship what the empty stand-in gave.
        diagnostics += loader?.problems ?? []

        diagnostics = diagnostics.escalated(strict: strict).sorted(by: Diagnostic.ordered)
        var compilation = Compilation(diagnostics: diagnostics, noteCount: listing.notes.count, files: [])
        compilation.documents = documents
        compilation.idCounts = idCounts
        compilation.config = config
        compilation.pages = pages
        // A one-shot build keeps them to exit without freeing them; `serve`, which builds again
        // and again (and has a cache), lets them go.
        // (The parse's results, the documents' sort keys and the kept guides too: 10,000 values
        // each, whose arrays freed element by element took 2 ms of the build's one core.)
        if cache == nil { compilation.workingSet = [notes, index, built, parsed, keys, keptGuides] }
        compilation.stamps = stamps.sorted { ($0.file, $0.position) < ($1.file, $1.position) }
        guard !compilation.failed, emit else { return compilation }

        // Emit.
        emitted = true
        if let cache {
            origins.listings = cache.listingVersions(of: documents, serials: origins.documents, surface: surface)
        }
        var writer = BundleWriter(config: config, generatedAt: generatedAt(), cache: cache, origins: origins)
        let contentTime = contentTime()
        writer.version = bundleVersion ?? contentTime
        writer.expires = contentTime.flatMap { Self.expiry(of: $0, days: config.manifestExpiryDays) }
        // An app refuses a signed manifest without both: sign none it would refuse.
        if !signingKeys.isEmpty, writer.version == nil || writer.expires == nil {
            guard let contentTime else { throw LockerError.usage(Self.untimedSigning) }
            throw LockerError.usage(Self.unexpiringSigning(contentTime: contentTime, days: config.manifestExpiryDays))
        }
        writer.signingKeys = signingKeys
        writer.unchangedListings = unchangedListings
        writer.previousIndexes = previous?.indexes ?? []
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
        var site = SiteBuilder(
            config: config, templates: templates, baseURL: baseURL ?? config.baseURL, documents: documents,
            pages: pages,
            assets: assets, cache: cache, origins: origins)
        site.versionRuns = documentOrder.runs
        site.pageSkeletons = environment["LOCKER_PAGE_SKELETONS"] != "off"
        // Without a way to tell this program from the next, pages are always rendered.
        if sink.recordsInputs, let surfaceSHA256, let program {
            site.inputSources = SiteBuilder.InputSources(
                linkSurface: surfaceSHA256, program: program, bundleFiles: layout.documentSHA256s,
                previousSite: previous?.pageSite, unchangedListings: unchangedListings)
        }
        // The record's notes' entries in runs, when this build records one: all of the record
        // but its first bytes, which hold the site's inputs (`writeRecord`).
        let recordNotes = {
            @Sendable [notes, documents, documentPlaces, fileStamps, parseDiagnostics, recordedNotes] ()
                -> [[UInt8]?]? in
            guard recording, program != nil, surfaceSHA256 != nil else { return nil }
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
            @Sendable func keptGuide(_ noteIndex: Int, document offset: Int) -> NoteRecord.KeptGuide? {
                guard case .kept(let kept)? = built[noteIndex].document,
                    layout.documentFile(offset, is: kept.bundleSHA256, size: kept.bundleSize)
                else { return nil }
                return kept.guide
            }
            /// Whether the record's entry for the note is its entry now, byte for byte: the same
            /// path, settled stamp and content hash, and the guide kept from it, or no guide.
            @Sendable func asRecorded(_ noteIndex: Int) -> Bool {
                guard noteIndex < recordedNotes.count, let recordedStamp = recordedNotes[noteIndex].stamp,
                    stamp(noteIndex) == recordedStamp,
                    recordedNotes[noteIndex].sha256.hasSameBytes(as: currentHashes[noteIndex]),
                    recordedNotes[noteIndex].path.hasSameBytes(as: notes[noteIndex].path)
                else { return false }
                guard notes[noteIndex].kind == .guide, let offset = guides[noteIndex], offset < layout.documentCount
                else { return recordedNotes[noteIndex].guide == nil }
                guard let recordedGuide = recordedNotes[noteIndex].guide else { return false }
                return keptGuide(noteIndex, document: offset) === recordedGuide
            }
            return NoteRecord.encodedRuns(
                count: notes.count, reusing: previous, asRecorded: asRecorded, leavingUnchanged: true
            ) { noteIndex -> NoteRecord.Entry in
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
                        parseDiagnostics: noteIndex < parseDiagnostics.count ? parseDiagnostics[noteIndex] : [],
                        diagnostics: result.diagnostics, reads: result.reads, assets: result.assets,
                        entry: documents[offset].indexEntry,
                        bundleSHA256: file.sha256, bundleSize: file.size)
                }
                return entry
            }
        }
        let noteCount = notes.count
        /// Writes the record, its notes' entries made by `recordNotes`: a run left out (nil) is
        /// the previous record's, whose file is kept as it is.
        @Sendable func writeRecord(_ runs: [[UInt8]?]?, pageSite: String) throws {
            guard let runs, let program, let surfaceSHA256 else { return }
            let record = NoteRecord(
                program: program, config: configHash, linkSurface: surfaceSHA256, pageSite: pageSite,
                indexes: layout.indexFiles, notes: [])
            try record.write(runs: runs, noteCount: noteCount, previous: previous, into: sink)
        }
        // The manifest and the record are written while the site is rendered (the longer of the
        // two, and on one core for part of it): the record holds what the site's pages are made
        // from, worked out first. (Written after the site, the record's 3.5 MB were the only
        // work of a rebuild for 1.6 ms.)
        let bundle = writer
        let prepared = site.prepare()
        let pageSite = prepared.inputs?.site ?? ""
        let (manifest, rendered) = try Self.concurrently {
            do {
                let manifest = try bundle.writeManifest(of: layout, into: sink)
                try writeRecord(recordNotes(), pageSite: pageSite)
                return manifest
            } catch {
                throw bundleError(error)
            }
        } and: {
            try site.render(
                into: sink, progress: ProgressCounter(progress, .rendering, total: documents.count), prepared: prepared)
        }
        compilation.writtenManifest = manifest
        compilation.sitePageCount = rendered.pageCount
        compilation.templateTime = site.templateClock.total

        // Kept to exit too, as the notes are: freeing 10,000 files' entries takes milliseconds.
        if cache == nil {
            compilation.workingSet.append(layout)
            if let previous { compilation.workingSet.append(previous) }
            if let tables = rendered.tables { compilation.workingSet.append(tables) }
        }
        return compilation
    }

    /// How many notes a build links at most for its link tables to be built only when its
    /// questions grow many (``VaultIndex/init(notes:assets:scanningFirst:)``).
    static let fewLinkedNotes = 8

    /// What linking one note made.
    private struct Built: Sendable {
        var document: Document?
        var diagnostics: [Diagnostic]
        var serial: Int
        /// For the record: the notes read, by place, and the vault files embedded.
        var reads: [Int]
        var assets: [AssetUse]
        /// The landing page, kept out of line: a page takes 440 bytes, and few notes are pages,
        /// while every note's result had room for one (4 MB of a rebuild's memory, each byte
        /// touched for the first time).
        private var boxedPage: BoxedPage?

        private indirect enum BoxedPage: Sendable {
            case page(LandingPage)
        }

        var page: LandingPage? {
            guard case .page(let page)? = boxedPage else { return nil }
            return page
        }

        init(
            document: Document? = nil, page: LandingPage? = nil, diagnostics: [Diagnostic] = [], serial: Int = 0,
            reads: [Int] = [], assets: [AssetUse] = []
        ) {
            self.document = document
            boxedPage = page.map { .page($0) }
            self.diagnostics = diagnostics
            self.serial = serial
            self.reads = reads
            self.assets = assets
        }
    }

    /// Each note parsed, with its content hash when a cache or the record wants it, and its stamp
    /// when the record does. A guide the previous build's record holds with the same stamp, or
    /// the same content hash, is not parsed: it stands as a hollow note (``ParsedNote/hollow(path:kept:)``).
    private func parseNotes(
        _ files: [VaultFile], config: VaultConfig, configHash: String, previous: NoteRecord?, hashing: Bool
    ) -> [(note: ParsedNote?, diagnostics: [Diagnostic], sha256: String?, stamp: FileStamp?)] {
        let parser = NoteParser(config: config)
        let cache = self.cache
        let parsing = ProgressCounter(progress, .parsing, total: files.count)
        // A file whose stamp is unchanged is not read again, unless it changed just before it
        // was last read: a save in the same clock tick keeps its stamp.
        let settled = time(nil) - (cache?.settlingTime ?? 0)
        // Each note's entry in the record: at its own place while the vault lists the notes the
        // record does, in its order (the shape a record is kept under); else looked up by path.
        let recordedNotes = previous?.notes ?? []
        let aligned =
            recordedNotes.count == files.count
            // By place: zipping them copied every entry and file (their strings retained).
            && files.indices.allSatisfy { recordedNotes[$0].path.hasSameBytes(as: files[$0].path) }
        let recorded =
            aligned
            ? [:]
            : Dictionary(
                recordedNotes.enumerated().compactMap { $0.element.guide == nil ? nil : ($0.element.path, $0.offset) },
                uniquingKeysWith: { first, _ in first })
        /// The note as the record keeps it, unread, when it has the recorded hash.
        @Sendable func hollow(_ file: VaultFile, _ entry: NoteRecord.Entry?, sha256: String, stamp: FileStamp?)
            -> (note: ParsedNote?, diagnostics: [Diagnostic], sha256: String?, stamp: FileStamp?)?
        {
            guard let entry, let guide = entry.guide, entry.sha256 == sha256 else { return nil }
            return (ParsedNote.hollow(path: file.path, kept: guide), guide.parseDiagnostics, sha256, stamp)
        }
        return Self.parallelMap(Array(files.indices)) { place in
            defer { parsing.tick() }
            let stamp = cache != nil || hashing ? files[place].stamp ?? FileStamp(path: files[place].absolutePath) : nil
            // A guide the record keeps at this place with this stamp, read field by field: the
            // file and the record's entry copied whole retained seven references a note.
            if cache == nil, aligned, let stamp, recordedNotes[place].stamp == stamp,
                let guide = recordedNotes[place].guide
            {
                return (
                    ParsedNote.hollow(path: files[place].path, kept: guide), guide.parseDiagnostics,
                    recordedNotes[place].sha256, stamp
                )
            }
            let file = files[place]
            if let cache, let stamp, let known = cache.hashes.lookup(file.path, where: { $0.stamp == stamp }),
                let cached = cache.parses.lookup(
                    BuildCache.ParseKey(path: file.path, sha256: known.sha256, config: configHash))
            {
                return (cached.0, cached.1, known.sha256, stamp)
            }
            let entry = aligned ? recordedNotes[place] : recorded[file.path].map { recordedNotes[$0] }
            if let entry, let stamp, entry.stamp == stamp,
                let kept = hollow(file, entry, sha256: entry.sha256, stamp: stamp)
            {
                return kept
            }
            let bytes: [UInt8]
            do {
                bytes = try FileBytes.contents(of: file.absolutePath)
            } catch {
                return (
                    nil, [Diagnostic(.error, .fileUnreadable, "cannot read the file: \(error)", file: file.path)], nil,
                    stamp
                )
            }
            guard let cache else {
                guard hashing else {
                    let (note, diagnostics) = parser.parse(path: file.path, bytes: bytes)
                    return (note, diagnostics, nil, stamp)
                }
                let sha256 = ContentHash.sha256Hex(bytes)
                if let kept = hollow(file, entry, sha256: sha256, stamp: stamp) { return kept }
                let (note, diagnostics) = parser.parse(path: file.path, bytes: bytes)
                return (note, diagnostics, sha256, stamp)
            }
            let key = BuildCache.ParseKey(path: file.path, sha256: ContentHash.sha256Hex(bytes), config: configHash)
            if let stamp, stamp.changedSeconds < settled {
                cache.hashes.store(BuildCache.Hashed(stamp: stamp, sha256: key.sha256), for: file.path)
            }
            if let cached = cache.parses.lookup(key) { return (cached.0, cached.1, key.sha256, stamp) }
            let result = parser.parse(path: file.path, bytes: bytes)
            cache.parses.store(result, for: key)
            return (result.0, result.1, key.sha256, stamp)
        }
    }

    /// Errors for documents of one kind and locale that share an ID, or whose IDs differ only in
    /// case: their pages would share a folder on a file system that ignores case (macOS,
    /// Windows), and the build's output would depend on the machine.
    static func duplicateIDs(_ notes: [ParsedNote]) -> [Diagnostic] {
        struct Key: Hashable {
            var kind: ContentKind
            var locale: String
            var id: String
        }
        var first: [Key: ParsedNote] = [:]
        var diagnostics: [Diagnostic] = []
        for note in notes {
            let key = Key(kind: note.kind, locale: note.locale, id: note.id.lowercased())
            if let earlier = first[key] {
                diagnostics.append(
                    Diagnostic(
                        .error, .idDuplicate,
                        Self.duplicateIDMessage(
                            kind: note.kind, id: note.id, locale: note.locale, earlierID: earlier.id,
                            earlierPath: earlier.path),
                        file: note.path, at: note.idPosition,
                        hint:
                            "give one of them a different 'id:' in its frontmatter, or a 'lang:' if it is a translation"
                    ))
            } else {
                first[key] = note
            }
        }
        return diagnostics
    }

    /// What `id.duplicate` says of a document or deck whose ID (`id`, in `locale`) an earlier one
    /// has, or has in other case.
    static func duplicateIDMessage(
        kind: ContentKind, id: String, locale: String, earlierID: String, earlierPath: String
    ) -> String {
        earlierID == id
            ? "\(kind) id '\(id)' (\(locale)) is already used by \(earlierPath)"
            : "\(kind) id '\(id)' (\(locale)) differs only in case from '\(earlierID)' of \(earlierPath): "
                + "their pages would share a folder on macOS"
    }

    /// The content's date: `SOURCE_DATE_EPOCH`, else the vault's last git commit; never the clock.
    public func generatedAt() -> String? {
        contentTime().map(Self.internetDateTime)
    }

    /// The content's time in seconds since 1970, which ``generatedAt()`` writes as a date:
    /// `SOURCE_DATE_EPOCH`, else the vault's last git commit; nil when neither is known.
    public func contentTime() -> Int? {
        contentDate.value {
            environment["SOURCE_DATE_EPOCH"].flatMap { Int($0.trimmingWhitespace) } ?? LastCommit.time(of: vault)
        }
    }

    /// Why a signed build without the content's time stops: an app refuses a signed manifest
    /// without a `version` and an `expires`, and the expiry counts from the content's time, so
    /// a version given with `--bundle-version` is not enough.
    public static let untimedSigning =
        "a signed build needs the content's time, which its manifest's expiry counts from, and it is unknown: "
        + "set SOURCE_DATE_EPOCH or commit the vault to git (--bundle-version sets the version, not the time)"

    /// Why a signed build whose expiry is past what a date can say stops (an app refuses a
    /// signed manifest without one): the content's time `contentTime`, `days` later, is past
    /// 9999-12-31 (or the integers).
    public static func unexpiringSigning(contentTime: Int, days: Int) -> String {
        let time = "the content's time (\(contentTime) s since 1970, from SOURCE_DATE_EPOCH or git)"
        let fix = "set SOURCE_DATE_EPOCH to the content's time in seconds since 1970"
        return contentTime > latestExpiry
            ? "a signed build needs an expiry, and \(time) is past the year 9999: \(fix)"
            : "a signed build needs an expiry, and \(time) plus manifestExpiryDays (\(days)) is past the year "
                + "9999: lower manifestExpiryDays in locker.yml, or \(fix)"
    }

    /// The latest time an `expires` says: 9999-12-31T23:59:59Z, as RFC 3339 years have four digits.
    static let latestExpiry = 253_402_300_799

    /// The manifest's `expires` for content of time `seconds`: `days` later; nil when that is
    /// past what a date can say (RFC 3339's four-digit years, or the integers).
    static func expiry(of seconds: Int, days: Int) -> String? {
        let (span, spanOverflow) = days.multipliedReportingOverflow(by: 86_400)
        let (time, overflow) = seconds.addingReportingOverflow(span)
        return spanOverflow || overflow || time > latestExpiry ? nil : internetDateTime(time)
    }

    /// `seconds` since 1970 as an RFC 3339 date and time in UTC (`2023-11-14T22:13:20Z`), as
    /// `ISO8601DateFormatter` writes it; written by hand for the years 1600 to 9999, which
    /// spares every build the formatter's start-up (milliseconds, as much as the rest of a
    /// no-change rebuild's set-up). The calendar date is worked out from the day number alone
    /// (the proleptic Gregorian calendar, days of 86,400 seconds), not by `gmtime`, which counts
    /// leap seconds under a `right/` time zone.
    static func internetDateTime(_ seconds: Int) -> String {
        // From 1600: the formatter's calendar is Julian before October 1582.
        guard (-11_676_096_000...253_402_300_799).contains(seconds) else {
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        var days = seconds / 86_400
        if seconds % 86_400 < 0 { days -= 1 }
        let time = seconds - days * 86_400
        let (year, month, day) = LocalDay(ordinal: days).components
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60))Z"
    }

    /// Whether ``parallelMap(_:_:)`` maps on the calling thread alone. The fuzzers set it: after
    /// an input that allocated more than it freed, libFuzzer searches the whole heap for leaks, and
    /// the worker threads' caches of dispatched work made that happen after most vault inputs.
    @TaskLocal static var onOneThread = false

    /// `0..<count` cut into runs of `length` (the last one shorter): work for ``parallelMap(_:_:)``
    /// in pieces larger than one item each.
    static func runs(of count: Int, length: Int) -> [Range<Int>] {
        stride(from: 0, to: count, by: length).map { $0..<min($0 + length, count) }
    }

    /// Runs `first` on another thread while `second` runs on this one, and returns both results
    /// once both are done; throws the first's error, else the second's.
    static func concurrently<First: Sendable, Second, Failure: Error>(
        _ first: @escaping @Sendable () throws(Failure) -> First, and second: () throws(Failure) -> Second
    ) throws(Failure) -> (First, Second) {
        if onOneThread { return (try first(), try second()) }
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<First, Failure>()
        DispatchQueue.global().async {
            result.value = Result { () throws(Failure) -> First in try first() }
            done.signal()
        }
        let secondResult = Result { () throws(Failure) -> Second in try second() }
        done.wait()
        // Set before the signal, so never run here.
        let firstResult = result.value ?? Result { () throws(Failure) -> First in try first() }
        return (try firstResult.get(), try secondResult.get())
    }

    /// Maps in parallel on every core, keeping the order of the input.
    static func parallelMap<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], _ transform: @Sendable (Input) -> Output
    ) -> [Output] {
        if onOneThread { return inputs.map(transform) }
        // Each input's result is written into its own slot, so no two threads touch the same
        // memory and none waits for a lock; the slots are read once every thread is done. The
        // threads take runs of consecutive inputs, many more runs than cores (so that one slow
        // input does not leave a core idle) but far fewer than inputs: taking inputs one by one,
        // the threads took turns on dispatch's shared counter and wrote slots side by side.
        let count = inputs.count
        let runs = min(count, 512)
        return [Output](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            let slots = Slots(base: base)
            DispatchQueue.concurrentPerform(iterations: runs) { run in
                for index in (run * count / runs)..<((run + 1) * count / runs) {
                    (slots.base + index).initialize(to: transform(inputs[index]))
                }
            }
            initialized = count
        }
    }
}

/// Builds a guide kept from the record when its document is asked for (``KeptDocument``): the
/// link tables and the resolver it needs, held once for all of them.
private final class KeptGuideBuilder: KeptGuideBuilding {
    let index: VaultIndex
    let resolver: LinkResolver
    let assets: AssetCatalog
    let embedDepth: Int

    init(index: VaultIndex, resolver: LinkResolver, assets: AssetCatalog, embedDepth: Int) {
        self.index = index
        self.resolver = resolver
        self.assets = assets
        self.embedDepth = embedDepth
    }

    /// The guide of the note at `place`, built now; throws when a note it reads changed since
    /// the record kept it.
    func guide(_ place: Int) throws -> Document {
        var builder = DocumentBuilder(index: index, resolver: resolver, assets: assets, embedDepth: embedDepth)
        let guide = builder.guide(place).0
        if let problem = index.loader?.problems.first {
            throw LockerError.io("cannot build \(problem.file): \(problem.message)")
        }
        return .guide(guide)
    }
}

/// Where ``Compiler/parallelMap(_:_:)`` writes its results: one slot per input, each written by
/// one thread.
private struct Slots<Value>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Value>
}

/// A compiler's content time, worked out at its first use and kept.
private final class ContentDate: @unchecked Sendable {
    private let lock = NSLock()
    private var date: Int??

    func value(_ compute: () -> Int?) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if let date { return date }
        let computed = compute()
        date = .some(computed)
        return computed
    }
}

/// Where a job on another thread leaves its result for ``Compiler/concurrently(_:and:)``, which
/// reads it only after the job signalled that it is done.
private final class ResultBox<Value, Failure: Error>: @unchecked Sendable {
    var value: Result<Value, Failure>?
}
