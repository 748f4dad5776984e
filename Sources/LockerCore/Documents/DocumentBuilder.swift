import Foundation
import LockerKit

/// Builds a note's final document: links resolved to kinds and IDs, embeds expanded, images
/// pointed at bundle assets.
///
/// Diagnostics are reported for the note's own text only; content embedded from another note
/// was already checked when that note was built, so it is not reported twice.
struct DocumentBuilder {
    let index: VaultIndex
    let resolver: LinkResolver
    let assets: AssetCatalog
    let embedDepth: Int

    /// The note being built, the notes (and fragments) being embedded, outermost first.
    private var stack: [EmbedKey] = []
    private var rootIndex = 0
    private(set) var diagnostics: [Diagnostic] = []
    /// The notes read since the builder was made (by index), and the vault files embedded:
    /// what the result depends on besides the vault's shape (see ``Compiler/keptGuides(notes:hashes:record:assets:)``).
    private(set) var reads: Set<Int> = []
    private(set) var assetUses: Set<AssetUse> = []
    /// Set when an expansion below the current root embed hits a cycle or the depth limit.
    private var nestedProblem: (code: DiagnosticCode, chain: [EmbedKey])?
    /// Whether that limit was ``nestingBudget`` rather than ``embedDepth``.
    private var nestedTooDeepByBlocks = false

    /// How many list items, quotes, callouts, sections and embeds may enclose an embed. A note
    /// nests at most ``BlockConverter/nestingLimit`` levels; embeds stack notes, and without a
    /// budget for all of them a document could nest deeper than the apps' JSON reader accepts
    /// (512 levels, about 5 per level of blocks): 40 here and 20 in the last note embedded keep
    /// a document under 400.
    static let nestingBudget = 40
    /// How many list items, quotes, callouts, sections and embeds enclose what is being converted.
    private var nesting = 0

    private struct EmbedKey: Hashable {
        var note: Int
        var fragment: String?
    }

    init(index: VaultIndex, resolver: LinkResolver, assets: AssetCatalog, embedDepth: Int) {
        self.index = index
        self.resolver = resolver
        self.assets = assets
        self.embedDepth = embedDepth
    }

    private var reporting: Bool { stack.count <= 1 }
    /// The path of the note being read: the root, or the note embedded innermost.
    private var currentPath: String { index.notes[stack.last?.note ?? rootIndex].path }

    /// The note at `noteIndex`, counted as read.
    mutating func note(_ noteIndex: Int) -> ParsedNote {
        reads.insert(noteIndex)
        return index.whole(noteIndex)
    }

    /// The note at `noteIndex` as a link to it needs it (its kind, ID and UUID, which a note kept
    /// unread from the previous build holds too), counted as read but not read from disk: a
    /// rebuild of one note with four links read and parsed four others for their IDs.
    mutating func linkedNote(_ noteIndex: Int) -> ParsedNote {
        reads.insert(noteIndex)
        return index.notes[noteIndex]
    }

    /// Counts notes as read without reading them here.
    mutating func recordReads(_ noteIndices: some Sequence<Int>) {
        reads.formUnion(noteIndices)
    }

    /// Starts building from the note at `noteIndex`: links resolve from it and problems are reported in it.
    /// Diagnostics gathered so far are returned and cleared.
    @discardableResult
    mutating func begin(_ noteIndex: Int) -> [Diagnostic] {
        reads.insert(noteIndex)
        rootIndex = noteIndex
        stack = [EmbedKey(note: noteIndex, fragment: nil)]
        nesting = 0
        defer { diagnostics = [] }
        return diagnostics
    }

    /// The diagnostics gathered since the last ``begin(_:)``, clearing them.
    mutating func takeDiagnostics() -> [Diagnostic] {
        defer { diagnostics = [] }
        return diagnostics
    }

    /// The guide for the note at `noteIndex` (read already when `whole` is given), and what was
    /// wrong with its links.
    mutating func guide(_ noteIndex: Int, note whole: ParsedNote? = nil) -> (Guide, [Diagnostic]) {
        begin(noteIndex)
        let note = whole ?? self.note(noteIndex)
        let blocks = convert(note.blocks)
        let sections = note.sections.map { convert($0) }
        let tags = Self.tags(of: note)
        let guide = Guide(
            id: note.id, uuid: note.uuid,
            locale: note.locale, title: note.title, subtitle: note.frontmatter.subtitle ?? note.frontmatter.description,
            category: note.frontmatter.category, type: Self.guideType(note.frontmatter.type), tags: tags,
            aliases: note.frontmatter.aliases, order: note.frontmatter.order, source: note.path,
            extra: note.frontmatter.extra, blocks: blocks, sections: sections)
        return (guide, diagnostics)
    }

    /// How an app presents a guide: `document`, `briefing` or `checklist`.
    static func guideType(_ type: String?) -> String {
        guard let type, ["document", "briefing", "checklist"].contains(type) else { return "document" }
        return type
    }

    /// The note's tags: frontmatter first, then inline tags in order.
    static func tags(of note: ParsedNote) -> [String] {
        var tags = note.frontmatter.tags
        for tag in note.bodyTags where !tags.contains(tag) { tags.append(tag) }
        return tags
    }

    private mutating func report(
        _ severity: Severity, _ code: DiagnosticCode, _ message: String, at position: SourcePosition,
        hint: String? = nil
    ) {
        guard reporting else { return }
        diagnostics.append(Diagnostic(severity, code, message, file: currentPath, at: position, hint: hint))
    }

    mutating func convert(_ section: ParsedSection) -> Section {
        nesting += 1
        defer { nesting -= 1 }
        return Section(
            anchor: section.anchor, level: section.level, title: section.plainTitle, titleSpans: spans(section.title),
            blocks: convert(section.blocks), sections: section.sections.map { convert($0) })
    }

    /// `blocks` converted one level deeper.
    private mutating func convertNested(_ blocks: [ParsedBlock]) -> [Block] {
        nesting += 1
        defer { nesting -= 1 }
        return convert(blocks)
    }

    mutating func convert(_ blocks: [ParsedBlock]) -> [Block] {
        blocks.compactMap { convert($0) }
    }

    private mutating func convert(_ block: ParsedBlock) -> Block? {
        let content: Block.Content
        switch block.content {
        case .paragraph(let inlines): content = .paragraph(spans(inlines))
        case .heading(_, let inlines): content = .paragraph([.bold(spans(inlines))])
        case .list(let style, let start, let items):
            let converted = items.map { item in
                Block.List.Item(checked: item.checked, blocks: convertNested(item.blocks), blockID: item.blockID)
            }
            content = .list(Block.List(style: style, start: start, items: converted))
        case .callout(let type, let title, let fold, let children):
            content = .callout(
                Block.Callout(
                    calloutType: type, title: title.map { spans($0) }, fold: fold, blocks: convertNested(children)))
        case .quote(let children): content = .quote(convertNested(children))
        case .code(let language, let text): content = .code(language: language, text: text)
        case .math(let tex): content = .math(tex)
        case .table(let align, let header, let rows):
            content = .table(
                Block.Table(align: align, header: header.map { spans($0) }, rows: rows.map { $0.map { spans($0) } }))
        case .image(let source, let alt, let width, let height):
            guard let (src, caption) = image(source, at: block.position) else { return nil }
            content = .image(
                Block.Image(src: src, alt: alt.isEmpty ? (caption ?? "") : alt, width: width, height: height))
        case .embed(let link):
            guard let embedded = embed(link) else {
                // Already reported; show what was written rather than resolving it a second time.
                return Block(.paragraph([.text(Self.displayText(link))]), blockID: block.blockID)
            }
            content = embedded
        case .rule: content = .rule
        }
        return Block(content, blockID: block.blockID)
    }

    // MARK: Inlines

    mutating func spans(_ inlines: [Inline]) -> [Span] {
        var result: [Span] = []
        for inline in inlines {
            switch inline {
            case .text(let text): result.append(.text(text))
            case .emphasis(let children): result.append(.italic(spans(children)))
            case .strong(let children): result.append(.bold(spans(children)))
            case .strikethrough(let children): result.append(.strikethrough(spans(children)))
            case .highlight(let children): result.append(.highlight(spans(children)))
            case .code(let text): result.append(.code(text))
            case .math(let tex), .displayMath(let tex): result.append(.math(tex))
            case .tag(let tag): result.append(.tag(tag))
            case .softBreak: result.append(.lineBreak)
            case .lineBreak: result.append(.lineBreak)
            case .footnote(let footnote):
                result.append(.footnote(Footnote(number: footnote.number, blocks: convertNested(footnote.blocks))))
            case .embed(let link)
            where BlockConverter.imageExtensions.contains(VaultPath.fileExtension(of: link.target)):
                // An image where only text can stand (a table cell, a heading): its alt text, or its name.
                let alt = BlockConverter.size(link.display) == nil ? link.display : nil
                report(
                    .warning, .embedUnsupported,
                    "image '\(link.target)' in a table cell or heading is shown as its \(alt == nil ? "name" : "alt text"): apps show images as blocks",
                    at: link.position, hint: "put the image on a line of its own")
                result.append(.text(alt ?? VaultPath.fileName(of: link.target)))
            case .wikiLink(let link), .embed(let link):
                let text = link.formattedDisplay.map { spans($0) } ?? [Span.text(Self.displayText(link))]
                if let target = noteTarget(link) { result.append(.link(target, text)) } else { result += text }
            case .link(let destination, let children, let position):
                let text = spans(children)
                if let target = markdownTarget(destination, at: position) {
                    result.append(.link(target, text))
                } else {
                    result += text
                }
            case .image(_, let alt, _):
                result.append(.text(alt))
            }
        }
        return Self.mergeText(result)
    }

    private static func mergeText(_ spans: [Span]) -> [Span] {
        var result: [Span] = []
        for span in spans {
            if case .text(let next) = span, case .text(let previous)? = result.last {
                result[result.count - 1] = .text(previous + next)
            } else {
                result.append(span)
            }
        }
        return result
    }

    /// What Obsidian shows for a link: the alias, else the target and fragment as written.
    static func displayText(_ link: WikiLink) -> String {
        if let display = link.display { return display }
        let fragment = link.fragment.map { $0.containsBytes("#") ? $0.replacingOccurrences(of: "#", with: " > ") : $0 }
        switch (link.target.isEmpty, fragment) {
        case (true, let fragment?): return fragment
        case (false, let fragment?): return fragment.hasPrefix("^") ? link.target : link.target + " > " + fragment
        default: return link.target
        }
    }

    // MARK: Links

    /// The document a wikilink names, or nil (with a diagnostic) when it names none.
    mutating func noteTarget(_ link: WikiLink) -> LinkTarget? {
        guard !(link.target.isEmpty && link.fragment == nil) else {
            report(.warning, .linkEmpty, "empty link '[[]]'", at: link.position)
            return nil
        }
        let fileExtension = VaultPath.fileExtension(of: link.target)
        if !fileExtension.isEmpty, fileExtension != "md" {
            // A link to a file other than a note: bundles carry no such files, so it stays text.
            switch resolver.resolveAsset(link.target, fromPath: currentPath, relativeFirst: false) {
            case .notFound:
                report(resolver.unresolvedSeverity, .linkBroken, "no file named '\(link.target)'", at: link.position)
            case .outsideVault: reportOutside(link.target, isEmbed: link.isEmbed, at: link.position)
            case .found, .ambiguous: break
            }
            return nil
        }
        guard let found = findNote(link.target, isEmbed: link.isEmbed, at: link.position) else { return nil }
        // A heading or block is looked for in the note's text, which anchor(for:in:at:) reads.
        let note = linkedNote(found)
        var anchor: String?
        if let fragment = link.fragment, let resolved = self.anchor(for: fragment, in: found, at: link.position) {
            // The note's H1 is its top: a link to it is a link to the document.
            anchor = resolved.isEmpty ? nil : resolved
        }
        return .document(
            kind: note.kind, id: note.id, uuid: note.uuid,
            anchor: anchor)
    }

    private mutating func findNote(_ target: String, isEmbed: Bool, at position: SourcePosition) -> Int? {
        switch resolver.resolveNote(target, from: stack.last?.note ?? rootIndex) {
        case .found(let found): return found
        case .notFound:
            report(
                resolver.unresolvedSeverity, .linkBroken, "no note named '\(target)'", at: position,
                hint: "create the note, or fix the link")
        case .ambiguous(let chosen, let candidates):
            // Translations of the note chosen are not others.
            let chosenIdentity = index.identity(of: chosen)
            let others = candidates.filter { index.identity(of: $0) != chosenIdentity }.map { index.notes[$0].path }
                .joined(separator: ", ")
            let path = index.notes[chosen].path
            report(
                .warning, .linkAmbiguous,
                "'\(target)' could mean several notes; linked to '\(path)' as Obsidian does (the shortest path), not \(others)",
                at: position, hint: "write the path to be sure: [[\(VaultPath.removingExtension(path))]]")
            return chosen
        case .outsideVault: reportOutside(target, isEmbed: isEmbed, at: position)
        }
        return nil
    }

    /// A path above the vault's root. An embed would read it: an error. A link reads nothing, and
    /// is kept as its text, in the bundle and on the site alike: a path relative to the vault's
    /// folder names nothing an app holds or a web host serves.
    private mutating func reportOutside(_ target: String, isEmbed: Bool, at position: SourcePosition) {
        if isEmbed {
            report(.error, .linkOutsideVault, "embed '\(target)' leads outside the vault", at: position)
        } else {
            report(
                .warning, .linkLeavesVault, "link '\(target)' leads outside the vault: kept as its text", at: position,
                hint: "apps and the site hold only the vault: link to a web address (https://…) instead")
        }
    }

    /// The anchor for `#Heading`, `#H2#H3` or `#^block` in a note, reporting it when missing;
    /// empty for the note's H1, which is the top of the document.
    private mutating func anchor(for fragment: String, in noteIndex: Int, at position: SourcePosition) -> String? {
        reads.insert(noteIndex)
        let note = index.outline(noteIndex)
        if fragment.hasPrefix("^") {
            let id = String(fragment.dropFirst())
            if note.blockIDs.contains(id) { return fragment }
            report(.warning, .linkBrokenBlock, "'\(note.path)' has no block '^\(id)'", at: position)
            return nil
        }
        let last = fragment.split(separator: "#").last.map(String.init) ?? fragment
        let key = NoteParser.headingKey(last)
        if let anchor = note.headings[key] { return anchor }
        if let anchor = note.headings.values.first(where: { $0 == Slug.make(last) }) { return anchor }
        report(.warning, .linkBrokenHeading, "'\(note.path)' has no heading '\(last)'", at: position)
        return nil
    }

    /// A markdown link's target: a safe URL, or a note of the vault.
    private mutating func markdownTarget(_ destination: String, at position: SourcePosition) -> LinkTarget? {
        if let scheme = LinkResolver.scheme(of: destination) {
            if LinkResolver.isSafeURL(destination) { return .url(destination) }
            report(
                .warning, .linkUnsafeURL, "'\(scheme):' links are not kept: only http, https, mailto and tel",
                at: position)
            return nil
        }
        var path = destination.removingPercentEncoding ?? destination
        var fragment: String?
        if let hash = path.firstIndex(of: "#") {
            fragment = String(path[path.index(after: hash)...])
            path = String(path[..<hash])
        }
        path = VaultPath.normalize(path)
        let fileExtension = VaultPath.fileExtension(of: path)
        let isNote = fileExtension.isEmpty || fileExtension == "md"
        let from = stack.last?.note ?? rootIndex
        // Named as written: a sibling of the vault's folder (`../other-project`) is common in a
        // repository's README.
        if isNote
            ? resolver.resolveNote(path, from: from) == .outsideVault
            : resolver.resolveAsset(path, fromPath: currentPath, relativeFirst: false) == .outsideVault
        {
            reportOutside(destination, isEmbed: false, at: position)
            return nil
        }
        if path.contains("/"), !path.hasPrefix("/"), !path.hasPrefix("."),
            case .found = resolver.resolveNote("./" + path, from: from)
        {
            // Relative to the note, as in plain markdown; otherwise from the vault root, as Obsidian writes them.
            path = "./" + path
        }
        let link = WikiLink(
            target: path, fragment: fragment.map { $0.replacingOccurrences(of: "-", with: " ") }, display: nil,
            isEmbed: false, position: position)
        if !isNote {
            report(
                .warning, .embedUnsupported, "links to files other than notes are not carried: '\(destination)'",
                at: position)
            return nil
        }
        return noteTarget(link)
    }

    // MARK: Images

    /// An image's source: a URL, or the bundle path of a vault file (`bundled: false` for a file
    /// only the site shows).
    mutating func imageSource(_ source: String, at position: SourcePosition, bundled: Bool = true) -> String? {
        image(source, at: position, bundled: bundled)?.src
    }

    /// The bundle path of an image, as ``imageSource(_:at:bundled:)``, with a drawing's caption in
    /// the language of the note being built.
    mutating func image(
        _ source: String, at position: SourcePosition, bundled: Bool = true
    ) -> (src: String, caption: String?)? {
        if let scheme = LinkResolver.scheme(of: source) {
            if scheme == "https" || scheme == "http" { return (source, nil) }
            report(.warning, .linkUnsafeURL, "image from a '\(scheme):' URL dropped", at: position)
            return nil
        }
        var path = source.removingPercentEncoding ?? source
        // `#…` after a file is display data (Obsidian's `img.png#interface`), not part of its name:
        // Obsidian allows no `#` in file names.
        if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
        path = VaultPath.normalize(path)
        let vaultPath: String
        switch resolver.resolveAsset(path, fromPath: currentPath, relativeFirst: false) {
        case .found(let found): vaultPath = found
        case .notFound:
            report(resolver.unresolvedSeverity, .linkBroken, "no file named '\(source)'", at: position)
            return nil
        case .ambiguous(let chosen, let candidates):
            let others = candidates.filter { $0 != chosen }.joined(separator: ", ")
            report(
                .warning, .linkAmbiguous,
                "'\(source)' could mean several files; shown is '\(chosen)' as Obsidian does (the shortest path), not \(others)",
                at: position, hint: "write the path to be sure: \(chosen)")
            vaultPath = chosen
        case .outsideVault:
            report(.error, .linkOutsideVault, "image '\(source)' lies outside the vault", at: position)
            return nil
        }
        let isDrawing = VaultPath.fileExtension(of: vaultPath) == AssetCatalog.drawingExtension
        let locale = rootIndex < index.notes.count ? index.notes[rootIndex].locale : ""
        let key = isDrawing ? AssetCatalog.drawingKey(vaultPath, locale: locale) : vaultPath
        let found = bundled ? assets.asset(for: key) : assets.siteAsset(for: key)
        assetUses.insert(AssetUse(path: key, bundled: bundled, state: AssetCatalog.state(of: found)))
        switch found {
        case .success(let asset): return (asset.bundlePath, asset.caption)
        case .failure where isDrawing && assets.drawingFailed(vaultPath):
            // Its problems are reported in the description itself.
            return nil
        case .failure(let error):
            report(.error, .fileUnreadable, error.description, at: position)
            return nil
        }
    }

    // MARK: Embeds

    /// Expands `![[Note]]`, `![[Note#Heading]]` or `![[Note#^block]]`; nil when it cannot.
    private mutating func embed(_ link: WikiLink) -> Block.Content? {
        guard let found = findNote(link.target, isEmbed: true, at: link.position) else { return nil }
        let key = EmbedKey(note: found, fragment: link.fragment)
        let isRootSite = stack.count == 1
        if stack.contains(key)
            || (link.fragment == nil && stack.contains(where: { $0.note == found && $0.fragment == nil }))
        {
            nestedProblem = (.embedCycle, stack + [key])
            if isRootSite { reportNested(at: link.position) }
            return nil
        }
        if stack.count > embedDepth || nesting >= Self.nestingBudget {
            nestedProblem = (.embedTooDeep, stack + [key])
            nestedTooDeepByBlocks = stack.count <= embedDepth
            if isRootSite { reportNested(at: link.position) }
            return nil
        }
        let note = self.note(found)
        var anchor: String?
        if let fragment = link.fragment {
            guard let resolved = self.anchor(for: fragment, in: found, at: link.position) else { return nil }
            anchor = resolved.isEmpty ? nil : resolved
        }
        stack.append(key)
        nesting += 1
        defer {
            stack.removeLast()
            nesting -= 1
        }
        var title = note.title
        var blocks: [Block] = []
        var sections: [Section] = []
        if let fragment = link.fragment, fragment.hasPrefix("^") {
            if let block = note.blocksByID[String(fragment.dropFirst())], let converted = convert(block) {
                blocks = [converted]
            }
        } else if let anchor, let section = Self.section(anchor, in: note.sections) {
            title = section.plainTitle
            blocks = convert(section.blocks)
            sections = section.sections.map { convert($0) }
        } else {
            blocks = convert(note.blocks)
            sections = note.sections.map { convert($0) }
        }
        if isRootSite, nestedProblem != nil {
            reportNested(at: link.position)
        }
        let target = LinkTarget.document(
            kind: note.kind, id: note.id, uuid: note.uuid,
            anchor: anchor)
        return .embed(Block.Embed(target: target, title: title, blocks: blocks, sections: sections))
    }

    private mutating func reportNested(at position: SourcePosition) {
        guard let (code, chain) = nestedProblem else { return }
        nestedProblem = nil
        defer { nestedTooDeepByBlocks = false }
        let names = chain.map { key in
            index.notes[key.note].path + (key.fragment.map { "#" + $0 } ?? "")
        }.joined(separator: " → ")
        // Reported at the embed in the note being built, whatever depth the problem was found at.
        let file = index.notes[rootIndex].path
        if code == .embedCycle {
            diagnostics.append(
                Diagnostic(
                    .error, .embedCycle, "embeds form a cycle: \(names)", file: file, at: position,
                    hint: "replace one embed with a link"))
        } else if nestedTooDeepByBlocks {
            diagnostics.append(
                Diagnostic(
                    .error, .embedTooDeep,
                    "embedded notes nest more than \(Self.nestingBudget) levels of lists, quotes, callouts, sections and embeds: \(names)",
                    file: file, at: position, hint: "link instead of embedding, or flatten the embedded notes"))
        } else {
            diagnostics.append(
                Diagnostic(
                    .error, .embedTooDeep, "embeds nest deeper than \(embedDepth): \(names)", file: file, at: position,
                    hint: "link instead of embedding, or raise embedDepth in locker.yml"))
        }
    }

    private static func section(_ anchor: String, in sections: [ParsedSection]) -> ParsedSection? {
        for section in sections {
            if section.anchor == anchor { return section }
            if let nested = self.section(anchor, in: section.sections) { return nested }
        }
        return nil
    }
}
