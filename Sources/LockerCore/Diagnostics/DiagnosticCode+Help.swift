/// What each diagnostic code means and how to fix it, for tools that show a code's documentation
/// beside its problems (the rules of `--format sarif`).
///
/// The table below is the one place the texts live in the program; docs/content-format.md lists
/// the same codes for authors, and a test checks that every code has its entry in both.
extension DiagnosticCode {
    /// A code's documentation: a one-line summary, what it means in full, and what to do.
    public struct Help: Sendable, Hashable {
        /// One line, as the code's declaration summarises it.
        public var summary: String
        /// What the problem is, in full: the "Meaning" column of content-format.md.
        public var explanation: String
        /// What to do about it: the "How to fix" column.
        public var fix: String

        init(_ summary: String, _ explanation: String, fix: String) {
            self.summary = summary
            self.explanation = explanation
            self.fix = fix
        }
    }

    /// This code's documentation; nil for a code Locker does not declare (one read from an older record).
    public var help: Help? { Self.helpTable[self] }

    /// Every code Locker declares, with its documentation.
    static let helpTable: [DiagnosticCode: Help] = [
        .fileInvalidUTF8: Help(
            "The file is not valid UTF-8.",
            "The note (or `locker.yml`) is not valid UTF-8.",
            fix: "Save it as UTF-8."),
        .fileBinary: Help(
            "The file holds NUL bytes: binary data named `.md`.",
            "The file holds NUL bytes: binary data named `.md`.",
            fix: "Remove it, or rename it."),
        .fileTooLarge: Help(
            "The file is larger than the limit.",
            "The note is larger than `maxFileSize` (`locker.yml`: larger than 1 MiB).",
            fix: "Split the note, or raise `maxFileSize`."),
        .fileUnreadable: Help(
            "The file could not be read.",
            "A note, an image a note embeds, or a template of the site cannot be read (a template must be UTF-8), or a note changed while the build was reading the vault.",
            fix: "Check that the file exists and can be read; build again once the note is saved."),
        .fileBOM: Help(
            "The file starts with a byte order mark, which was removed.",
            "The file starts with a byte order mark; it was removed.",
            fix: "Nothing to do (or save without BOM)."),
        .fileCRLF: Help(
            "The file uses CRLF line endings, which were normalised.",
            "CRLF line endings were read as LF.",
            fix: "Nothing to do."),
        .fileEmpty: Help(
            "The note is empty.",
            "The note is empty or only whitespace.",
            fix: "Write it, or delete it."),
        .fileOutsideVault: Help(
            "A symbolic link points outside the vault and was not followed.",
            "A symbolic link points outside the vault; it was not read.",
            fix: "Move the file into the vault."),
        .configInvalid: Help(
            "`locker.yml` is not valid YAML or has a value of the wrong type.",
            "`locker.yml` is invalid YAML, not a mapping, repeats a key, or has a wrong value (bad locale tag, unknown kind, `defaultLocale` not in `locales`, …).",
            fix: "Fix the value the message names."),
        .configUnknownKey: Help(
            "`locker.yml` has a key Locker does not know.",
            "`locker.yml` has a key Locker does not know.",
            fix: "Fix the spelling (the hint lists the keys), or remove it."),
        .configKindFolder: Help(
            "A folder named for checklists or a deck holds notes built as guides, in a vault whose `locker.yml` has no `kinds`: the note says how to map it.",
            "`locker.yml` has no `kinds`, and a folder named for checklists or a deck (`Checklists`, `flashcards`, …) holds notes built as guides.",
            fix: "Paste the hint's `kinds` line into `locker.yml` to build them so, or any `kinds` to choose otherwise."
        ),
        .frontmatterUnterminated: Help(
            "The frontmatter opens with `---` but never closes.",
            "Frontmatter opened with `---` never closes.",
            fix: "End it with a line holding only `---`."),
        .frontmatterSyntax: Help(
            "The frontmatter is not valid YAML.",
            "The frontmatter is not valid YAML.",
            fix: "Fix the YAML at the line shown; quote values that hold `:` or `#`."),
        .frontmatterNotMapping: Help(
            "The frontmatter is not a mapping of keys to values.",
            "The frontmatter is a list or a single value, not `key: value` lines.",
            fix: "Write `key: value` lines."),
        .frontmatterTooComplex: Help(
            "The frontmatter expands to too many values (an alias bomb, or just too much).",
            "The frontmatter expands to more than 10,000 values (usually aliases `*name`).",
            fix: "Simplify it."),
        .frontmatterInvalidValue: Help(
            "A known key has a value of the wrong type or outside its allowed values.",
            "A typed key has a wrong value: `lang` not in `locales`, unknown `category`/`type`/`kind`, `order` not a whole number, a list where text is expected.",
            fix: "Use one of the values the hint lists."),
        .frontmatterDuplicateKey: Help(
            "A key appears twice in the frontmatter.",
            "A key appears twice in the frontmatter.",
            fix: "Keep one."),
        .idDuplicate: Help(
            "Two documents of the same kind and locale have the same ID.",
            "Two notes of the same kind and language have the same id, or ids that differ only in case.",
            fix: "Give one a different `id:`, or a `lang:` if it is a translation."),
        .idInvalid: Help(
            "An `id` that is not a usable identifier.",
            "The `id` holds characters other than letters, digits, `-`, `_`, `.`, `/`, or an empty, `.` or `..` part.",
            fix: "Use e.g. `id: anchoring` or `id: knots/bowline`."),
        .linkBroken: Help(
            "A link or embed names a note or file that does not exist.",
            "A link, embed or image names a note or file that does not exist.",
            fix: "Create the note, or fix the link."),
        .linkAmbiguous: Help(
            "A link names more than one note equally well.",
            "A link's name matches several notes (or files) in other folders; it goes to the one with the shortest path, as in Obsidian.",
            fix: "Write more of the path."),
        .linkBrokenHeading: Help(
            "A link names a heading the target does not have.",
            "The target note has no such heading.",
            fix: "Fix the heading text in the link."),
        .linkBrokenBlock: Help(
            "A link names a block ID the target does not have.",
            "The target note has no such block ID.",
            fix: "Add `^id` to the block, or fix the link."),
        .linkOutsideVault: Help(
            "An embed or image, something Locker would read, names a path above the vault's root.",
            "An embed or image path climbs above the vault root: Locker reads only the vault.",
            fix: "Point it at a file inside the vault."),
        .linkLeavesVault: Help(
            "A link (not an embed) names a path above the vault's root: it reads nothing, and is kept as its text.",
            "A link (not an embed) climbs above the vault root, such as `[server](../server)` to a folder beside the vault; kept as its text.",
            fix: "Link to a web address (`https://…`), or move the target into the vault."),
        .linkUnsafeURL: Help(
            "A link with a scheme apps must not open (`javascript:`, `data:`, …).",
            "A link with a scheme other than `http`, `https`, `mailto`, `tel` (images: other than `http`, `https`); dropped.",
            fix: "Use an allowed URL, or remove the link."),
        .linkEmpty: Help(
            "An empty wikilink, `[[]]`.",
            "An empty wikilink `[[]]`.",
            fix: "Fill it in or remove it."),
        .footnoteUndefined: Help(
            "A footnote reference, `[^label]`, with no `[^label]: …` definition in its note.",
            "A footnote reference `[^label]` whose note has no `[^label]: …` definition; shown as text.",
            fix: "Define it, or escape it as `\\[^label]`."),
        .footnoteUnused: Help(
            "A footnote definition, `[^label]: …`, that nothing in its note refers to.",
            "A footnote definition `[^label]: …` that nothing in its note refers to; left out.",
            fix: "Refer to it, or remove it."),
        .embedCycle: Help(
            "Embeds embed each other in a cycle.",
            "Embeds embed each other in a circle.",
            fix: "Replace one embed with a link."),
        .embedTooDeep: Help(
            "Embeds nest deeper than the limit.",
            "Embeds nest deeper than `embedDepth`, or an embed sits under more than 40 levels of lists, quotes, callouts, sections and embeds.",
            fix: "Link instead of embedding, raise `embedDepth`, or flatten the embedded notes."),
        .embedUnsupported: Help(
            "An embedded file type Locker cannot carry (only notes and images can be embedded).",
            "An embed of, or markdown link to, a file that is neither a note nor an image (e.g. a PDF); or an image in a table cell or a heading, shown as its alt text or name.",
            fix: "Link to a web page instead, remove it, or put the image on a line of its own."),
        .headingSkippedLevel: Help(
            "A heading level was skipped (H2 straight to H4).",
            "A heading level is skipped (H2 straight to H4).",
            fix: "Use the next level (the hint says which)."),
        .headingExtraH1: Help(
            "An H1 after the first, or after other content: it becomes a section.",
            "A second H1, or an H1 after other content; it becomes a section.",
            fix: "Use `##`."),
        .headingTooDeep: Help(
            "An H5 or H6: deeper than sections go, kept as a bold paragraph.",
            "An H5 or H6; kept as a bold paragraph.",
            fix: "Use H2–H4, or bold text."),
        .blockDuplicateID: Help(
            "The same block ID twice in one note.",
            "The same block ID twice in one note (in a checklist: two items with the same `^id`).",
            fix: "Rename one."),
        .markdownTooDeep: Help(
            "Quotes, callouts, lists and inline spans nested deeper than the limit: the rest is dropped.",
            "Quotes, callouts, lists and inline formatting nest more than 20 levels deep; the deeper part is dropped.",
            fix: "Flatten the structure: split it into sections."),
        .htmlDropped: Help(
            "Raw HTML in a note: apps render no HTML, so it is dropped.",
            "Raw HTML; the apps do not render it, so it was dropped.",
            fix: "Write it in markdown."),
        .commentUnterminated: Help(
            "A `%%` comment that never closes: the rest of the note is hidden.",
            "A `%%` comment never closes; the rest of the note is hidden.",
            fix: "Close it with `%%`."),
        .checklistEmpty: Help(
            "A checklist with no items at all.",
            "A checklist has no items.",
            fix: "Write items as list entries (`- [ ] item`) under `## Section` headings."),
        .checklistEmptySection: Help(
            "A section or subsection of a checklist with no items.",
            "A section or subsection of a checklist has no items.",
            fix: "Add items, or remove the heading."),
        .checklistEmptyItem: Help(
            "A checklist item with no text.",
            "A checklist item has no text (`- [ ]` alone).",
            fix: "Write what to check on its first line, or remove it."),
        .checklistItemOutsideSection: Help(
            "List items before the first H2 of a checklist: they belong to no section.",
            "List items before the first H2 of a checklist.",
            fix: "Put a `## Section` heading above them."),
        .checklistHeadingTooDeep: Help(
            "An H4 (or deeper) in a checklist, which has sections (H2) and subsections (H3) only.",
            "An H4 in a checklist; its items and text join the subsection above.",
            fix: "Make it an H3, or bold text."),
        .checklistUnknownType: Help(
            "A `checklistType` Locker does not know.",
            "`checklistType` is not one of `preCharter`, `checkIn`, `daily`, `postCharter`, `reference`.",
            fix: "Use one of those."),
        .deckEmpty: Help(
            "A deck with no cards.",
            "A deck has no cards (in one of its languages), or a folder mapped to `deck` in `locker.yml` holds no notes.",
            fix: "Add card notes to the folder, or `front::back` lines; or remove the mapping."),
        .deckEmptySide: Help(
            "A card with an empty front or back.",
            "A card has an empty front or back.",
            fix: "Write both sides."),
        .deckDuplicateCard: Help(
            "Two cards of one deck with the same front.",
            "Two cards of a deck have the same front (ignoring case).",
            fix: "Merge them, or make the questions differ."),
        .deckDuplicateID: Help(
            "Two cards of one deck with the same ID.",
            "Two cards of a deck have the same written ID.",
            fix: "Give one a different ID."),
        .drawingInvalid: Help(
            "A `.drawing` description that cannot be read: no scene, too large, too many rows or places.",
            "A `.drawing` file is empty, does not start with a scene (`day`, `night` and its views, `plan`, `sound`), is not UTF-8, is larger than 4 KiB, or has more than 8 rows or 8 places in a row.",
            fix: "Start with the scene, then write a row of shapes per line, within the limits."),
        .drawingUnknownShape: Help(
            "A place in a `.drawing` description names no shape, light or sound the drawing knows.",
            "A place in a row of a `.drawing` file is neither a shape of a `day` drawing (`ball`, `cone-up`, `cone-down`, `cylinder`, `diamond`, `flag-a`, `square-flag`), a light of a `night` or `plan` one (`masthead`, `sidelights`, `sternlight`, `towing`, `tricolour`, `white`, `red`, `green`, `yellow`, `flashing-yellow`), a sound of a `sound` one (`short`, `prolonged`, `stroke`, `bell`), nor `-`.",
            fix: "Use one of the shapes the hint lists, or `-` for an empty place."),
        .idDerived: Help(
            "A checklist item or card without an explicit ID: its derived ID changes with its text.",
            "A checklist item or card has no written ID; its ID comes from its text and changes with it.",
            fix: "Run `locker ids --write`, which writes the derived IDs into the notes."),
        .translationMismatch: Help(
            "Translations of a checklist or deck whose item or card IDs differ.",
            "An item or card ID is in one version of a checklist or deck but not in another.",
            fix: "Give the translated item the same `^id`, or add the missing item."),
        .translationMissing: Help(
            "A document with no translation into one of the vault's locales (reported under --strict).",
            "A document does not exist in one of the vault's `locales`.",
            fix: "Add the translation, or check without `--strict`."),
        .pageMissingKey: Help(
            "A landing page lacks a key it needs (a headline, a section's title).",
            "A landing page lacks a key it needs: `app`, `app.name`, `hero`, a headline, the `title` of a section, an item's `title`, a question's `question` or `answer`, a plan's `name` or `price`.",
            fix: "Add the key the message names (Locker's docs/site.md lists the keys)."),
        .pageUnknownKey: Help(
            "A landing page has a key the site does not show: usually a typo.",
            "A landing page has a key the site does not show, usually a typo (`feautres`).",
            fix: "Fix the spelling (the hint lists the keys allowed there), or remove it."),
        .pageInvalidCount: Help(
            "A landing page's `{{…}}` counts nothing, or names a checklist or deck there is none of.",
            "A landing page's text holds a count that cannot be worked out: `{{…}}` naming no counter (`guides`, `checklists`, `decks`, `items`, `cards`), an ID after a counter that takes none, or `{{items ID}}`/`{{cards ID}}` naming no checklist or deck.",
            fix:
                "Write `{{items ID}}` with a checklist's ID, `{{cards ID}}` with a deck's, or a whole-site count (see Locker's docs/site.md)."
        ),
        .pageReservedID: Help(
            "A landing page's ID names a folder of the site's own (`guides`, `assets`, a locale, `b`).",
            "A landing page other than the root page takes a URL the site has for something else: its id, or its first folder, is `guides`, `checklists`, `decks`, `assets`, `pagefind` (the search index), `404.html`, `robots.txt`, `sitemap.xml`, `_headers`, a locale other than the default, or a headline variant of the root page (`b`, `c`, …), in any case; or its first folder starts with `guides`, `checklists`, `decks`, `assets` or `pagefind`; or it is another page's headline variant (`about/b`); or its first folder differs only in case from another page's in the same language.",
            fix: "Give the page another `id:`."),
        .templateInvalid: Help(
            "A template of the vault's `templates/` folder cannot be parsed.",
            "A template in the vault's `templates/` folder cannot be parsed; or a file there is neither a built-in template's name nor included by another template.",
            fix:
                "Fix the Mustache at the position shown; name the file after the template it replaces (the hint lists them)."
        ),
    ]
}
