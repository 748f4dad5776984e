import LockerKit

/// Every way a link can name a note or a file: by path, by file name, by alias.
///
/// Keys are NFC. Each table has an exact and a lowercased form, for Obsidian's case-insensitive
/// fallback. A note with a locale suffix (`check-in.ru.md`) is also known by its base name.
struct VaultIndex: Sendable {
    private(set) var notes: [ParsedNote]
    private var notesByPath = PlaceTable<Substring>()
    private var notesByPathLowercased = PlaceTable<Substring>()
    private var notesByName = PlaceTable<Substring>()
    private var notesByNameLowercased = PlaceTable<Substring>()
    private var notesByAlias = PlaceTable<Substring>()
    private var notesByIdentity = PlaceTable<NoteIdentity>()
    let assets: Set<String>
    /// Reads the notes kept unread (``ParsedNote/isHollow``) when their text is needed.
    var loader: NoteLoader?
    private var assetsByLowercasedPath: [String: [String]] = [:]
    private var assetsByName: [String: [String]] = [:]
    private var assetsByLowercasedName: [String: [String]] = [:]

    /// What a link resolves to: a kind and an ID, shared by every translation of a document.
    struct NoteIdentity: Sendable, Hashable {
        var kind: ContentKind
        var id: String
    }

    init(notes: [ParsedNote], assets: [String]) {
        self.notes = notes
        self.assets = Set(assets)
        /// A note's paths, cut from its own strings: a translation is found by its own name and
        /// by the name it shares with the others.
        @Sendable func paths(_ note: ParsedNote) -> (own: Substring, base: Substring?) {
            let own = VaultPath.removingExtension(from: note.path)
            return own == note.basePath ? (own, nil) : (own, note.basePath[...])
        }
        // The tables do not depend on each other: half of them built on each of two cores.
        let capacity = notes.count
        let halves = Compiler.parallelMap([false, true]) { byName -> VaultIndex in
            var tables = VaultIndex(notes: [], assets: Set())
            if byName {
                tables.notesByName = PlaceTable(capacity: capacity)
                tables.notesByNameLowercased = PlaceTable(capacity: capacity)
            } else {
                tables.notesByPath = PlaceTable(capacity: capacity)
                tables.notesByPathLowercased = PlaceTable(capacity: capacity)
                tables.notesByIdentity = PlaceTable(capacity: capacity)
            }
            func add(_ path: Substring, _ index: Int) {
                if byName {
                    let name = VaultPath.fileName(in: path)
                    tables.notesByName.add(name, index)
                    tables.notesByNameLowercased.add(name.lowercasedSharing, index)
                } else {
                    tables.notesByPath.add(path, index)
                    tables.notesByPathLowercased.add(path.lowercasedSharing, index)
                }
            }
            for (index, note) in notes.enumerated() {
                let (own, base) = paths(note)
                add(own, index)
                if let base { add(base, index) }
                if byName {
                    for alias in note.frontmatter.aliases {
                        tables.notesByAlias.add(Substring(alias.lowercased()), index)
                    }
                } else {
                    tables.notesByIdentity.add(NoteIdentity(kind: note.kind, id: note.id), index)
                }
            }
            guard byName else { return tables }
            for asset in assets {
                tables.assetsByLowercasedPath[asset.lowercased(), default: []].append(asset)
                let name = VaultPath.fileName(of: asset)
                tables.assetsByName[name, default: []].append(asset)
                tables.assetsByLowercasedName[name.lowercased(), default: []].append(asset)
            }
            return tables
        }
        let (byPath, byName) = (halves[0], halves[1])
        notesByPath = byPath.notesByPath
        notesByPathLowercased = byPath.notesByPathLowercased
        notesByIdentity = byPath.notesByIdentity
        notesByName = byName.notesByName
        notesByNameLowercased = byName.notesByNameLowercased
        notesByAlias = byName.notesByAlias
        assetsByLowercasedPath = byName.assetsByLowercasedPath
        assetsByName = byName.assetsByName
        assetsByLowercasedName = byName.assetsByLowercasedName
    }

    /// Empty tables over `notes`: what each half of ``init(notes:assets:)`` fills.
    private init(notes: [ParsedNote], assets: Set<String>) {
        self.notes = notes
        self.assets = assets
    }

    /// The same tables over new versions of the same notes: valid when every note keeps its
    /// path, kind, ID, locale and aliases (the ``LinkSurface``), which is all the tables hold.
    func replacingNotes(_ notes: [ParsedNote]) -> VaultIndex {
        var copy = self
        copy.notes = notes
        return copy
    }

    /// The note at `index` with its text: a note kept unread from the previous build is read now.
    func whole(_ index: Int) -> ParsedNote {
        let note = notes[index]
        guard note.isHollow, let loader else { return note }
        return loader.whole(index, note)
    }

    func identity(of index: Int) -> NoteIdentity {
        NoteIdentity(kind: notes[index].kind, id: notes[index].id)
    }

    /// The translations of a document, by locale.
    func translations(of identity: NoteIdentity) -> [Int] { notesByIdentity[identity] ?? [] }

    /// Candidates for a note path (no extension), exact case first.
    func notes(atPath path: String) -> [Int] {
        notesByPath[path[...]] ?? notesByPathLowercased[path[...].lowercasedSharing] ?? []
    }

    /// Candidates whose path ends with the link's path, or whose whole path ends the link's path
    /// (a link written from a folder above the vault root).
    func notes(matchingPartialPath path: String) -> [Int] {
        let lowered = path.lowercased()
        var exact: [Int] = []
        var folded: [Int] = []
        for (key, indices) in notesByPath.entries {
            if key.hasSuffix("/" + path) || path.hasSuffix("/" + key) {
                exact += indices
            } else {
                let lowerKey = key.lowercased()
                if lowerKey.hasSuffix("/" + lowered) || lowered.hasSuffix("/" + lowerKey) { folded += indices }
            }
        }
        return (exact.isEmpty ? folded : exact).sorted()
    }

    /// Candidates by file name (no extension), exact case first.
    func notes(named name: String) -> [Int] {
        notesByName[name[...]] ?? notesByNameLowercased[name[...].lowercasedSharing] ?? []
    }

    /// Candidates by frontmatter alias, ignoring case.
    func notes(aliased alias: String) -> [Int] { notesByAlias[Substring(alias.lowercased())] ?? [] }

    /// Assets at a path, exact case first.
    func assets(atPath path: String) -> [String] {
        assets.contains(path) ? [path] : (assetsByLowercasedPath[path.lowercased()] ?? [])
    }

    /// Assets by file name, or by a path suffix when the link holds folders.
    func assets(matching target: String) -> [String] {
        if target.contains("/") {
            let exact = assets.filter { $0.hasSuffix("/" + target) || target.hasSuffix("/" + $0) }
            if !exact.isEmpty { return exact.sorted() }
            let lowered = target.lowercased()
            return assets.filter {
                let key = $0.lowercased()
                return key.hasSuffix("/" + lowered) || lowered.hasSuffix("/" + key)
            }.sorted()
        }
        return (assetsByName[target] ?? assetsByLowercasedName[target.lowercased()] ?? []).sorted()
    }
}
