import Foundation
import LockerKit
import LockerTestSupport
import Testing

/// ``CanonicalJSONWriter`` writes what `Encodable` through ``CanonicalJSON`` writes, byte for byte,
/// for every schema type, over random values that reach every case and every optional member.
@Suite struct CanonicalJSONWriterTests {
    /// Both ways of writing a value.
    private func bothWays(_ value: some CanonicalJSONWritable & Encodable) throws -> (direct: String, encoded: String) {
        let direct = String(decoding: CanonicalJSONWriter.data(for: value), as: UTF8.self)
        let encoded = String(decoding: try CanonicalJSON.encode(value, layout: .compact), as: UTF8.self)
        return (direct, encoded)
    }

    @Test(arguments: 0..<40)
    func writesWhatEncodableWritesForRandomDocuments(_ seed: Int) throws {
        var random = RandomContent(seed: UInt64(seed))
        let guide = random.guide()
        let checklist = random.checklist()
        let deck = random.deck()
        for (direct, encoded) in [try bothWays(guide), try bothWays(checklist), try bothWays(deck)] {
            #expect(direct == encoded)
        }
        let index = ContentIndex(kind: .guide, locale: "ru", entries: (0..<random.int(4)).map { _ in random.entry() })
        let indexes = try bothWays(index)
        #expect(indexes.direct == indexes.encoded)
        let manifest = random.manifest()
        let manifests = try bothWays(manifest)
        #expect(manifests.direct == manifests.encoded)
    }

    /// A manifest written from runs of its files (as a build writes one of thousands, on every
    /// core) is the manifest written whole, whatever the runs and the order of the files; so is
    /// its content version. A title holding what the files' array looks like does not move it.
    @Test(arguments: 0..<40)
    func aManifestWrittenInRunsIsTheManifestWrittenWhole(_ seed: Int) throws {
        var random = RandomContent(seed: UInt64(seed))
        var manifest = random.manifest()
        manifest.files += random.manifest().files + random.manifest().files
        if seed % 3 == 0 { manifest.title = #"a "files":[] ],"files":[{"path":"x"}] \"# }
        if seed % 5 == 0 { manifest.files = [] }
        // The files as written, and the order the manifest lists them in.
        let written = manifest.files
        let rotated = written.indices.map { ($0 + seed) % max(written.count, 1) }
        let order = seed % 2 == 0 ? rotated : rotated.reversed()
        manifest.files = order.map { written[$0] }
        let cuts = [0] + (0..<random.int(4)).map { _ in random.int(order.count + 1) }.sorted() + [order.count]
        let runs = zip(cuts, cuts.dropFirst()).map { Manifest.encodedRun(of: written, order: order[$0..<$1]) }
        var header = manifest
        header.files = []
        let direct = String(decoding: header.data(fileRuns: runs.map(\.json)), as: UTF8.self)
        #expect(direct == String(decoding: CanonicalJSONWriter.data(for: manifest), as: UTF8.self))
        #expect(direct == String(decoding: try CanonicalJSON.encode(manifest, layout: .compact), as: UTF8.self))
        #expect(
            Manifest.contentVersion(ofLines: runs.map(\.versionLines)) == Manifest.contentVersion(of: manifest.files))
    }

    /// A file's ETag is its hash's, made when asked rather than stored: read from JSON, a file
    /// takes it from its `sha256`, whatever the JSON says or leaves out, and writes it the same
    /// way, escapes and all.
    @Test func aFileTakesItsETagFromItsHash() throws {
        let json = #"""
            [{"etag":"\"sha256-other\"","kind":"guide","path":"guide/en/ab.json","sha256":"ab\\\"","size":3},
            {"kind":"asset","path":"x.png","sha256":"cd","size":0}]
            """#
        let files = try JSONDecoder().decode([Manifest.File].self, from: Data(json.utf8))
        #expect(files.map(\.etag) == [#""sha256-ab\"""#, #""sha256-cd""#])
        let written = String(decoding: CanonicalJSONWriter.data(for: files[0]), as: UTF8.self)
        #expect(
            written
                == #"{"etag":"\"sha256-ab\\\"\"","kind":"guide","path":"guide/en/ab.json","sha256":"ab\\\"","size":3}"#
                + "\n")
        let again = try JSONDecoder().decode(Manifest.File.self, from: try JSONEncoder().encode(files[0]))
        #expect(again == files[0] && again.etag == files[0].etag)
    }

    /// Every block and span case is written as `Encodable` writes it, and read back as it was,
    /// from the writer's bytes and from `JSONEncoder`'s: decoding names the members as the one
    /// list of them (``CanonicalJSONObject``) writes them.
    @Test func writesEveryBlockAndSpanCase() throws {
        var random = RandomContent(seed: 7)
        var blockTypes: Set<String> = []
        var spanTypes: Set<String> = []
        let decoder = JSONDecoder()
        for _ in 0..<400 {
            let block = random.block(depth: 0)
            let (direct, encoded) = try bothWays(block)
            #expect(direct == encoded)
            #expect(try decoder.decode(Block.self, from: Data(direct.utf8)) == block)
            #expect(try decoder.decode(Block.self, from: JSONEncoder().encode(block)) == block)
            let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(direct.utf8))
            if case .object(let members) = decoded, case .string(let type)? = members["type"] {
                blockTypes.insert(type)
            }
            let span = random.span(depth: 0)
            let spans = try bothWays(span)
            #expect(spans.direct == spans.encoded)
            #expect(try decoder.decode(Span.self, from: Data(spans.direct.utf8)) == span)
            #expect(try decoder.decode(Span.self, from: JSONEncoder().encode(span)) == span)
            if case .object(let members) = try JSONDecoder().decode(JSONValue.self, from: Data(spans.direct.utf8)),
                case .string(let type)? = members["type"]
            {
                spanTypes.insert(type)
            }
        }
        #expect(
            blockTypes == ["paragraph", "list", "callout", "quote", "code", "math", "table", "image", "embed", "rule"])
        #expect(
            spanTypes == [
                "text", "bold", "italic", "strikethrough", "highlight", "code", "math", "link", "tag", "lineBreak",
                "footnote",
            ])
    }

    @Test func writesIntegersAtTheirLimits() throws {
        for number in [0, -1, 9, 10, -10, Int.max, Int.min] {
            let (direct, encoded) = try bothWays([number])
            #expect(direct == encoded, "\(number)")
        }
    }
}

/// Random schema values from a seeded generator: strings that need escapes and are not ASCII,
/// optional members both present and absent, nesting a few levels deep.
private struct RandomContent {
    var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    mutating func int(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
    mutating func bool() -> Bool { int(2) == 0 }
    mutating func maybe<T>(_ make: (inout RandomContent) -> T) -> T? { bool() ? make(&self) : nil }

    private static let pieces = [
        "a", "Якорь", " ", "\"", "\\", "\n", "\t", "\u{01}", "/", "é", "e\u{301}", "⚓︎", "^id", "{}",
    ]

    mutating func string() -> String { (0..<int(5)).map { _ in Self.pieces[int(Self.pieces.count)] }.joined() }
    mutating func strings() -> [String] { (0..<int(3)).map { _ in string() } }
    mutating func number() -> Int { [0, 1, -7, 42, Int.max, Int.min][int(6)] }

    mutating func json(depth: Int) -> JSONValue {
        switch depth > 2 ? int(5) : int(7) {
        case 0: return .null
        case 1: return .bool(bool())
        case 2: return .int(number())
        case 3: return .double([0.1, 2.0, -1e21, 3.25][int(4)])
        case 4: return .string(string())
        case 5: return .array((0..<int(3)).map { _ in json(depth: depth + 1) })
        default:
            return .object(
                Dictionary(
                    (0..<int(3)).map { _ in (string(), json(depth: depth + 1)) }, uniquingKeysWith: { a, _ in a }))
        }
    }

    mutating func extra() -> [String: JSONValue] {
        Dictionary((0..<int(3)).map { _ in (string(), json(depth: 0)) }, uniquingKeysWith: { a, _ in a })
    }

    mutating func target() -> LinkTarget {
        bool()
            ? .url(string())
            : .document(kind: ContentKind.known[int(3)], id: string(), uuid: string(), anchor: maybe { $0.string() })
    }

    mutating func span(depth: Int) -> Span {
        let children = { (random: inout RandomContent) in (0..<random.int(3)).map { _ in random.span(depth: depth + 1) }
        }
        switch depth > 2 ? [0, 5, 7, 8, 9][int(5)] : int(11) {
        case 0: return .text(string())
        case 1: return .bold(children(&self))
        case 2: return .italic(children(&self))
        case 3: return .strikethrough(children(&self))
        case 4: return .highlight(children(&self))
        case 5: return .code(string())
        case 6: return .link(target(), children(&self))
        case 7: return .tag(string())
        case 8: return .lineBreak
        case 9: return .math(string())
        default:
            // A paragraph at most: a footnote's blocks hold spans, which may hold footnotes.
            return .footnote(Footnote(number: number(), blocks: bool() ? [Block(.paragraph([.text(string())]))] : []))
        }
    }

    mutating func spans(depth: Int = 0) -> [Span] { (0..<int(3)).map { _ in span(depth: depth) } }

    mutating func blocks(depth: Int) -> [Block] {
        depth > 2 ? [] : (0..<int(3)).map { _ in block(depth: depth + 1) }
    }

    mutating func block(depth: Int) -> Block {
        let content: Block.Content
        switch int(10) {
        case 0: content = .paragraph(spans())
        case 1:
            content = .list(
                Block.List(
                    style: [.bullet, .ordered, .task][int(3)], start: maybe { $0.number() },
                    items: (0..<int(3)).map { _ in
                        Block.List.Item(
                            checked: maybe { $0.bool() }, blocks: blocks(depth: depth), blockID: maybe { $0.string() })
                    }))
        case 2:
            content = .callout(
                Block.Callout(
                    calloutType: string(), title: maybe { $0.spans() }, fold: maybe { [.open, .closed][$0.int(2)] },
                    blocks: blocks(depth: depth)))
        case 3: content = .quote(blocks(depth: depth))
        case 4: content = .code(language: maybe { $0.string() }, text: string())
        case 5:
            content = .table(
                Block.Table(
                    align: (0..<int(4)).map { _ in [.none, .left, .center, .right][int(4)] },
                    header: (0..<int(3)).map { _ in spans() },
                    rows: (0..<int(3)).map { _ in (0..<int(3)).map { _ in spans() } }))
        case 6:
            content = .image(
                Block.Image(src: string(), alt: string(), width: maybe { $0.number() }, height: maybe { $0.number() }))
        case 7:
            content = .embed(
                Block.Embed(
                    target: target(), title: string(), blocks: blocks(depth: depth),
                    sections: sections(depth: depth + 1)))
        case 8: content = .math(string())
        default: content = .rule
        }
        return Block(content, blockID: maybe { $0.string() })
    }

    mutating func sections(depth: Int) -> [Section] {
        depth > 2
            ? []
            : (0..<int(3)).map { _ in
                Section(
                    anchor: string(), level: number(), title: string(), titleSpans: spans(),
                    blocks: blocks(depth: depth + 1),
                    sections: sections(depth: depth + 1))
            }
    }

    mutating func guide() -> Guide {
        Guide(
            id: string(), uuid: string(), locale: string(), title: string(), subtitle: maybe { $0.string() },
            category: maybe { $0.string() }, type: string(), tags: strings(), aliases: strings(),
            order: maybe { $0.number() }, source: string(), extra: extra(), blocks: blocks(depth: 0),
            sections: sections(depth: 0))
    }

    mutating func checklist() -> Checklist {
        Checklist(
            id: string(), uuid: string(), locale: string(), title: string(), subtitle: maybe { $0.string() },
            checklistType: ChecklistType(rawValue: string()), tags: strings(), aliases: strings(),
            order: maybe { $0.number() }, source: string(), extra: extra(), blocks: blocks(depth: 1),
            sections: (0..<int(3)).map { _ in
                ChecklistSection(
                    id: string(), uuid: string(), anchor: string(), title: string(), titleSpans: spans(),
                    note: blocks(depth: 2),
                    subsections: (0..<int(3)).map { _ in
                        ChecklistSubsection(
                            id: string(), uuid: string(), anchor: maybe { $0.string() }, title: maybe { $0.string() },
                            titleSpans: maybe { $0.spans() }, note: blocks(depth: 2),
                            items: (0..<int(3)).map { _ in
                                ChecklistItem(
                                    id: string(), uuid: string(), title: string(), titleSpans: spans(),
                                    guidance: blocks(depth: 2), explicitID: bool())
                            })
                    })
            })
    }

    mutating func deck() -> Deck {
        Deck(
            id: string(), uuid: string(), locale: string(), title: string(), description: maybe { $0.string() },
            tags: strings(), order: maybe { $0.number() }, source: string(), extra: extra(),
            cards: (0..<int(4)).map { _ in
                Card(
                    id: string(), uuid: string(), front: blocks(depth: 2), back: blocks(depth: 1), frontText: string(),
                    source: string(), explicitID: bool())
            })
    }

    mutating func entry() -> ContentIndex.Entry {
        ContentIndex.Entry(
            id: string(), uuid: string(), title: string(), subtitle: maybe { $0.string() },
            category: maybe { $0.string() }, type: maybe { $0.string() }, tags: strings(), order: maybe { $0.number() },
            locale: string(), checklistType: maybe { ChecklistType(rawValue: $0.string()) },
            itemCount: maybe { $0.number() }, cardCount: maybe { $0.number() })
    }

    mutating func manifest() -> Manifest {
        Manifest(
            schemaVersion: string(), contentVersion: string(), generatedAt: maybe { $0.string() },
            title: maybe { $0.string() }, defaultLocale: string(), locales: strings(),
            deepLinkScheme: maybe { $0.string() },
            files: (0..<int(4)).map { _ in
                Manifest.File(
                    path: string(), kind: string(), locale: maybe { $0.string() }, id: maybe { $0.string() },
                    lists: maybe { $0.string() }, sha256: string(), size: number())
            })
    }
}
