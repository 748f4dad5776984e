import Foundation
import LockerKit

/// Resolves link targets the way Obsidian does, reporting every failure as a diagnostic.
///
/// A note is found by its path (from the vault root, or relative with `./` and `../`), by a
/// path suffix, by its file name, then by an alias; each step tries exact case, then any case.
/// Several notes that are translations of one document count as one match.
struct LinkResolver: Sendable {
    let index: VaultIndex
    let unresolvedSeverity: Severity
    /// Which translation a link to a translated note means, for the linking note's locale.
    let preference: LocalePreference

    /// The outcome of resolving a note link.
    enum NoteResolution: Equatable {
        case found(Int)
        case notFound
        /// Several documents match the name equally well: `chosen` is the one Obsidian opens
        /// (``choose(_:target:from:)``), `candidates` all of them, by path.
        case ambiguous(chosen: Int, candidates: [Int])
        case outsideVault
    }

    /// Resolves a link's target text as written in the note at `fromPath`.
    func resolveNote(_ rawTarget: String, from fromIndex: Int) -> NoteResolution {
        let from = index.notes[fromIndex]
        var target = rawTarget
        if target.isEmpty { return .found(fromIndex) }
        if target.lowercased().hasSuffix(".md") { target = String(target.dropLast(3)) }
        let folder = VaultPath.folder(of: from.path)
        let isRelative = target.hasPrefix("./") || target.hasPrefix("../")
        if isRelative || target.hasPrefix("/")
            || (target.containsBytes("..") && target.split(separator: "/").contains(".."))
        {
            guard let resolved = VaultPath.resolve(target, from: isRelative ? folder : "") else { return .outsideVault }
            return choose(index.notes(atPath: resolved), target: resolved, from: from)
        }
        if target.containsBytes("/") {
            let exact = index.notes(atPath: target)
            if !exact.isEmpty { return choose(exact, target: target, from: from) }
            return choose(index.notes(matchingPartialPath: target), target: target, from: from)
        }
        let named = index.notes(named: target)
        if !named.isEmpty { return choose(named, target: target, from: from) }
        return choose(index.notes(aliased: target), target: target, from: from)
    }

    /// One document among candidates: translations collapse to the one in the linking note's
    /// locale. Among distinct documents, Obsidian's rule picks one (as observed of its
    /// `getFirstLinkpathDest` on Obsidian 1.13): the note whose vault path is the target, then
    /// the one in the linking note's own folder, then the one with the shortest path (and, of
    /// paths as long, the first in UTF-8 order). Only the last is ``NoteResolution/ambiguous``:
    /// the other two are as certain as a path.
    private func choose(_ candidates: [Int], target: String, from: ParsedNote) -> NoteResolution {
        guard !candidates.isEmpty else { return .notFound }
        // One candidate, the usual case: no grouping to do.
        if candidates.count == 1 { return .found(candidates[0]) }
        var byIdentity: [VaultIndex.NoteIdentity: [Int]] = [:]
        for candidate in candidates { byIdentity[index.identity(of: candidate), default: []].append(candidate) }
        let groups = Array(byIdentity.values)
        if groups.count == 1 { return .found(preferredTranslation(groups[0], locale: from.locale)) }
        let folder = VaultPath.folder(of: from.path)
        for rule in [
            { (note: ParsedNote) in note.basePath == target || VaultPath.removingExtension(note.path) == target },
            { (note: ParsedNote) in VaultPath.folder(of: note.path) == folder },
        ] {
            let matching = groups.filter { group in group.contains { rule(index.notes[$0]) } }
            if matching.count == 1 { return .found(preferredTranslation(matching[0], locale: from.locale)) }
        }
        func shortest(_ group: [Int]) -> String {
            group.map { index.notes[$0].path }.min(by: Self.isShorter) ?? ""
        }
        let ranked = groups.map { (path: shortest($0), group: $0) }.sorted { Self.isShorter($0.path, than: $1.path) }
        return .ambiguous(
            chosen: preferredTranslation(ranked[0].group, locale: from.locale),
            candidates: candidates.sorted { index.notes[$0].path.utf8Precedes(index.notes[$1].path) })
    }

    /// Obsidian's last rule for a name several notes or files share: the shorter path in bytes,
    /// and of paths as long the first in UTF-8 order.
    private static func isShorter(_ path: String, than other: String) -> Bool {
        path.utf8.count != other.utf8.count ? path.utf8.count < other.utf8.count : path.utf8Precedes(other)
    }

    /// The translation to use for a reader of `locale`, as the bundle and the site choose it
    /// (``LocalePreference``); the first by path among several in one locale.
    func preferredTranslation(_ group: [Int], locale: String) -> Int {
        let sorted = group.sorted { index.notes[$0].path.utf8Precedes(index.notes[$1].path) }
        return preference.preferred(sorted, in: locale) { index.notes[$0].locale } ?? group[0]
    }

    /// Resolves an image or file target to a vault asset path.
    func resolveAsset(_ rawTarget: String, fromPath: String, relativeFirst: Bool) -> AssetResolution {
        let target = rawTarget
        let folder = VaultPath.folder(of: fromPath)
        if relativeFirst || target.hasPrefix("./") || target.hasPrefix("../") || target.hasPrefix("/")
            || target.split(separator: "/").contains("..")
        {
            let base = target.hasPrefix("/") ? "" : folder
            guard let resolved = VaultPath.resolve(target, from: base) else { return .outsideVault }
            let found = index.assets(atPath: resolved)
            if let first = found.first { return .found(first) }
            if !relativeFirst || target.hasPrefix("../") || target.hasPrefix("/") { return .notFound }
        }
        let exact = index.assets(atPath: target)
        if let first = exact.first { return .found(first) }
        let matches = index.assets(matching: target)
        switch matches.count {
        case 0: return .notFound
        case 1: return .found(matches[0])
        default:
            // As for notes: the file in the linking note's folder, then the shortest path.
            let local = matches.filter { VaultPath.folder(of: $0) == folder }
            if local.count == 1 { return .found(local[0]) }
            let sorted = matches.sorted { $0.utf8Precedes($1) }
            return .ambiguous(chosen: sorted.min(by: Self.isShorter) ?? sorted[0], candidates: sorted)
        }
    }

    /// The outcome of resolving a file link.
    enum AssetResolution: Equatable {
        case found(String)
        case notFound
        /// Several files match: `chosen` is the one Obsidian shows.
        case ambiguous(chosen: String, candidates: [String])
        case outsideVault
    }

    /// Whether a URL's scheme is one apps may open.
    static func isSafeURL(_ url: String) -> Bool {
        guard let scheme = scheme(of: url) else { return false }
        return ["http", "https", "mailto", "tel"].contains(scheme)
    }

    /// The lowercased scheme of an absolute URL, nil for a relative reference.
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon]
        return isSchemeName(scheme) ? scheme.lowercased() : nil
    }

    /// RFC 3986 scheme syntax: a letter, then letters, digits, `+`, `-` or `.`.
    static func isSchemeName(_ name: some StringProtocol) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)
        }
    }
}
