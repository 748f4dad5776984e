import Foundation

/// What the first note a process parses and the first page it renders set up once (the
/// frontmatter reader's resolver and its regular expressions, cmark-gfm's extensions, the
/// built-in templates), set up on another thread ahead of a build or check: `locker` starts it
/// while it parses its arguments, when the second core has nothing else to do. A one-note
/// rebuild otherwise paid for it while both cores were busy.
public enum Warmup {
    /// Starts setting up what a build (`pages`: one that renders a site) or a check needs.
    public static func start(pages: Bool) {
        guard !Compiler.onOneThread else { return }
        DispatchQueue.global().async {
            _ = NoteParser(config: VaultConfig()).parse(path: "warmup.md", bytes: Array(sample.utf8))
        }
        if pages { TemplateSet.parseDefaultsAhead() }
    }

    /// A note with what a guide holds: frontmatter, headings, a list, a link, a callout.
    static let sample = """
        ---
        title: Warm-up
        tags: [a]
        ---
        # Warm-up

        ## Part

        - **One** [[two]] and `three`.

        > [!note] Four
        > Five.
        """
}
