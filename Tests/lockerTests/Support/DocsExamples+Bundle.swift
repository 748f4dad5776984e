import Foundation

/// docs/bundle-format.md: the output folder, the manifest, indexes, documents, blocks and spans,
/// link targets, uuids, deep links and `_headers`.
extension DocsExamples {
    /// The examples vault's notes: a guide with one of each block, and one it embeds. Each part
    /// of the syntax note that a doc shows as Markdown is a region of its own.
    static let examplesVault: [String: String] = [
        "locker.yml": "title: Examples\nlocales: [en, ru]\n",
        "guides/cleat-hitch.md": """
        # Cleat hitch

        A turn round the base, a figure of eight over the horns, and a locking hitch. ^summary

        """,
        "guides/syntax.md": """
        ---
        id: syntax
        title: Syntax
        ---
        Take a bearing on two marks and watch them. ^bearings

        - [ ] Make a small loop ^loop
        - [x] Pass the end up through it

        > [!tip]- Mnemonic
        > The rabbit comes out of the hole.

        > A plain quote.

        ```swift
        let knot = "bowline"
        ```

        | Step | Note |
        | :--- | :---: |
        | 1 | loop |

        ![[bowline.png|300]]

        ![Bowline tied|120x80](bowline.png)

        \(spansMarkdown)
        \(footnotesMarkdown)
        ![[cleat-hitch#^summary]]

        """,
    ]
    static let spansMarkdown = """
        Intro with **bold**, *italic*, ~~old~~, ==marked==, `code`, #knots/basic and a [site](https://example.org).
        Second line after a soft break.<br>After br.

        """
    static let footnotesMarkdown = """
        Anchor in sand[^holding], not weed^[Weed *fouls* the fluke.].

        [^holding]: Good holding ground.

        """
    /// A 1×1 PNG: `bowline.png`, the image the syntax note shows.
    static let png =
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
        ?? Data()

    /// The content of `bundles/v1/PATH` in the build of `content/` (or of `root`).
    func bundleJSON(_ path: String, in root: String = "build") throws -> ExampleJSON {
        try ExampleJSON(contentsOf: work.appendingPathComponent("\(root)/bundles/v1/\(path)"))
    }

    /// The manifest entry of a document, from the manifest of the build in `root`.
    func manifestFile(kind: String, id: String, locale: String, in root: String = "build") throws -> String {
        let manifest = try bundleJSON("manifest.json", in: root)
        guard
            let file = try manifest.member("files").elements.first(where: {
                $0["kind"]?.text == kind && $0["id"]?.text == id && $0["locale"]?.text == locale
            }), let path = file["path"]?.text
        else { throw Failure(message: "no \(kind) '\(id)' in \(locale) in \(root)'s manifest") }
        return path
    }

    mutating func makeBundleExamples() throws {
        let manifest = try bundleJSON("manifest.json")
        regions["bundle-tree"] = Self.fenced(try bundleTree())
        regions["manifest"] = Self.fenced(try abridgedManifest(manifest).pretty, "jsonc")
        regions["bundle-headers"] = Self.fenced(try read("build/_headers"))

        // The English indexes, cut to their first entries.
        let guides = try manifestIndex(manifest, lists: "guide", locale: "en")
        regions["index-guides"] = Self.fenced(try index(guides, entries: 2).pretty, "jsonc")
        let checklists = try manifestIndex(manifest, lists: "checklist", locale: "en")
        let decks = try manifestIndex(manifest, lists: "deck", locale: "en")
        regions["index-checklists-decks"] = Self.fenced(
            try index(checklists, entries: 1).pretty + "\n" + index(decks, entries: 1).pretty, "jsonc")

        try makeGuideExamples(manifest)
        try makeCharterVaultExamples()
        try makeSyntaxExamples()
        try makeIdentityExamples()
    }

    /// The build of `content/`: the output folder to the bundle's files, and the site's first level.
    private func bundleTree() throws -> String {
        let notes: [String: String] = [
            "": "← --out (default: build)",
            ".locker-build": "marker: this folder was written by locker build",
            ".locker-notes": "what the build learned of each note, for the next",
            "_headers": "cache rules for Netlify / Cloudflare Pages",
            "bundles/v1": "one folder per schema major version",
            "bundles/v1/manifest.json": "the only file that changes in place",
            "bundles/v1/signatures": "a signed build only",
            "site": "the website (site.md): publish it on its own",
            "site/_headers": "the site's cache and security headers",
            "site/assets": "images, style sheet, icon, script",
            "site/en": "the English pages (the default locale's are at the root)",
        ]
        let kinds = ["guide": "guides", "checklist": "checklists", "deck": "decks"]
        let tree = OutputTree(
            note: { path in
                if let note = notes[path] { return note }
                let parts = path.split(separator: "/").map(String.init)
                // bundles/v1/<kind>/<locale>/<file>: what the English documents and index are.
                if parts.count == 5, parts[0] == "bundles", parts[3] == "en", let plural = kinds[parts[2]] {
                    return parts[4].hasPrefix("index.")
                        ? "the list of \(plural) in English" : "one file per \(parts[2]) and locale"
                }
                if parts.count == 4, parts[2] == "signatures" {
                    return "the manifest's signatures, named by its SHA-256"
                }
                return nil
            },
            // The site's pages are in site.md: here only its first level.
            opens: { !$0.hasPrefix("site/") }, noteColumn: 49)
        return try tree.draw(work.appendingPathComponent("build"), title: "build/")
    }

    /// The manifest with its first file, the first index, and how many more between and after.
    private func abridgedManifest(_ manifest: ExampleJSON) throws -> ExampleJSON {
        let files = try manifest.member("files").elements
        guard let firstIndex = files.firstIndex(where: { $0["kind"]?.text == "index" }), firstIndex > 0 else {
            throw Failure(message: "the manifest of content/ has no index after a document")
        }
        var shown: [ExampleJSON] = [files[0]]
        if firstIndex > 1 { shown.append(.comment("\(firstIndex - 1) more files")) }
        shown.append(files[firstIndex])
        shown.append(.comment("\(files.count - firstIndex - 1) more files, sorted by path"))
        return manifest.setting("files", to: .array(shown))
    }

    private func manifestIndex(_ manifest: ExampleJSON, lists kind: String, locale: String) throws -> ExampleJSON {
        guard
            let file = try manifest.member("files").elements.first(where: {
                $0["lists"]?.text == kind && $0["locale"]?.text == locale
            }), let path = file["path"]?.text
        else { throw Failure(message: "no \(kind) index in \(locale)") }
        return try bundleJSON(path)
    }

    private func index(_ index: ExampleJSON, entries count: Int) throws -> ExampleJSON {
        index.setting("entries", to: try index.member("entries").firstElements(count, more: "entries"))
    }

    /// A guide of `content/`, its sections shortened, and one section in full: the shortest
    /// top-level section with a callout and no subsections of the English guides, which shows
    /// the most kinds of block in the fewest lines.
    private mutating func makeGuideExamples(_ manifest: ExampleJSON) throws {
        var best: (path: String, guide: ExampleJSON, section: ExampleJSON, lines: Int)?
        for file in try manifest.member("files").elements
        where file["kind"]?.text == "guide" && file["locale"]?.text == "en" {
            guard let path = file["path"]?.text else { continue }
            let guide = try bundleJSON(path)
            for section in try guide.member("sections").elements {
                let types = section["blocks"]?.elements.compactMap { $0["type"]?.text } ?? []
                let lines = section.pretty.split(separator: "\n").count
                guard types.contains("callout"), section["sections"]?.elements.isEmpty == true,
                    lines < best?.lines ?? .max
                else { continue }
                best = (path, guide, section, lines)
            }
        }
        guard let best, let anchor = best.section["anchor"]?.text else {
            throw Failure(message: "no English guide of content/ has a section with a callout")
        }
        let anchors = try best.guide.member("sections").elements.compactMap { $0["anchor"]?.text }
        var guide = best.guide.setting("sections", to: .array([ExampleJSON.commentListing(anchors)]))
        let blocks = try guide.member("blocks")
        if blocks.pretty.split(separator: "\n").count > 15 {
            guide = guide.setting("blocks", to: .array([.comment("\(blocks.elements.count) blocks")]))
        }
        regions["guide"] =
            "One guide in one language. From `\(best.path)`\n(sections shortened here; `\(anchor)` is shown in "
            + "full under [Section](#section)):\n\n" + Self.fenced(guide.pretty, "jsonc")
        regions["section"] =
            "A heading and what stands under it. The section `\(anchor)` of the guide above, in full:\n\n"
            + Self.fenced(best.section.pretty, "json")
    }

    /// The first link of `content/`'s English guides to a document, and the first to a section.
    private func contentLinkTargets() throws -> [ExampleJSON] {
        var document: ExampleJSON?
        var section: ExampleJSON?
        for file in try bundleJSON("manifest.json").member("files").elements
        where file["kind"]?.text == "guide" && file["locale"]?.text == "en" {
            guard let path = file["path"]?.text else { continue }
            for value in try bundleJSON(path).descendants {
                guard let target = value["target"], target["kind"] != nil else { continue }
                if target["anchor"] == nil {
                    document = document ?? target
                } else {
                    section = section ?? target
                }
            }
        }
        guard let document, let section else { throw Failure(message: "content/'s guides link to no section") }
        return [document, section]
    }

    /// The charter test vault: its checklist, decks and cards, as content-format.md writes them.
    private mutating func makeCharterVaultExamples() throws {
        let vault = Self.repository.appendingPathComponent("Tests/LockerCoreTests/Fixtures/charter/vault")
        try locker(["build", vault.path, "--out", "charter"])
        let checklistPath = try manifestFile(kind: "checklist", id: "check-in", locale: "en", in: "charter")
        let checklist = try bundleJSON(checklistPath, in: "charter")
        let sections = try checklist.member("sections").elements
        let ids = sections.compactMap { $0["id"]?.text }
        regions["checklist"] =
            "One checklist in one language: sections of subsections of items. From the charter test vault's\n"
            + "`\(checklistPath)`, made from `\(checklist["source"]?.text ?? "")` (its markdown is shown\n"
            + "in content-format.md, [Checklists](content-format.md#checklists)); sections shortened here:\n\n"
            + Self.fenced(checklist.setting("sections", to: .array([ExampleJSON.commentListing(ids)])).pretty, "jsonc")

        guard let first = sections.first else { throw Failure(message: "the charter checklist has no section") }
        let subsections = try first.member("subsections").elements
        let shortened = subsections.enumerated().map { index, subsection -> ExampleJSON in
            guard index > 0 else { return subsection }
            let items = subsection["items"]?.elements.compactMap { $0["id"]?.text } ?? []
            let id = subsection["id"]?.text ?? ""
            let counted = items.count == 1 ? "one item" : "\(items.count) items"
            return .commentListing(items, prefix: "\"\(id)\": an H3 subsection with \(counted), ")
        }
        regions["checklist-section"] = Self.fenced(first.setting("subsections", to: .array(shortened)).pretty, "jsonc")

        let items = sections.flatMap { $0["subsections"]?.elements ?? [] }.flatMap { $0["items"]?.elements ?? [] }
        guard let derived = items.first(where: { $0["explicitID"] == .bool(false) }) else {
            throw Failure(message: "the charter checklist has no item with a derived ID")
        }
        regions["checklist-item"] = Self.fenced(derived.pretty, "json")
        var itemTarget: ExampleJSON?
        for file in try bundleJSON("manifest.json", in: "charter").member("files").elements
        where file["kind"]?.text == "deck" && itemTarget == nil {
            guard let path = file["path"]?.text else { continue }
            itemTarget = try bundleJSON(path, in: "charter").descendants.first {
                $0["target"]?["kind"]?.text == "checklist" && $0["target"]?["anchor"] != nil
            }?["target"]
        }
        guard let itemTarget else { throw Failure(message: "no card of the charter test vault links to an item") }
        regions["link-target-item"] = Self.fenced(itemTarget.spaced, "json")

        let deckPath = try manifestFile(kind: "deck", id: "sound-signals", locale: "en", in: "charter")
        let deck = try bundleJSON(deckPath, in: "charter")
        let cards = try deck.member("cards").elements
        regions["deck"] =
            "One flashcard deck in one language. From the charter test vault's\n"
            + "`\(deckPath)`, made from `\(deck["source"]?.text ?? "")` (shown in\n"
            + "content-format.md, [Decks and cards](content-format.md#decks-and-cards)); cards shortened here:\n\n"
            + Self.fenced(
                deck.setting("cards", to: .array([.commentListing(cards.compactMap { $0["id"]?.text })])).pretty,
                "jsonc")
        let shapesPath = try manifestFile(kind: "deck", id: "day-shapes", locale: "en", in: "charter")
        let shapes = try bundleJSON(shapesPath, in: "charter")
        let shapeCards = try shapes.member("cards").elements.compactMap { $0["id"]?.text }
        regions["deck-without-folder-note"] =
            "A deck without a folder note, such as `\(shapes["title"]?.text ?? "")` in the same vault\n"
            + "(`\(shapesPath)`), has the folder's name as its title and the folder as its\nsource:\n\n"
            + Self.fenced(shapes.setting("cards", to: .array([.commentListing(shapeCards)])).pretty, "jsonc")

        guard cards.count > 1, let second = cards[1]["id"]?.text,
            let reverse = cards.first(where: { $0["id"]?.text == second + "-reverse" })
        else { throw Failure(message: "the charter deck's second card has no reverse") }
        regions["card"] = Self.fenced(cards[1].pretty, "json")
        regions["card-reverse"] = Self.fenced(reverse.spaced, "json")
    }

    /// The examples vault: one block of each type, spans, footnotes, an embed, a locale fallback.
    private mutating func makeSyntaxExamples() throws {
        let vault = work.appendingPathComponent("examples")
        for (path, text) in Self.examplesVault { try write(text, to: vault.appendingPathComponent(path)) }
        try Self.png.write(to: vault.appendingPathComponent("bowline.png"))
        try locker(["build", "examples", "--out", "examples-build"])
        let syntax = try bundleJSON(
            manifestFile(kind: "guide", id: "syntax", locale: "en", in: "examples-build"), in: "examples-build")
        let blocks = try syntax.member("blocks").elements
        func block(_ type: String, _ occurrence: Int = 0) throws -> ExampleJSON {
            let found = blocks.filter { $0["type"]?.text == type }
            guard found.count > occurrence else { throw Failure(message: "the syntax note has no \(type) block") }
            return found[occurrence]
        }
        for type in ["list", "callout", "quote", "code", "table", "embed"] {
            regions["block-\(type)"] = Self.fenced(try block(type).wrapped(), "json")
        }
        regions["block-paragraph"] = Self.fenced(try block("paragraph").wrapped(), "json")
        regions["block-image"] = Self.fenced(try block("image").spaced + "\n" + block("image", 1).spaced, "json")
        regions["spans-markdown"] = Self.fenced(Self.spansMarkdown, "markdown")
        regions["spans"] = Self.fenced(try block("paragraph", 1).member("spans").wrapped(), "json")
        regions["footnotes-markdown"] = Self.fenced(Self.footnotesMarkdown, "markdown")
        regions["footnotes"] = Self.fenced(try block("paragraph", 2).member("spans").wrapped(), "json")
        // Link targets: content/'s to a document and a section, then a block and a URL.
        var targets = try contentLinkTargets()
        if let embedTarget = try block("embed")["embed"]?["target"] { targets.append(embedTarget) }
        if let url = try block("paragraph", 1).descendants.first(where: { $0["target"]?["url"] != nil })?["target"] {
            targets.append(url)
        }
        regions["link-targets"] = Self.fenced(targets.map(\.spaced).joined(separator: "\n"), "json")

        let manifest = try bundleJSON("manifest.json", in: "examples-build")
        guard
            let path = try manifest.member("files").elements.first(where: {
                $0["lists"]?.text == "guide" && $0["locale"]?.text == "ru"
            })?["path"]?.text
        else { throw Failure(message: "the examples vault has no Russian index of guides") }
        regions["index-fallback"] = Self.fenced(try bundleJSON(path, in: "examples-build").pretty, "json")
    }

    /// Computing uuids, and the links of a few targets of `content/` as `locker open` prints them.
    private mutating func makeIdentityExamples() throws {
        let anchoring = try bundleJSON(manifestFile(kind: "guide", id: "anchoring", locale: "en"))["uuid"]?.text
        let registration = try bundleJSON(manifestFile(kind: "checklist", id: "check-in", locale: "en")).descendants
            .first { $0["id"]?.text == "registration" }?["uuid"]?.text
        guard let anchoring, let registration else {
            throw Failure(message: "content/ has no guide 'anchoring' or no item 'registration' in 'check-in'")
        }
        regions["uuid-python"] = Self.fenced(
            """
            import uuid
            namespace = uuid.uuid5(uuid.NAMESPACE_DNS, "content.locker")
            # namespace == UUID("486d1760-afaf-5698-9544-04b484c2cbce")
            uuid.uuid5(namespace, "guide/anchoring")
            # UUID("\(anchoring)"), as in the bundle of content/
            uuid.uuid5(namespace, "checklist/check-in/item/registration")
            # UUID("\(registration)"), as in the bundle of content/
            """, "python")

        var links: [String] = []
        for web in [
            "https://captainslocker.example/guides/anchoring/",
            "https://captainslocker.example/checklists/check-in/#item-windlass",
            "https://captainslocker.example/en/guides/safety-briefing/#man-overboard",
            "https://captainslocker.example/decks/sound-signals/#card-one-short",
        ] {
            let run = try locker(["open", web, "--locale", "en", "--format", "json"])
            let target = try ExampleJSON(run.stdout).member("target")
            links += [try target.member("appLink").text ?? "", try target.member("webLink").text ?? ""]
        }
        regions["deep-links"] = Self.fenced(links.joined(separator: "\n"))
    }
}
