import Foundation
import LockerKit

/// The result of reading and checking a vault, and of laying out its bundle when it is clean.
public struct Compilation: Sendable {
    /// Every problem found, sorted by file and position; warnings raised to errors under `strict`.
    public var diagnostics: [Diagnostic]
    /// How many notes were read.
    public var noteCount: Int
    /// The guides built, sorted by ID and locale.
    public var guides: [Guide]
    /// The checklists built, sorted by ID and locale.
    public var checklists: [Checklist] = []
    /// The decks built, sorted by ID and locale.
    public var decks: [Deck] = []
    /// The site's landing pages, sorted by order, ID and locale.
    var pages: [LandingPage] = []
    /// How many HTML pages the site has (`index.html` files), every locale and variant counted.
    public var sitePageCount = 0
    /// Checklist items and cards whose IDs are derived from their text: what `locker ids --write` writes.
    public var stamps: [IDStamp] = []
    /// The output files, relative to the output folder, sorted by path, when compiled into
    /// memory; empty when the vault has errors or the files went to another ``OutputSink``.
    public var files: [OutputFile]
    public var manifest: Manifest?
    /// The vault's settings, as read from `locker.yml`.
    public var config = VaultConfig()
    /// What the compile made on the way to its result: the parsed notes and their link tables.
    /// Kept with the result, so that a one-shot command can exit without freeing them object by
    /// object (see `exitKeeping` in the `locker` command); freed with the compilation otherwise.
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
    /// The content's date once worked out: the fingerprint and the manifest both ask for it, and
    /// it may take a `git` process.
    private let contentDate = ContentDate()

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
    public func compile(into sink: some OutputSink) throws -> Compilation {
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

        progress?.update(.scanning, done: 0, total: 0)
        // Scan.
        let scanner = VaultScanner(
            root: vault, config: config, skipping: skipping.map { $0.standardizedFileURL.path })
        let listing = try scanner.scan()
        diagnostics += listing.diagnostics

        // Parse, in parallel.
        let parsed = parseNotes(listing.notes, config: config, configData: configData)
        var notes: [ParsedNote] = []
        var hashes: [String: String] = [:]
        for (note, noteDiagnostics, sha256) in parsed {
            diagnostics += noteDiagnostics
            if let note {
                notes.append(note)
                if let sha256 { hashes[note.path] = sha256 }
            }
        }

        // Identity: decks gather their notes, then documents must not share an ID.
        let catalog = DeckCatalog(notes: &notes, config: config)
        diagnostics += catalog.diagnostics
        diagnostics += Self.duplicateIDs(notes.filter { $0.kind != .deck })

        // Resolve and build, in parallel.
        let cache = self.cache
        // Sorted by their bytes, as the scanner lists them.
        let assetPaths = listing.assets.map(\.path)
        let linkSurface =
            cache != nil || sink.recordsInputs ? LinkSurface(config: configData, notes: notes, assets: assetPaths) : nil
        let surface = linkSurface.flatMap { cache?.identify($0) } ?? 0
        let index =
            cache?.index(for: surface)?.replacingNotes(notes)
            ?? VaultIndex(notes: notes, assets: assetPaths)
        cache?.keep(index, for: surface)
        let resolver = LinkResolver(
            index: index, unresolvedSeverity: config.unresolvedLinks, preference: config.localePreference)
        let assets = AssetCatalog(root: vault)
        let embedDepth = config.embedDepth
        let linking = ProgressCounter(progress, .linking, total: notes.count)
        // Each note's content hash by its place in the index, what results are traced by.
        let knownHashes = cache == nil ? [] : index.notes.map { hashes[$0.path] ?? "" }
        /// What a builder's result was made from.
        @Sendable func trace(of builder: DocumentBuilder) -> BuildTrace {
            BuildTrace(
                surface: surface,
                notes: builder.reads.sorted().map { ($0, $0 < knownHashes.count ? knownHashes[$0] : "") },
                assets: builder.assetUses.sorted { ($0.path, $0.bundled ? 1 : 0) < ($1.path, $1.bundled ? 1 : 0) })
        }
        /// Whether a result built earlier still holds: nothing it was made from changed.
        @Sendable func stillHolds(_ trace: BuildTrace) -> Bool {
            trace.holds(surface: surface, hashes: knownHashes, assets: assets)
        }
        let built = Self.parallelMap(Array(notes.indices)) {
            noteIndex -> (Document?, LandingPage?, [Diagnostic], serial: Int) in
            defer { linking.tick() }
            let note = index.notes[noteIndex]
            if note.kind == .deck { return (nil, nil, [], 0) }
            if let reused = cache?.linked.lookup(note.path, where: { stillHolds($0.trace) }) {
                return (reused.document, reused.page, reused.diagnostics, reused.serial)
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
            cache?.linked.store(
                BuildCache.Linked(
                    trace: trace(of: builder), serial: serial, document: result.0, page: result.1,
                    diagnostics: result.2),
                for: note.path)
            return (result.0, result.1, result.2, serial)
        }
        var documents: [Document] = []
        var pages: [LandingPage] = []
        // Which built result each document and landing page is: what later stages reuse by.
        var origins = BuildOrigins(linkSurface: surface)
        // Each document's serial, beside it.
        var serials: [Int] = []
        for (document, page, found, serial) in built {
            if let document {
                documents.append(document)
                serials.append(serial)
            }
            if let page {
                pages.append(page)
                if cache != nil { origins.pages[BuildOrigins.key(page)] = serial }
            }
            diagnostics += found
        }
        pages.sort { ($0.order ?? Int.max, $0.id, $0.locale) < ($1.order ?? Int.max, $1.id, $1.locale) }
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
            diagnostics += result.diagnostics
            stamps += result.stamps
            versions += result.versions
        }
        let order = documents.indices.sorted {
            (documents[$0].kind, documents[$0].id, documents[$0].locale)
                < (documents[$1].kind, documents[$1].id, documents[$1].locale)
        }
        documents = order.map { documents[$0] }
        if cache != nil { origins.documents = order.map { serials[$0] } }
        diagnostics += TranslationChecker(config: config, strict: strict).check(documents, versions: versions)

        diagnostics = diagnostics.escalated(strict: strict).sorted(by: Diagnostic.ordered)
        var compilation = Compilation(diagnostics: diagnostics, noteCount: listing.notes.count, guides: [], files: [])
        for document in documents {
            switch document {
            case .guide(let guide): compilation.guides.append(guide)
            case .checklist(let checklist): compilation.checklists.append(checklist)
            case .deck(let deck): compilation.decks.append(deck)
            }
        }
        compilation.config = config
        compilation.pages = pages
        // A one-shot build keeps them to exit without freeing them; `serve`, which builds again
        // and again (and has a cache), lets them go.
        if cache == nil { compilation.workingSet = [notes, index, built] }
        compilation.stamps = stamps.sorted { ($0.file, $0.position) < ($1.file, $1.position) }
        guard !compilation.failed, emit else { return compilation }

        // Emit.
        emitted = true
        let writer = BundleWriter(config: config, generatedAt: generatedAt(), cache: cache, origins: origins)
        do {
            compilation.manifest = try writer.render(
                documents: documents, assets: assets.all, into: sink,
                progress: ProgressCounter(progress, .bundling, total: documents.count))
        } catch let error as LockerError {
            throw error
        } catch {
            throw LockerError.io("cannot encode the bundle: \(error)")
        }
        var site = SiteBuilder(
            config: config, templates: templates, baseURL: baseURL ?? config.baseURL, documents: documents,
            pages: pages,
            assets: assets, cache: cache, origins: origins)
        // Without a way to tell this program from the next, pages are always rendered.
        if sink.recordsInputs, let linkSurface, let manifest = compilation.manifest, let program = BuildFingerprint.program {
            // Each document's bundle file, by its place among the documents: what its page shows.
            var bundleFiles: [String: String] = [:]
            for file in manifest.files where file.lists == nil {
                if let id = file.id, let locale = file.locale { bundleFiles[file.kind + "/" + id + "/" + locale] = file.sha256 }
            }
            site.inputSources = SiteBuilder.InputSources(
                linkSurface: linkSurface.sha256, program: program,
                bundleFiles: documents.map { bundleFiles[$0.kind.rawValue + "/" + $0.id + "/" + $0.locale] ?? "" })
        }
        compilation.sitePageCount = try site.render(
            into: sink, progress: ProgressCounter(progress, .rendering, total: documents.count))
        return compilation
    }

    /// Each note parsed, with its content hash when a cache wants it.
    private func parseNotes(
        _ files: [VaultFile], config: VaultConfig, configData: Data?
    ) -> [(note: ParsedNote?, diagnostics: [Diagnostic], sha256: String?)] {
        let parser = NoteParser(config: config)
        let cache = self.cache
        let parsing = ProgressCounter(progress, .parsing, total: files.count)
        // A file whose stamp is unchanged is not read again, unless it changed just before it
        // was last read: a save in the same clock tick keeps its stamp.
        let settled = time(nil) - (cache?.settlingTime ?? 0)
        let configHash = configData.map { ContentHash.sha256Hex($0) } ?? ""
        return Self.parallelMap(files) { file in
            defer { parsing.tick() }
            let stamp = cache != nil ? FileStamp(path: file.url.path) : nil
            if let cache, let stamp, let known = cache.hashes.lookup(file.path, where: { $0.stamp == stamp }),
                let cached = cache.parses.lookup(
                    BuildCache.ParseKey(path: file.path, sha256: known.sha256, config: configHash))
            {
                return (cached.0, cached.1, known.sha256)
            }
            let bytes: [UInt8]
            do {
                bytes = try FileBytes.contents(of: file.url.path)
            } catch {
                return (
                    nil, [Diagnostic(.error, .fileUnreadable, "cannot read the file: \(error)", file: file.path)], nil
                )
            }
            guard let cache else {
                let (note, diagnostics) = parser.parse(path: file.path, bytes: bytes)
                return (note, diagnostics, nil)
            }
            let key = BuildCache.ParseKey(path: file.path, sha256: ContentHash.sha256Hex(bytes), config: configHash)
            if let stamp, stamp.changedSeconds < settled {
                cache.hashes.store(BuildCache.Hashed(stamp: stamp, sha256: key.sha256), for: file.path)
            }
            if let cached = cache.parses.lookup(key) { return (cached.0, cached.1, key.sha256) }
            let result = parser.parse(path: file.path, bytes: bytes)
            cache.parses.store(result, for: key)
            return (result.0, result.1, key.sha256)
        }
    }

    /// Errors for documents of one kind and locale that share an ID.
    static func duplicateIDs(_ notes: [ParsedNote]) -> [Diagnostic] {
        struct Key: Hashable {
            var kind: ContentKind
            var locale: String
            var id: String
        }
        var first: [Key: ParsedNote] = [:]
        var diagnostics: [Diagnostic] = []
        for note in notes {
            let key = Key(kind: note.kind, locale: note.locale, id: note.id)
            if let earlier = first[key] {
                diagnostics.append(
                    Diagnostic(
                        .error, .idDuplicate,
                        "\(note.kind) id '\(note.id)' (\(note.locale)) is already used by \(earlier.path)",
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

    /// The content's date: `SOURCE_DATE_EPOCH`, else the vault's last git commit; never the clock.
    public func generatedAt() -> String? {
        contentDate.value { computeGeneratedAt() }
    }

    private func computeGeneratedAt() -> String? {
        let seconds =
            environment["SOURCE_DATE_EPOCH"].flatMap { Int($0.trimmingWhitespace) } ?? Self.lastCommitTime(of: vault)
        guard let seconds else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    private static func lastCommitTime(of folder: URL) -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", folder.path, "log", "-1", "--format=%ct", "--", "."]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Int(String(decoding: data, as: UTF8.self).trimmingWhitespace)
    }

    /// Whether ``parallelMap(_:_:)`` maps on the calling thread alone. The fuzzers set it: after
    /// an input that allocated more than it freed, libFuzzer searches the whole heap for leaks, and
    /// the worker threads' caches of dispatched work made that happen after most vault inputs.
    @TaskLocal static var onOneThread = false

    /// Maps in parallel on every core, keeping the order of the input.
    static func parallelMap<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], _ transform: @Sendable (Input) -> Output
    ) -> [Output] {
        if onOneThread { return inputs.map(transform) }
        // Each input's result is written into its own slot, so no two threads touch the same
        // memory and none waits for a lock; the slots are read once every thread is done.
        return [Output](unsafeUninitializedCapacity: inputs.count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            let slots = Slots(base: base)
            DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
                (slots.base + index).initialize(to: transform(inputs[index]))
            }
            initialized = inputs.count
        }
    }
}

/// Where ``Compiler/parallelMap(_:_:)`` writes its results: one slot per input, each written by
/// one thread.
private struct Slots<Value>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Value>
}

/// A compiler's content date, worked out at its first use and kept.
private final class ContentDate: @unchecked Sendable {
    private let lock = NSLock()
    private var date: String??

    func value(_ compute: () -> String?) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if let date { return date }
        let computed = compute()
        date = .some(computed)
        return computed
    }
}
