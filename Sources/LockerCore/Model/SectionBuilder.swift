/// Turns a note's flat blocks into its H1 title, intro blocks and nested H2–H4 sections.
struct SectionBuilder {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []
    /// The anchors given so far: a repeated heading gets the next free number in linear time.
    private var anchors = IDAllocator()

    init(file: String) { self.file = file }

    mutating func build(_ flat: [ParsedBlock]) -> (h1: [Inline]?, blocks: [ParsedBlock], sections: [ParsedSection]) {
        var h1: [Inline]?
        var intro: [ParsedBlock] = []
        var roots: [ParsedSection] = []
        // Open sections from the outermost in; each is folded into its parent when it closes.
        var open: [ParsedSection] = []
        var sawContent = false

        func close(downTo level: Int) {
            while let last = open.last, last.level >= level {
                open.removeLast()
                if open.isEmpty { roots.append(last) } else { open[open.count - 1].sections.append(last) }
            }
        }

        for block in flat {
            guard case .heading(var level, let title) = block.content else {
                if open.isEmpty { intro.append(block) } else { open[open.count - 1].blocks.append(block) }
                sawContent = true
                continue
            }
            if level == 1 {
                if h1 == nil, !sawContent {
                    h1 = title
                    continue
                }
                diagnostics.append(
                    Diagnostic(
                        .warning, .headingExtraH1, "a note has one H1, its title; this one becomes a section",
                        file: file, at: block.position, hint: "use '##' for sections"))
                level = 2
            }
            sawContent = true
            if level > 4 {
                diagnostics.append(
                    Diagnostic(
                        .warning, .headingTooDeep, "H\(level) is deeper than sections go (H2–H4); kept as bold text",
                        file: file, at: block.position))
                let paragraph = ParsedBlock(content: .paragraph([.strong(title)]), position: block.position)
                if open.isEmpty { intro.append(paragraph) } else { open[open.count - 1].blocks.append(paragraph) }
                continue
            }
            close(downTo: level)
            let parentLevel = open.last?.level ?? 1
            if level > parentLevel + 1 {
                diagnostics.append(
                    Diagnostic(
                        .warning, .headingSkippedLevel, "H\(level) follows H\(parentLevel): a heading level is skipped",
                        file: file, at: block.position, hint: "use H\(parentLevel + 1)"))
            }
            let plain = title.plainText.trimmingWhitespace
            open.append(
                ParsedSection(
                    anchor: anchor(for: plain), level: level, title: title, plainTitle: plain, position: block.position,
                    blocks: [], sections: [], blockID: block.blockID))
        }
        close(downTo: 0)
        return (h1, intro, roots)
    }

    /// A slug of the heading, made unique in the note with `-2`, `-3`, ….
    private mutating func anchor(for title: String) -> String {
        let slug = Slug.make(title)
        return anchors.claim(slug.isEmpty ? "section" : slug)
    }
}
