import LockerKit

/// Where an item or card of one version of a document is written.
struct PartSite: Sendable, Hashable {
    var id: String
    var file: String
    var position: SourcePosition
}

/// One language version of a checklist or deck, with the sites of its items or cards.
struct VersionParts: Sendable {
    var kind: ContentKind
    var id: String
    var locale: String
    /// The note (or folder) the version comes from.
    var source: String
    var parts: [PartSite]
}

/// Compares the translations of each document: every version of a checklist or deck must have
/// the same item or card IDs, and under `--strict` every document must exist in every locale.
struct TranslationChecker {
    var config: VaultConfig
    var strict: Bool

    func check(_ documents: [Document], versions: [VersionParts]) -> [Diagnostic] {
        guard config.locales.count > 1 else { return [] }
        var diagnostics: [Diagnostic] = []
        let rank = config.rank
        if strict {
            let byDocument = Dictionary(grouping: documents) { DocumentKey(kind: $0.kind, id: $0.id) }
            for (key, group) in byDocument.sorted(by: { $0.key < $1.key }) {
                let present = Set(group.map(\.locale))
                let missing = config.locales.filter { !present.contains($0) }
                guard !missing.isEmpty, let shown = group.min(by: { rank($0.locale) < rank($1.locale) }) else {
                    continue
                }
                diagnostics.append(
                    Diagnostic(
                        .warning, .translationMissing,
                        "\(key.kind) '\(key.id)' has no \(missing.joined(separator: ", ")) translation; readers get the \(shown.locale) version",
                        file: shown.source,
                        hint: Self.translationHint(
                            for: shown.source, locale: missing[0], id: key.id, locales: config.locales)))
            }
        }
        let byDocument = Dictionary(grouping: versions) { DocumentKey(kind: $0.kind, id: $0.id) }
        for (key, group) in byDocument.sorted(by: { $0.key < $1.key }) where group.count > 1 {
            let sorted = group.sorted { rank($0.locale) < rank($1.locale) }
            for version in sorted {
                for other in sorted where other.locale != version.locale {
                    let theirs = Set(other.parts.map(\.id))
                    for part in version.parts where !theirs.contains(part.id) {
                        let what = key.kind == .deck ? "card" : "item"
                        diagnostics.append(
                            Diagnostic(
                                .warning, .translationMismatch,
                                "\(what) ID '\(part.id)' of \(key.kind) '\(key.id)' is in \(part.file) but not in its \(other.locale) version, \(other.source)",
                                file: part.file, at: part.position,
                                hint: "give the translated \(what) the same ID, or add it to \(other.source)"))
                    }
                }
            }
        }
        return diagnostics
    }

    /// How to add the translation: the file name with the locale suffix, or `lang:` with the same `id`.
    static func translationHint(for source: String, locale: String, id: String, locales: [String]) -> String {
        guard VaultPath.fileExtension(of: source) == "md" else {
            return
                "add a folder note with 'lang: \(locale)' and 'id: \(id)', or '.\(locale).md' versions of the card notes"
        }
        let stem = VaultPath.fileName(of: VaultPath.basePath(of: source, locales: locales).base)
        return "add '\(stem).\(locale).md' next to it, or a note with 'lang: \(locale)' and 'id: \(id)'"
    }

    private struct DocumentKey: Hashable, Comparable {
        var kind: ContentKind
        var id: String

        static func < (lhs: DocumentKey, rhs: DocumentKey) -> Bool { (lhs.kind, lhs.id) < (rhs.kind, rhs.id) }
    }
}
