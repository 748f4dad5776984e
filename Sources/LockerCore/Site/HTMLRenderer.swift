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

    func render(_ blocks: [Block]) -> String {
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
        let level = min(max(section.level, 2), 6)
        out += "<section>\n<h\(level)"
        if blockAnchors { out += " id=\"\(Self.escape(section.anchor))\"" }
        out += ">\(spans(section.titleSpans))</h\(level)>\n"
        out += render(section.blocks)
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
            out += "<p\(id)>\(spans(content))</p>\n"
        case .list(let list):
            out += listHTML(list, id: id)
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

    private func listHTML(_ list: Block.List, id: String) -> String {
        let tag = list.style == .ordered ? "ol" : "ul"
        var out = "<\(tag)"
        if list.style == .task { out += " class=\"tasks\"" }
        if list.style == .ordered, let start = list.start, start != 1 { out += " start=\"\(start)\"" }
        out += "\(id)>\n"
        for item in list.items {
            out += "<li\(idAttribute(item.blockID))>"
            if list.style == .task {
                let checked = item.checked == true
                out += "<span class=\"box\(checked ? " checked" : "")\" aria-hidden=\"true\"></span>"
            }
            out += itemHTML(item.blocks)
            out += "</li>\n"
        }
        return out + "</\(tag)>\n"
    }

    /// A list item's content: a lone paragraph stays inline, as in a tight list.
    func itemHTML(_ blocks: [Block]) -> String {
        if let first = blocks.first, case .paragraph(let content) = first.content, first.blockID == nil || !blockAnchors
        {
            let rest = render(Array(blocks.dropFirst()))
            return spans(content) + (rest.isEmpty ? "" : "\n" + rest)
        }
        return render(blocks)
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
        return out + " loading=\"lazy\" decoding=\"async\">"
    }

    // MARK: Inline

    /// Spans as inline HTML.
    func spans(_ spans: [Span]) -> String {
        var out = ""
        for span in spans {
            switch span {
            case .text(let text): out += Self.escape(text)
            case .bold(let children): out += "<strong>\(self.spans(children))</strong>"
            case .italic(let children): out += "<em>\(self.spans(children))</em>"
            case .strikethrough(let children): out += "<s>\(self.spans(children))</s>"
            case .highlight(let children): out += "<mark>\(self.spans(children))</mark>"
            case .code(let text): out += "<code>\(Self.escape(text))</code>"
            case .tag(let tag): out += "<span class=\"tag\">#\(Self.escape(tag))</span>"
            case .lineBreak: out += "<br>\n"
            case .link(let target, let children):
                let text = self.spans(children)
                switch target {
                case .url(let url) where LinkResolver.isSafeURL(url):
                    out += "<a href=\"\(Self.escape(url))\" rel=\"noopener\">\(text)</a>"
                case .url:
                    out += text
                case .document:
                    if let link = href(target) {
                        out += "<a href=\"\(Self.escape(link))\">\(text)</a>"
                    } else {
                        out += text
                    }
                }
            }
        }
        return out
    }

    // MARK: Helpers

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
