import Foundation
import LockerKit

/// A document's kind, ID and locale, which it is sorted by.
typealias DocumentSortKey = (kind: ContentKind, id: String, locale: String)

/// Lays out the site of the documents with these keys, in order, their runs of one kind and ID,
/// the landing pages and the vault files read so far.
typealias SiteLayout = ([DocumentSortKey], [Range<Int>], [LandingPage], AssetCatalog) -> SiteBuilder

/// What the documents stage made: every guide, checklist and deck, sorted by kind, ID and
/// locale, the site's landing pages, and what the output stage and the next build need of them.
struct BuiltVault: Sendable {
    /// Every document, sorted by kind, ID and locale.
    var documents: [Document] = []
    /// Each document's note, by its place in the notes (-1 for a deck), beside it.
    var documentPlaces: [Int] = []
    /// The landing pages, sorted by order, ID and locale.
    var pages: [LandingPage] = []
    /// The documents' order, their version runs and how many IDs each kind has.
    var order: DocumentOrder
    /// Checklist items whose IDs are derived from their text, sorted by file and position.
    var stamps: [IDStamp] = []
    /// The vault's files as documents embed them.
    var assets: AssetCatalog
    /// What linking each note made, by its place.
    var built: [Compiler.Built] = []
    /// The guides kept from the previous build's record, by place (empty when none was).
    var keptGuides: [NoteRecord.KeptGuide?] = []
    /// What the site's pages are rendered with, when the guides' pages were rendered as they
    /// were built.
    var site: SitePages?
    /// The link tables, and the documents' sort keys: kept with the rest for a one-shot build to
    /// exit without freeing them.
    var index: VaultIndex
    var sortKeys: [DocumentSortKey] = []
    var diagnostics: [Diagnostic] = []
}

extension Compiler {
    /// The documents stage: every note linked and built into its document on every core (a
    /// guide the record keeps is taken as it is), decks built from their notes, the documents
    /// sorted, and the checks across documents (landing-page IDs, translations) made.
    ///
    /// The landing pages, checklists and decks, which are few, are built first; then the guides.
    /// Given a `sink` and what lays out the site (`site`, from the documents' keys, in order, and
    /// the landing pages), each guide's bundle file and page are written into `sink` as soon as
    /// it is built, and the guide let go (``Document/written(_:)``): a build holds the vault's
    /// documents' entries, never their text. `hashes`: each note's content hash, by place;
    /// `loader`, in a build that writes a record, reads a note held in outline or let go again.
    func buildDocuments<Sink: OutputSink>(
        _ indexed: IndexedVault, hashes: [String], settings: Settings, record: NoteRecord?, loader: NoteLoader?,
        into sink: Sink?, site: SiteLayout?
    ) throws -> BuiltVault {
        let config = settings.config
        let notes = indexed.notes
        var diagnostics: [Diagnostic] = []
        let recording = loader != nil
        // Each note's content hash by its place, what kept guides are checked by.
        let currentHashes = recording ? hashes : []
        let assets = AssetCatalog(root: vault)
        // Which guides the record keeps, by place: decided before the link tables are made,
        // which a rebuild that links only a few notes does not build (``VaultIndex``).
        let keptGuides =
            indexed.keeping
            ? Self.keptGuides(notes: notes, hashes: currentHashes, record: record?.notes ?? [], assets: assets) : []
        let linkedCount = notes.count - keptGuides.count { $0 != nil }
        var linkTables = VaultIndex(
            notes: notes, assets: indexed.assetPaths, scanningFirst: linkedCount <= Self.fewLinkedNotes)
        linkTables.loader = loader
        let index = linkTables
        let resolver = LinkResolver(
            index: index, unresolvedSeverity: config.unresolvedLinks, preference: config.localePreference)
        let embedDepth = config.embedDepth
        let linking = ProgressCounter(progress, .linking, total: notes.count)
        @Sendable func builder() -> DocumentBuilder {
            DocumentBuilder(index: index, resolver: resolver, assets: assets, embedDepth: embedDepth)
        }
        /// The guides, built after the rest.
        @Sendable func isBuiltLater(_ place: Int) -> Bool {
            let kind = notes[place].kind
            return kind != .deck && kind != .checklist && kind != .page
        }
        // Landing pages and checklists.
        var built = Self.parallelMap(Array(notes.indices)) { noteIndex -> Built in
            if isBuiltLater(noteIndex) { return Built() }
            defer { linking.tick() }
            let note = index.notes[noteIndex]
            if note.kind == .deck { return Built() }
            var builder = builder()
            let result: (Document?, LandingPage?, [Diagnostic])
            if note.kind == .page {
                let (page, found) = builder.landingPage(noteIndex)
                result = (nil, page, found)
            } else {
                let (checklist, found) = builder.checklist(noteIndex)
                result = (.checklist(checklist), nil, found)
            }
            return Built(
                document: result.0, page: result.1, diagnostics: result.2,
                reads: recording ? builder.reads.sorted() : [], assets: recording ? Self.sorted(builder.assetUses) : [])
        }
        var pages = built.compactMap(\.page)
        pages.sort { ($0.order ?? Int.max, $0.id, $0.locale) < ($1.order ?? Int.max, $1.id, $1.locale) }
        var (stamps, versions) = Self.checklistStamps(notes, config: config)
        let deckResults = Self.parallelMap(indexed.catalog.groups) { group in
            var builder = builder()
            return builder.decks(group, config: config)
        }
        var decks: [Document] = []
        for result in deckResults {
            decks += result.decks.map { .deck($0) }
            diagnostics += result.diagnostics
            stamps += result.stamps
            versions += result.versions
        }
        if pages.contains(where: { !$0.counts.isEmpty }) {
            let checklists = built.compactMap { built -> Checklist? in
                if case .checklist(let checklist) = built.document { return checklist }
                return nil
            }
            let deckList = deckResults.flatMap(\.decks)
            let guideIDs = Set(notes.indices.filter(isBuiltLater).map { notes[$0].id })
            for offset in pages.indices where !pages[offset].counts.isEmpty {
                let counts = ContentCounts(
                    guideIDs: guideIDs, checklists: checklists, decks: deckList, locale: pages[offset].locale,
                    preference: config.localePreference)
                for count in pages[offset].counts where counts.value(of: count) == nil {
                    let kind = count.counter == .items ? "checklist" : "deck"
                    let ids = (count.counter == .items ? counts.items : counts.cards).keys.sorted()
                    diagnostics.append(
                        Diagnostic(
                            .error, .pageInvalidCount,
                            "'{{\(count.counter.rawValue) \(count.id ?? "")}}': no \(kind) has the ID '\(count.id ?? "")'",
                            file: pages[offset].source, at: count.position,
                            hint: ids.isEmpty
                                ? "the vault has no \(kind)"
                                : "name a \(kind) by its id: " + ids.joined(separator: ", ")))
                }
                pages[offset] = pages[offset].filled(counts.filling)
            }
        }

        // Every document's note (-1 for a deck) and key, in the notes' order and then the decks':
        // a guide built later is known by its note's ID and locale, which its guide takes.
        var documentPlaces: [Int] = []
        var keys: [DocumentSortKey] = []
        for place in built.indices {
            if let document = built[place].document {
                keys.append((document.kind, document.id, document.locale))
            } else if isBuiltLater(place) {
                keys.append((.guide, notes[place].id, notes[place].locale))
            } else {
                continue
            }
            documentPlaces.append(place)
        }
        keys += decks.map { ($0.kind, $0.id, $0.locale) }
        documentPlaces += decks.map { _ in -1 }
        // Sorted by kind, ID and locale. Documents that come in that order already (notes named
        // as they are known) are not moved.
        let documentOrder = DocumentOrder(keys: keys)
        let order = documentOrder.order ?? Array(keys.indices)
        // Each guide built later is written as soon as it is, at its place in that order.
        var placeOffsets = [Int](repeating: -1, count: notes.count)
        for (offset, position) in order.enumerated() where documentPlaces[position] >= 0 {
            placeOffsets[documentPlaces[position]] = offset
        }
        let offsets = placeOffsets
        let sitePages = site.map { $0(order.map { keys[$0] }, documentOrder.runs, pages, assets).prepare() }
        // The first guide that could not be written, in the documents' order, whichever core
        // met its error first: the error a build reports is the same from run to run.
        let failure = FirstFailure()
        let guidePlaces = notes.indices.filter(isBuiltLater)
        let later = Self.parallelMap(guidePlaces) { noteIndex -> Built in
            defer { linking.tick() }
            let note = index.notes[noteIndex]
            let kept = noteIndex < keptGuides.count ? keptGuides[noteIndex] : nil
            var builder = builder()
            var built: (document: Document, diagnostics: [Diagnostic], body: [Diagnostic])?
            /// The guide, built when first asked for: a guide held in outline is parsed now, and
            /// what its body has wrong reported with its links; its tree is let go once built (a
            /// note that embeds it reads it again).
            func guide() -> Document {
                if let built { return built.document }
                let read = note.holding == .outline ? loader?.read(noteIndex, note) : nil
                let (guide, found) = builder.guide(noteIndex, note: read?.note)
                if loader != nil { note.releaseBody() }
                built = (.guide(guide), found, read?.diagnostics ?? [])
                return .guide(guide)
            }
            var document: Document
            if let sink, let sitePages {
                // A guide the record keeps is built only when its files are not the ones the
                // previous build wrote.
                do {
                    let file =
                        try kept.flatMap { try BundleWriter.keep($0, into: sink) }
                        ?? BundleWriter.write(guide(), into: sink)
                    try sitePages.writePage(
                        at: offsets[noteIndex], locale: note.locale, bundleSHA256: file.sha256, into: sink,
                        document: guide)
                    document = .written(
                        WrittenGuide(source: note.path, entry: kept?.entry ?? guide().indexEntry, file: file))
                } catch {
                    failure.note(error, at: offsets[noteIndex])
                    return Built()
                }
            } else {
                document = guide()
            }
            if let kept {
                return Built(document: document, diagnostics: kept.diagnostics, reads: kept.reads, assets: kept.assets)
            }
            var result = Built(
                document: document, diagnostics: built?.diagnostics ?? [],
                reads: recording ? builder.reads.sorted() : [], assets: recording ? Self.sorted(builder.assetUses) : [])
            result.bodyDiagnostics = built?.body ?? []
            return result
        }
        try failure.rethrow()
        for (noteIndex, result) in zip(guidePlaces, later) { built[noteIndex] = result }

        var documents: [Document] = []
        // Each field read where it lies: a result copied whole retained its five references.
        for place in built.indices {
            if let document = built[place].document { documents.append(document) }
            if !built[place].diagnostics.isEmpty { diagnostics += built[place].diagnostics }
            if !built[place].bodyDiagnostics.isEmpty { diagnostics += built[place].bodyDiagnostics }
        }
        documents += decks
        if documentOrder.order != nil {
            documents = order.map { documents[$0] }
            documentPlaces = order.map { documentPlaces[$0] }
        }
        diagnostics += LandingPageIDChecker(locales: config.locales, defaultLocale: config.defaultLocale).check(
            pages, notes: notes)
        diagnostics += TranslationChecker(config: config, strict: strict).check(documents, versions: versions)
        // A note kept unread but needed by a guide or deck built again, and saved since it was
        // recorded, fails the build rather than ship what the empty stand-in gave.
        diagnostics += loader?.problems ?? []
        diagnostics += assets.drawingDiagnostics

        var result = BuiltVault(order: documentOrder, assets: assets, index: index)
        result.documents = documents
        result.documentPlaces = documentPlaces
        result.pages = pages
        result.site = sitePages
        result.stamps = stamps.sorted { ($0.file, $0.position) < ($1.file, $1.position) }
        result.built = built
        result.keptGuides = keptGuides
        result.sortKeys = order.map { keys[$0] }
        result.diagnostics = diagnostics
        return result
    }

    /// The vault files a document embeds, sorted, for the record.
    private static func sorted(_ uses: Set<AssetUse>) -> [AssetUse] {
        uses.sorted { ($0.path, $0.bundled ? 1 : 0) < ($1.path, $1.bundled ? 1 : 0) }
    }

    /// How many notes a build links at most for its link tables to be built only when its
    /// questions grow many (``VaultIndex/init(notes:assets:scanningFirst:)``).
    static let fewLinkedNotes = 8

    /// Which guides the previous build's record keeps, by place: those whose note and every note
    /// they read have their recorded hashes, and every vault file they embed its recorded state.
    /// Nothing else a guide is made from can have changed: the program, the settings and the
    /// vault's shape are the record's, or it is not used.
    static func keptGuides(
        notes: [ParsedNote], hashes: [String], record: [NoteRecord.Entry], assets: AssetCatalog
    ) -> [NoteRecord.KeptGuide?] {
        parallelMap(Array(notes.indices)) { place in
            guard place < record.count, let guide = record[place].guide, notes[place].kind == .guide,
                record[place].path == notes[place].path
            else { return nil }
            // The record's places are checked when it is read: each is one of its notes. Hashes
            // are compared as bytes: a Swift string ignores Unicode normalisation.
            for read in [place] + guide.reads
            where read >= hashes.count || !hashes[read].hasSameBytes(as: record[read].sha256) {
                return nil
            }
            // Each file is looked up again, which also counts it as used by this build.
            return guide.assets.allSatisfy { assets.use($0.path, bundled: $0.bundled) == $0.state } ? guide : nil
        }
    }

    /// The checklist items whose IDs are derived from their text (what `locker ids --write`
    /// writes), and each checklist's items for the translation checks.
    static func checklistStamps(_ notes: [ParsedNote], config: VaultConfig) -> ([IDStamp], [VersionParts]) {
        var stamps: [IDStamp] = []
        var versions: [VersionParts] = []
        let adopted = TranslationIDs.adopted(notes, config: config)
        for note in notes {
            guard let checklist = note.checklist, note.kind == .checklist else { continue }
            for item in checklist.items where !item.isExplicit {
                stamps.append(IDStamp(item: item, file: note.path, id: adopted[note.path]?[item.titleLine] ?? item.id))
            }
            versions.append(
                VersionParts(
                    kind: .checklist, id: note.id, locale: note.locale, source: note.path,
                    parts: checklist.items.map { PartSite(id: $0.id, file: note.path, position: $0.position) }))
        }
        return (stamps, versions)
    }

    /// What linking one note made.
    struct Built: Sendable {
        var document: Document?
        var diagnostics: [Diagnostic]
        /// What the body of a guide held in outline has wrong, found when it was read to be
        /// built: reported with ``diagnostics``, and recorded with the parse's, as a guide parsed
        /// whole records them (a guide kept unread and built again reports them from the record).
        var bodyDiagnostics: [Diagnostic] = []
        /// For the record: the notes read, by place, and the vault files embedded.
        var reads: [Int]
        var assets: [AssetUse]
        /// The landing page, kept out of line: a page is large, and few notes are pages, while
        /// every note's result had room for one (a measurable part of a rebuild's memory, each
        /// byte touched for the first time).
        private var boxedPage: BoxedPage?

        private indirect enum BoxedPage: Sendable {
            case page(LandingPage)
        }

        var page: LandingPage? {
            guard case .page(let page)? = boxedPage else { return nil }
            return page
        }

        init(
            document: Document? = nil, page: LandingPage? = nil, diagnostics: [Diagnostic] = [],
            reads: [Int] = [], assets: [AssetUse] = []
        ) {
            self.document = document
            boxedPage = page.map { .page($0) }
            self.diagnostics = diagnostics
            self.reads = reads
            self.assets = assets
        }
    }
}
