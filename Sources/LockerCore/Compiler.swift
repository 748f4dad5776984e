import Foundation
import LockerKit

/// Runs the pipeline over a vault: settings → scan → parse → index → documents → output.
///
/// Each stage is a function of values to values and diagnostics, in a file of its own under
/// `Stages/`; ``compile(into:usingRecord:walk:)`` below calls them in order, and
/// `docs/architecture.md` describes what flows between them. Only the output stage writes, into
/// an ``OutputSink``.
public struct Compiler: Sendable {
    public var vault: URL
    /// Warnings fail the run.
    public var strict: Bool
    /// A folder inside the vault that is not content (the output folder).
    public var skipping: [URL]
    /// Where `SOURCE_DATE_EPOCH` is read from.
    public var environment: [String: String]
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
    let contentDate = ContentDate()
    /// How long after its last change a note's stamp goes into the ``NoteRecord``, in seconds,
    /// so that the next build trusts it without reading the note: longer than any file system's
    /// clock tick (FAT's is two seconds), as a second save within one tick keeps the stamp of
    /// the first. Tests shorten it.
    var settlingTime = 2
    /// What reads a guide's outline for a build that writes a record (``OutlineScanner``):
    /// tests give one that reads it wrong, for the compile to find out.
    var outlines: @Sendable (String) -> OutlineScanner.Outline? = OutlineScanner.outline(of:)

    public init(
        vault: URL, strict: Bool = false, skipping: [URL] = [], environment: [String: String] = [:],
        emit: Bool = true, baseURL: String? = nil, progress: (any BuildProgress)? = nil
    ) {
        self.progress = progress
        self.emit = emit
        self.baseURL = baseURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        self.vault = vault
        self.strict = strict
        self.skipping = skipping
        self.environment = environment
    }

    /// Reads and checks the vault; lays out the bundle in memory (``Compilation/files``) when
    /// nothing fails. Throws ``LockerError`` only when the vault itself cannot be read.
    public func compile() throws -> Compilation {
        let memory = MemoryOutput()
        var compilation = try compile(into: memory)
        if !compilation.failed { compilation.files = memory.files }
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
    /// `usingRecord` and the sink has one that holds for this build, and holding guides in
    /// outline until they are built when `outlining` (``ParsedNote/Holding/outline``).
    private func compile(
        into sink: some OutputSink, usingRecord: Bool, outlining: Bool = true, walk: VaultWalk? = nil
    ) throws -> Compilation {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: vault.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw LockerError.io("no vault folder at \(vault.path)")
        }
        let settings = try readSettings()
        if emit { TemplateSet.parseDefaultsAhead() }
        let listing = try scan(settings, walk: walk)
        let recording = records(into: sink)
        let record = usingRecord && recording ? previousRecord(in: sink, settings: settings) : nil
        var parsed = parse(
            listing.notes, settings: settings, record: record, recording: recording,
            outlining: outlining)
        // With the notes' content hashes, a note read again is known to be the one parsed.
        let loader =
            recording
            ? NoteLoader(
                vault: vault, parser: NoteParser(config: settings.config), hashes: parsed.hashes, files: parsed.files)
            : nil
        guard
            let indexed = index(
                parsed.takeNotes(), assets: listing.assets, settings: settings, record: record, loader: loader,
                sink: sink)
        else {
            // The vault's shape is no longer the record's: the notes it kept unread are read.
            return try compile(into: sink, usingRecord: false, outlining: outlining, walk: walk)
        }
        let templates = TemplateSet.load(vault: vault)
        // In a build that writes a record, a guide's bundle file and page are written as soon as
        // it is built: a build that fails leaves them to the sink's discard. A build already
        // known to fail writes nothing: its guides' pages could not be rendered (a template that
        // cannot be parsed) or written (two guides that share an ID share a page), and the build
        // is to report why it fails rather than stop at the first page.
        let failing =
            (settings.diagnostics + listing.diagnostics + parsed.diagnostics + indexed.diagnostics
            + templates.diagnostics).escalated(strict: strict).contains { $0.severity == .error }
        let streaming = emit && recording && !failing
        let built = try buildDocuments(
            indexed, hashes: parsed.hashes, settings: settings, record: record, loader: loader,
            into: streaming ? sink : nil,
            site: streaming
                ? { keys, runs, pages, assets in
                    siteBuilder(
                        settings: settings, templates: templates, surfaceSHA256: indexed.surfaceSHA256, sink: sink,
                        keys: keys, runs: runs, pages: pages, assets: assets)
                } : nil)
        if loader?.outlineFailed == true {
            // A guide's outline was not the one its text gives: every note is parsed whole, into
            // a sink that forgets what this compile wrote.
            sink.restart()
            return try compile(into: sink, usingRecord: usingRecord, outlining: false, walk: walk)
        }

        var diagnostics = settings.diagnostics + listing.diagnostics + parsed.diagnostics + indexed.diagnostics
        diagnostics += built.diagnostics + templates.diagnostics
        var compilation = Compilation(
            diagnostics: diagnostics.escalated(strict: strict).sorted(by: Diagnostic.ordered),
            noteCount: listing.notes.count, files: [])
        compilation.documents = built.documents
        for (document, place) in zip(built.documents, built.documentPlaces) where document.kind == .guide {
            if place >= 0, place < built.keptGuides.count, built.keptGuides[place] != nil {
                compilation.keptGuides.append(document.id)
            } else {
                compilation.builtGuides.append(document.indexEntry)
            }
        }
        compilation.builtDocuments = built.documents.count - compilation.keptGuides.count
        compilation.idCounts = built.order.idCounts
        compilation.config = settings.config
        compilation.pages = built.pages
        compilation.stamps = built.stamps
        // Kept for a one-shot build to exit without freeing them one by one.
        compilation.workingSet = [parsed, indexed, built]
        guard !compilation.failed, emit else { return compilation }

        let output = try writeOutput(
            built, indexed: indexed, parsed: parsed, templates: templates, settings: settings, record: record,
            into: sink)
        compilation.writtenManifest = output.manifest
        compilation.sitePageCount = output.pageCount
        compilation.templateTime = output.templateTime
        compilation.workingSet.append(output.workingSet)
        return compilation
    }

    /// Whether this compile writes a ``NoteRecord`` for the next one: into an output folder
    /// or memory that records inputs (``OutputSink/recordsInputs``), by a program it can tell
    /// from the next.
    func records(into sink: some OutputSink) -> Bool {
        sink.recordsInputs && BuildFingerprint.program != nil
    }

    /// What the previous build recorded of each note, when it holds for this one: the same
    /// program and settings.
    private func previousRecord(in sink: some OutputSink, settings: Settings) -> NoteRecord? {
        NoteRecord.read(from: sink).flatMap {
            $0.program == BuildFingerprint.program && $0.config == settings.hash ? $0 : nil
        }
    }

    /// The settings stage: `locker.yml`, when the vault has one.
    private func readSettings() throws -> Settings {
        var settings = Settings()
        let url = vault.appendingPathComponent(VaultConfig.fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return settings }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.contents(of: url.path)
        } catch {
            throw LockerError.io("cannot read \(url.path): \(error)")
        }
        settings.data = Data(bytes)
        settings.hash = ContentHash.sha256Hex(bytes)
        let (decoded, decodeDiagnostics) = SourceDecoder(maxBytes: 1 << 20, sizeHint: "keep the settings under 1 MiB")
            .decode(bytes, file: VaultConfig.fileName)
        settings.diagnostics += decodeDiagnostics.filter { $0.severity != .warning }
        if let decoded {
            let (parsed, configDiagnostics) = VaultConfig.parse(decoded.text)
            settings.config = parsed
            settings.diagnostics += configDiagnostics
        }
        return settings
    }

    /// The scan stage: every note and file of the vault, from the walk the fingerprint took for
    /// this build when there is one (the folders are not read again).
    private func scan(_ settings: Settings, walk: VaultWalk?) throws -> VaultListing {
        progress?.update(.scanning, done: 0, total: 0)
        let scanner = VaultScanner(
            root: vault, config: settings.config, skipping: skipping.map { $0.standardizedFileURL.path })
        return try walk.flatMap(scanner.listing(of:)) ?? scanner.scan()
    }
}

/// The vault's settings, as the settings stage read them.
struct Settings: Sendable {
    var config = VaultConfig()
    /// The bytes of `locker.yml`, part of the vault's link surface; nil without one.
    var data: Data?
    /// Their SHA-256, or empty without one: a record is kept under it.
    var hash = ""
    var diagnostics: [Diagnostic] = []
}
