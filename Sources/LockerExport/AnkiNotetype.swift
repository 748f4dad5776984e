import LockerKit

/// The two note types an Anki package of Locker cards uses: one card a note, or a card and its
/// reverse as the two cards of one note. Their IDs, names, fields, templates and style are fixed
/// (docs/runtime.md, "Exporting to Anki"): Anki's importer keeps a note type whose ID it has
/// and whose fields and templates match, and updates its templates and style from a newer export.
struct AnkiNotetype: Sendable {
    /// What the IDs of the note type, its fields and templates are derived from.
    var key: String
    var name: String
    /// `(name, question, answer)` of each card a note makes, in order.
    var templates: [(name: String, question: String, answer: String)]

    /// The note's fields: the front's HTML and the back's.
    static let fields = ["Front", "Back"]

    /// One card a note: a card without a reverse.
    static let basic = AnkiNotetype(
        key: "basic", name: "Locker Basic",
        templates: [("Card 1", question("Front"), answer("Back"))])

    /// Two cards a note: `front:::back` (or `??`), the card and its reverse.
    static let reversed = AnkiNotetype(
        key: "basic-and-reversed", name: "Locker Basic (and reversed card)",
        templates: [("Card 1", question("Front"), answer("Back")), ("Card 2", question("Back"), answer("Front"))])

    /// `notetype/<key>`'s ``AnkiIdentity/id(_:)``.
    var id: Int { AnkiIdentity.id("notetype/" + key) }

    private static func question(_ field: String) -> String {
        "<div class=\"locker front\">{{\(field)}}</div>"
    }

    private static func answer(_ field: String) -> String {
        "{{FrontSide}}\n\n<hr id=answer>\n\n<div class=\"locker back\">{{\(field)}}</div>"
    }

    /// The style of both note types: Anki's centred card, with the classes ``HTMLRenderer`` writes
    /// (callouts, tags, footnotes, tables, task boxes) and Anki's night mode.
    static let css = """
        .card { font-family: -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
          font-size: 20px; line-height: 1.45; text-align: center; color: #1d2126; background-color: #ffffff; }
        .card.nightMode { color: #e3e5e8; background-color: #1f2124; }
        .locker ul, .locker ol, .locker table, .locker pre, .locker blockquote, .locker .callout, .locker .embed {
          display: inline-block; text-align: left; max-width: 100%; }
        .locker img { max-width: 100%; height: auto; }
        .locker code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.9em; }
        .locker mark { background-color: #fff1a8; color: inherit; }
        .card.nightMode .locker mark { background-color: #6b5d12; }
        .locker .callout { border-left: 4px solid #4a7fb5; padding: 0.2em 0.8em; margin: 0.5em 0; }
        .locker .callout-warning, .locker .callout-danger, .locker .callout-caution { border-left-color: #c0392b; }
        .locker .callout-tip, .locker .callout-success { border-left-color: #2e8b57; }
        .locker .callout-title { font-weight: 600; margin: 0.2em 0; }
        .locker .embed { border-left: 2px solid #9aa3ad; padding-left: 0.8em; }
        .locker .embed-title { font-weight: 600; }
        .locker .tag { color: #4a7fb5; }
        .locker .footnote-ref { font-size: 0.7em; }
        .locker .footnote { display: block; font-size: 0.8em; opacity: 0.8; }
        .locker table { border-collapse: collapse; }
        .locker th, .locker td { border: 1px solid #9aa3ad; padding: 0.2em 0.5em; }
        .locker .left { text-align: left; } .locker .center { text-align: center; } .locker .right { text-align: right; }
        .locker ul.tasks { list-style: none; }
        .locker .box { display: inline-block; width: 0.8em; height: 0.8em; border: 1px solid currentColor; margin-right: 0.4em; }
        .locker .box.checked { background-color: currentColor; }

        """

    /// The note type as `col.models` holds it in a schema 11 collection.
    func json(deckID: Int, modified: Int) -> JSONValue {
        let fieldValues = Self.fields.enumerated().map { ord, name -> JSONValue in
            .object([
                "name": .string(name), "ord": .int(ord), "sticky": .bool(false), "rtl": .bool(false),
                "font": .string("Arial"), "size": .int(20), "media": .array([]),
                // IDs make Anki match the fields even if a user renames them.
                "id": .int(AnkiIdentity.id("notetype/\(key)/field/\(name)")),
            ])
        }
        let templateValues = templates.enumerated().map { ord, template -> JSONValue in
            .object([
                "name": .string(template.name), "ord": .int(ord), "qfmt": .string(template.question),
                "afmt": .string(template.answer), "bqfmt": .string(""), "bafmt": .string(""), "did": .null,
                "bfont": .string(""), "bsize": .int(0),
                "id": .int(AnkiIdentity.id("notetype/\(key)/template/\(template.name)")),
            ])
        }
        // Which fields each card needs: the one its question shows.
        let requirements = templates.indices.map { ord -> JSONValue in
            .array([.int(ord), .string("any"), .array([.int(ord == 0 ? 0 : 1)])])
        }
        return .object([
            "id": .int(id), "name": .string(name), "type": .int(0), "mod": .int(modified), "usn": .int(0),
            "sortf": .int(0), "did": .int(deckID), "tmpls": .array(templateValues), "flds": .array(fieldValues),
            "css": .string(Self.css), "latexPre": .string(Self.latexPre), "latexPost": .string("\\end{document}"),
            "latexsvg": .bool(false), "req": .array(requirements), "tags": .array([]), "vers": .array([]),
        ])
    }

    /// Anki's default LaTeX preamble.
    private static let latexPre = """
        \\documentclass[12pt]{article}
        \\special{papersize=3in,5in}
        \\usepackage[utf8]{inputenc}
        \\usepackage{amssymb,amsmath}
        \\pagestyle{empty}
        \\setlength{\\parindent}{0in}
        \\begin{document}

        """
}
