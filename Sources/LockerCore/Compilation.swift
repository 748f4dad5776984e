import Foundation
import LockerKit

/// The result of reading and checking a vault, and of laying out its bundle when it is clean.
public struct Compilation: Sendable {
    /// Every problem found, sorted by file and position; warnings raised to errors under `strict`.
    public var diagnostics: [Diagnostic]
    /// How many notes were read.
    public var noteCount: Int
    /// Every document, sorted by kind, ID and locale: what the views below are taken from, when
    /// asked for (a build of a large vault into memory need not copy them).
    var documents: [Document] = [] {
        didSet { idCounts = nil }
    }
    /// The guides built and held, sorted by ID and locale; without those a build that writes a
    /// record wrote (or kept from the previous build) as it built them (``builtGuides``,
    /// ``keptGuides``).
    public var guides: [Guide] {
        documents.compactMap { if case .guide(let guide) = $0 { guide } else { nil } }
    }
    /// What the index shows of each guide built, held or written as it was built, sorted by ID
    /// and locale: every guide but those kept from the previous build.
    var builtGuides: [ContentIndex.Entry] = []
    /// The IDs of the guides `locker build` kept from the previous build in its output without
    /// building them again, their note and every note they show being unchanged (one per locale).
    public internal(set) var keptGuides: [String] = []
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
    /// How many documents the compile built, rather than kept from the previous build's record.
    public var builtDocuments = 0
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
