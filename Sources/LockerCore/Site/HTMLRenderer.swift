import LockerKit

/// Renders the structured blocks the bundles carry as HTML: the one place content becomes markup.
///
/// Every piece of text is escaped; nothing an author wrote is pasted as HTML. Links go only to
/// documents of the site (through ``href``) or to `http`, `https`, `mailto` and `tel` URLs, and
/// images only to the site's own assets, so a page makes no request to another host.
public struct HTMLRenderer {
    /// The site URL of a document link, relative to the page; nil when the site has no page for it.
    var href: (LinkTarget) -> String?
    /// The URL of a bundle asset (`assets/….png`), relative to the page.
    var assetHref: (String) -> String
    /// Whether block IDs become `id` attributes; off inside embeds, whose IDs could repeat the page's.
    var blockAnchors = true
    /// Whether images load lazily, as a long page wants; a flashcard shows its image at once.
    var lazyImages = true

    /// A renderer whose links and images go where `href` and `assetHref` say: the site's pages and
    /// assets, or (for `locker export anki`) web pages and a package's media.
    package init(
        href: @escaping (LinkTarget) -> String?, assetHref: @escaping (String) -> String, blockAnchors: Bool = true,
        lazyImages: Bool = true
    ) {
        self.href = href
        self.assetHref = assetHref
        self.blockAnchors = blockAnchors
        self.lazyImages = lazyImages
    }

    /// Blocks as HTML, one element a line.
    package func render(_ blocks: [Block]) -> String {
        var out = ""
        for block in blocks { render(block, into: &out) }
        return out
    }

    /// A document's sections, as headings with their anchors and nested content.
    func render(_ sections: [Section]) -> String {
        var out = ""
        for section in sections { render(section, into: &out) }
        return out
    }

    private func render(_ section: Section, into out: inout String) {
        let level = String(min(max(section.level, 2), 6))
        out += "<section>\n<h"
        out += level
        if blockAnchors {
            out += " id=\""
            Self.escape(section.anchor, into: &out)
            out += "\""
        }
        out += ">"
        spans(section.titleSpans, into: &out)
        out += "</h"
        out += level
        out += ">\n"
        for block in section.blocks { render(block, into: &out) }
        for child in section.sections { render(child, into: &out) }
        out += "</section>\n"
    }

    private func idAttribute(_ blockID: String?) -> String {
        guard blockAnchors, let blockID else { return "" }
        return " id=\"^\(Self.escape(blockID))\""
    }

    private func render(_ block: Block, into out: inout String) {
        let id = idAttribute(block.blockID)
        switch block.content {
        case .paragraph(let content):
            guard !content.isEmpty else { return }
            out += "<p"
            out += id
            out += ">"
            spans(content, into: &out)
            out += "</p>\n"
        case .list(let list):
            listHTML(list, id: id, into: &out)
        case .callout(let callout):
            let type = Self.cssName(callout.calloutType)
            let title = callout.title.map { spans($0) } ?? Self.escape(Self.calloutTitle(callout.calloutType))
            if let fold = callout.fold {
                out += "<details class=\"callout callout-\(type)\"\(id)\(fold == .open ? " open" : "")>\n"
                out += "<summary class=\"callout-title\">\(title)</summary>\n"
                out += render(callout.blocks)
                out += "</details>\n"
            } else {
                out += "<aside class=\"callout callout-\(type)\"\(id)>\n<p class=\"callout-title\">\(title)</p>\n"
                out += render(callout.blocks)
                out += "</aside>\n"
            }
        case .quote(let children):
            out += "<blockquote\(id)>\n\(render(children))</blockquote>\n"
        case .code(let language, let text):
            let languageClass = language.map { " class=\"language-\(Self.cssName($0))\"" } ?? ""
            out += "<pre\(id)><code\(languageClass)>\(Self.escape(text))</code></pre>\n"
        case .math(let tex):
            // The TeX as written: the site loads no script to typeset it.
            out += "<pre class=\"math\"\(id)><code>\(Self.escape(tex))</code></pre>\n"
        case .table(let table):
            out += "<div class=\"table\"\(id)><table>\n<thead><tr>"
            for (column, cell) in table.header.enumerated() {
                out += "<th\(Self.alignment(table.align, column))>\(spans(cell))</th>"
            }
            out += "</tr></thead>\n<tbody>\n"
            for row in table.rows {
                out += "<tr>"
                for (column, cell) in row.enumerated() {
                    out += "<td\(Self.alignment(table.align, column))>\(spans(cell))</td>"
                }
                out += "</tr>\n"
            }
            out += "</tbody>\n</table></div>\n"
        case .image(let image):
            out += "<p\(id)>\(imageHTML(image))</p>\n"
        case .embed(let embed):
            var inner = self
            inner.blockAnchors = false
            out += "<div class=\"embed\"\(id)>\n"
            if let link = href(embed.target) {
                out += "<p class=\"embed-title\"><a href=\"\(Self.escape(link))\">\(Self.escape(embed.title))</a></p>\n"
            } else {
                out += "<p class=\"embed-title\">\(Self.escape(embed.title))</p>\n"
            }
            out += inner.render(embed.blocks) + inner.render(embed.sections)
            out += "</div>\n"
        case .rule:
            out += "<hr\(id)>\n"
        }
    }

    private func listHTML(_ list: Block.List, id: String, into out: inout String) {
        let tag = list.style == .ordered ? "ol" : "ul"
        out += "<"
        out += tag
        if list.style == .task { out += " class=\"tasks\"" }
        if list.style == .ordered, let start = list.start, start != 1 { out += " start=\"\(start)\"" }
        out += id
        out += ">\n"
        for item in list.items {
            out += "<li"
            out += idAttribute(item.blockID)
            out += ">"
            if list.style == .task {
                out +=
                    item.checked == true
                    ? "<span class=\"box checked\" aria-hidden=\"true\"></span>"
                    : "<span class=\"box\" aria-hidden=\"true\"></span>"
            }
            itemHTML(item.blocks, into: &out)
            out += "</li>\n"
        }
        out += "</"
        out += tag
        out += ">\n"
    }

    /// A list item's content: a lone paragraph stays inline, as in a tight list.
    func itemHTML(_ blocks: [Block]) -> String {
        var out = ""
        itemHTML(blocks, into: &out)
        return out
    }

    private func itemHTML(_ blocks: [Block], into out: inout String) {
        if let first = blocks.first, case .paragraph(let content) = first.content, first.blockID == nil || !blockAnchors
        {
            spans(content, into: &out)
            if blocks.count > 1 {
                let rest = render(Array(blocks.dropFirst()))
                if !rest.isEmpty {
                    out += "\n"
                    out += rest
                }
            }
            return
        }
        for block in blocks { render(block, into: &out) }
    }

    private func imageHTML(_ image: Block.Image) -> String {
        if LinkResolver.scheme(of: image.src) != nil {
            // A remote image would be a request to another host: link to it instead.
            guard LinkResolver.isSafeURL(image.src) else { return Self.escape(image.alt) }
            let label = image.alt.isEmpty ? image.src : image.alt
            return "<a href=\"\(Self.escape(image.src))\" rel=\"nofollow noopener\">\(Self.escape(label))</a>"
        }
        var out = "<img src=\"\(Self.escape(assetHref(image.src)))\" alt=\"\(Self.escape(image.alt))\""
        if let width = image.width { out += " width=\"\(width)\"" }
        if let height = image.height { out += " height=\"\(height)\"" }
        return out + (lazyImages ? " loading=\"lazy\" decoding=\"async\">" : ">")
    }

    // MARK: Inline

    /// Spans as inline HTML.
    package func spans(_ spans: [Span]) -> String {
        var out = ""
        self.spans(spans, into: &out)
        return out
    }

    /// Appends spans as inline HTML: written into one string, not a string per span.
    private func spans(_ spans: [Span], into out: inout String) {
        func wrapped(_ open: String, _ children: [Span], _ close: String) {
            out += open
            self.spans(children, into: &out)
            out += close
        }
        for span in spans {
            switch span {
            case .text(let text): Self.escape(text, into: &out)
            case .bold(let children): wrapped("<strong>", children, "</strong>")
            case .italic(let children): wrapped("<em>", children, "</em>")
            case .strikethrough(let children): wrapped("<s>", children, "</s>")
            case .highlight(let children): wrapped("<mark>", children, "</mark>")
            case .code(let text):
                out += "<code>"
                Self.escape(text, into: &out)
                out += "</code>"
            case .math(let tex):
                out += "<code class=\"math\">"
                Self.escape(tex, into: &out)
                out += "</code>"
            case .tag(let tag):
                out += "<span class=\"tag\">#"
                Self.escape(tag, into: &out)
                out += "</span>"
            case .lineBreak: out += "<br>\n"
            case .footnote(let footnote): self.footnote(footnote, into: &out)
            case .link(let target, let children):
                switch target {
                case .url(let url) where LinkResolver.isSafeURL(url):
                    out += "<a href=\""
                    Self.escape(url, into: &out)
                    wrapped("\" rel=\"noopener\">", children, "</a>")
                case .url:
                    self.spans(children, into: &out)
                case .document:
                    if let link = href(target) {
                        out += "<a href=\""
                        Self.escape(link, into: &out)
                        wrapped("\">", children, "</a>")
                    } else {
                        self.spans(children, into: &out)
                    }
                }
            }
        }
    }

    /// A footnote where it is referred to: its number, then its text as a side note, which
    /// the style sheet sets apart. Kept in place rather than gathered at the end of the page, so
    /// it needs no IDs, and a card or checklist item keeps its own footnotes.
    private func footnote(_ footnote: Footnote, into out: inout String) {
        let number = String(footnote.number)
        out += "<sup class=\"footnote-ref\">\(number)</sup>"
        // A later reference to a footnote carries its number only: the note is at the first.
        guard !footnote.blocks.isEmpty else { return }
        out += "<span class=\"footnote\" role=\"note\">"
        out += "<span class=\"footnote-number\">\(number)</span> "
        // Phrasing content only, as inside a paragraph: paragraphs by their spans, other blocks as text.
        for (offset, block) in footnote.blocks.enumerated() {
            if offset > 0 { out += "<br>" }
            if case .paragraph(let content) = block.content {
                spans(content, into: &out)
            } else {
                Self.escape(block.plainText, into: &out)
            }
        }
        out += "</span>"
    }

    // MARK: Helpers

    /// Appends ``escape(_:)`` of `text`.
    static func escape(_ text: String, into out: inout String) {
        out += escape(text)
    }

    /// Text safe in element content and in double- or single-quoted attributes.
    public static func escape(_ text: String) -> String {
        let special: (UInt8) -> Bool = { byte in
            byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == 0
        }
        // Most text has nothing to escape: looked for in the string's own bytes.
        let clean = text.utf8.withContiguousStorageIfAvailable { bytes in !bytes.contains(where: special) }
        guard !(clean ?? !text.utf8.contains(where: special)) else { return text }
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): out.append(contentsOf: "&#39;".utf8)
            case 0: out.append(contentsOf: "\u{FFFD}".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A name reduced to `[a-z0-9-]`, for class names built from author text.
    static func cssName(_ name: String) -> String {
        let mapped = name.lowercased().unicodeScalars.map { scalar -> Character in
            (("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)) ? Character(scalar) : "-"
        }
        let result = String(mapped)
        return result.isEmpty ? "note" : result
    }

    private static func calloutTitle(_ type: String) -> String {
        guard let first = type.first else { return "Note" }
        return first.uppercased() + type.dropFirst()
    }

    private static func alignment(_ align: [Block.Table.Alignment], _ column: Int) -> String {
        guard column < align.count else { return "" }
        switch align[column] {
        case .none: return ""
        case .left: return " class=\"left\""
        case .center: return " class=\"center\""
        case .right: return " class=\"right\""
        }
    }
}
