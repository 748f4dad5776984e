import LockerKit

/// Landing pages: a page note built into a ``LandingPage``, its frontmatter's links resolved.
extension DocumentBuilder {
    /// The landing page for the note at `noteIndex`, its links resolved like a guide's.
    mutating func landingPage(_ noteIndex: Int) -> (LandingPage, [Diagnostic]) {
        begin(noteIndex)
        let note = self.note(noteIndex)
        let blocks = convert(note.blocks)
        let sections = note.sections.map { convert($0) }
        // The reader reports through its own list; links and images report through the builder's.
        var links: [SourcePosition: LinkTarget?] = [:]
        var images: [SourcePosition: String?] = [:]
        for entry in note.frontmatter.extraEntries { collect(entry.value, links: &links, images: &images, key: entry.key) }
        var reader = LandingPageReader(file: note.path, links: links, images: images)
        let page = reader.read(note, blocks: blocks, sections: sections)
        return (page, takeDiagnostics() + reader.diagnostics)
    }

    /// Resolves every `link:` and `image:` value below a frontmatter key, reporting the broken ones;
    /// each is kept by where it is written, for the reader to find without reading it again.
    private mutating func collect(
        _ value: YAMLValue, links: inout [SourcePosition: LinkTarget?], images: inout [SourcePosition: String?],
        key: String
    ) {
        switch value {
        case .scalar(let text, _, let position):
            let trimmed = text.trimmingWhitespace
            if key == "link", let link = LandingPageReader.wikiLink(trimmed, at: position) {
                links[position] = noteTarget(link)
            } else if key == "image", !trimmed.isEmpty {
                images[position] = imageSource(LandingPageReader.unwrapLink(trimmed), at: position, bundled: false)
            }
        case .sequence(let values, _):
            for child in values { collect(child, links: &links, images: &images, key: key) }
        case .mapping(let entries, _):
            for entry in entries { collect(entry.value, links: &links, images: &images, key: entry.key) }
        }
    }
}
