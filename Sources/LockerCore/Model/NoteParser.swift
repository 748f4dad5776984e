import LockerKit

/// Reads one note: decodes it, parses its frontmatter and markdown, and gives it structure.
///
/// A pure function of the note's bytes, its path and the vault config, so notes can be parsed
/// in parallel and results cached by content hash.
struct NoteParser: Sendable {
    var config: VaultConfig
    /// What reads a guide's outline (``Reading/outliningGuides``).
    var outlines: @Sendable (String) -> OutlineScanner.Outline? = OutlineScanner.outline(of:)

    /// How much of a note ``parse(path:bytes:reading:)`` reads, and what it reports.
    enum Reading {
        /// All of it.
        case whole
        /// A guide in outline (``ParsedNote/Holding/outline``) when ``OutlineScanner`` can tell
        /// its headings, reporting what its frontmatter has wrong; any other note whole.
        case outliningGuides
        /// The body of a note held in outline or let go, whose frontmatter and identity are the
        /// note's: what the body has wrong is reported, what the frontmatter has was reported
        /// with the note.
        case body(of: ParsedNote)
    }

    /// The parsed note, or nil with the diagnostics that explain why it could not be read.
    func parse(path: String, bytes: [UInt8], reading: Reading = .whole) -> (ParsedNote?, [Diagnostic]) {
        let decoder = SourceDecoder(maxBytes: config.maxFileSize)
        let (decoded, decodeDiagnostics) = decoder.decode(bytes, file: path)
        guard let source = decoded else { return (nil, decodeDiagnostics) }
        var diagnostics = decodeDiagnostics

        let frontmatterParser = FrontmatterParser(file: path, config: config)
        let (split, splitProblem) = frontmatterParser.split(source)
        if let splitProblem { diagnostics.append(splitProblem) }
        let frontmatter: Frontmatter
        let identity: (kind: ContentKind, locale: String, id: String, basePath: String)
        if case .body(let held) = reading {
            frontmatter = held.frontmatter
            diagnostics = []
            // A note that joined a deck has the deck's identity: its own is worked out again.
            identity =
                held.kind == .deck
                ? self.identity(path: path, frontmatter: frontmatter)
                : (held.kind, held.locale, held.id, held.basePath)
        } else {
            let (parsed, frontmatterDiagnostics) = frontmatterParser.parse(split)
            frontmatter = parsed
            diagnostics += frontmatterDiagnostics
            identity = self.identity(path: path, frontmatter: frontmatter)
        }
        let explicitLocale = frontmatter.lang != nil || identity.basePath != VaultPath.removingExtension(path)
        /// The note's title: the frontmatter's, else its H1's, else its file name.
        func title(h1: String?) -> String {
            frontmatter.title ?? h1 ?? VaultPath.fileName(of: identity.basePath)
        }
        if case .outliningGuides = reading, identity.kind == .guide,
            let outline = outlines(split.body)
        {
            let note = ParsedNote(
                path: path, kind: identity.kind, id: identity.id, idPosition: frontmatter.idPosition ?? .start,
                locale: identity.locale, explicitLocale: explicitLocale, frontmatter: frontmatter,
                title: title(h1: outline.h1), headings: outline.headings, basePath: identity.basePath,
                holding: .outline)
            return (note, diagnostics)
        }

        let (body, unterminated) = CommentStripper.strip(split.body)
        if let unterminated {
            diagnostics.append(
                Diagnostic(
                    .warning, .commentUnterminated, "'%%' comment never closes: the rest of the note is hidden",
                    file: path, at: source.position(ofOffset: unterminated), hint: "close the comment with '%%'"))
        }
        var converter = BlockConverter(source: source, file: path)
        let flat = MarkdownParser.parse(body) { converter.document($0, text: body) }
        diagnostics += converter.diagnostics

        var structure = SectionBuilder(file: path)
        let (h1, blocks, sections) = structure.build(flat)
        diagnostics += structure.diagnostics

        var headings: [String: String] = [:]
        var blocksByID: [String: ParsedBlock] = [:]
        var idPositions: [String: SourcePosition] = [:]
        func collect(_ blocks: [ParsedBlock]) {
            for block in blocks {
                if let id = block.blockID { register(id, block, at: block.position) }
                switch block.content {
                case .list(let style, let start, let items):
                    for (offset, item) in items.enumerated() {
                        if let id = item.blockID {
                            let number = start.map { $0 + offset }
                            let single = ParsedBlock(
                                content: .list(style: style, start: number, items: [item]), position: block.position)
                            register(id, single, at: item.blocks.first?.position ?? block.position)
                        }
                        collect(item.blocks)
                    }
                case .callout(_, _, _, let children), .quote(let children): collect(children)
                default: break
                }
            }
        }
        func register(_ id: String, _ block: ParsedBlock, at position: SourcePosition) {
            if let first = idPositions[id] {
                diagnostics.append(
                    Diagnostic(
                        .error, .blockDuplicateID, "block ID '^\(id)' is already used at line \(first.line)",
                        file: path, at: position))
            } else {
                idPositions[id] = position
                blocksByID[id] = block
            }
        }
        func walk(_ sections: [ParsedSection]) {
            for section in sections {
                let key = Self.headingKey(section.plainTitle)
                if headings[key] == nil { headings[key] = section.anchor }
                collect(section.blocks)
                walk(section.sections)
            }
        }
        // The H1 is the note's title, linked to as the top of the note (an empty anchor), and
        // first: Obsidian takes the first heading of a name.
        if let h1 { headings[Self.headingKey(h1.plainText.trimmingWhitespace)] = "" }
        collect(blocks)
        walk(sections)

        var checklist: ParsedChecklist?
        if identity.kind == .checklist {
            var reader = ChecklistReader(file: path)
            checklist = reader.read(blocks: blocks, sections: sections)
            diagnostics += reader.diagnostics
        }
        var cards: [ParsedCard]?
        if identity.kind == .deck {
            var reader = CardReader(file: path)
            cards = reader.read(blocks: blocks, sections: sections)
        }

        let note = ParsedNote(
            path: path, kind: identity.kind, id: identity.id,
            idPosition: frontmatter.idPosition ?? .start, locale: identity.locale,
            explicitLocale: explicitLocale,
            frontmatter: frontmatter,
            title: title(h1: h1.map(\.plainText)), blocks: blocks, sections: sections, bodyTags: converter.tags,
            headings: headings,
            blocksByID: blocksByID, diagnostics: diagnostics, checklist: checklist, cards: cards,
            basePath: identity.basePath)
        return (note, diagnostics)
    }

    /// The kind a frontmatter `type` implies when no `kind` is given.
    static func kind(forType type: String?) -> ContentKind? {
        switch type {
        case "checklist": .checklist
        case "deck": .deck
        default: nil
        }
    }

    /// How a heading is matched by `[[Note#Heading]]`: case and spacing do not matter.
    static func headingKey(_ text: String) -> String {
        asciiHeadingKey(text) ?? characterHeadingKey(text)
    }

    /// ``headingKey(_:)`` by characters: what any text gets, and the rule ``asciiHeadingKey(_:)`` follows.
    static func characterHeadingKey(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// ``headingKey(_:)`` of ASCII text, on bytes; nil when the text is not ASCII.
    static func asciiHeadingKey(_ text: String) -> String? {
        // What `Character.isWhitespace` is in ASCII: tab, line feed, vertical tab, form feed,
        // carriage return and space; every other byte belongs to a word.
        text.asciiLowercasedWords(joinedBy: 0x20) { !(($0 >= 0x09 && $0 <= 0x0D) || $0 == 0x20) }
    }

    /// A note's kind, locale and ID, and its path without extension and locale suffix.
    func identity(path: String, frontmatter: Frontmatter) -> (
        kind: ContentKind, locale: String, id: String, basePath: String
    ) {
        let (basePath, suffixLocale) = VaultPath.basePath(of: path, locales: config.locales)
        let kind = frontmatter.kind ?? Self.kind(forType: frontmatter.type) ?? config.kind(forPath: path) ?? .guide
        let locale = frontmatter.lang ?? suffixLocale ?? config.defaultLocale
        let derived = Slug.id(forPath: basePath)
        let id = frontmatter.id ?? (derived.isEmpty ? "note" : derived)
        return (kind, locale, id, basePath)
    }
}

extension Array where Element == Inline {
    /// The inlines' text, without formatting.
    var plainText: String {
        map { inline -> String in
            switch inline {
            case .text(let text), .code(let text), .math(let text), .displayMath(let text): text
            case .tag(let tag): "#" + tag
            case .softBreak: " "
            case .lineBreak: "\n"
            case .emphasis(let children), .strong(let children), .strikethrough(let children),
                .highlight(let children):
                children.plainText
            case .link(_, let children, _): children.plainText
            case .wikiLink(let link), .embed(let link): link.display ?? link.target
            case .image(_, let alt, _): alt
            case .footnote: ""
            }
        }.joined()
    }
}
