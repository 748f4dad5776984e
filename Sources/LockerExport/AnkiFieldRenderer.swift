import LockerCore
import LockerKit

/// A card's sides as the HTML of Anki fields, through the site's ``HTMLRenderer``: the same
/// markup, with images named as the package's media and links to other notes as links to their
/// pages on the site, or as plain text when the bundle has no `siteURL`.
struct AnkiFieldRenderer {
    private var renderer: HTMLRenderer

    init(bundle: ContentBundle, locale: String, media: MediaNames) {
        let format = ContentLinkFormat(manifest: bundle.manifest)
        renderer = HTMLRenderer(
            href: { target in Self.webURL(of: target, in: bundle, locale: locale, format: format) },
            assetHref: { media.name(of: $0) },
            // Element IDs mean nothing on a card, and two cards on one screen could repeat them.
            blockAnchors: false, lazyImages: false)
    }

    /// A side's HTML: a lone paragraph as its inline content (`Two <strong>short</strong> blasts`),
    /// as Anki's own fields hold text; anything else as blocks.
    func html(_ blocks: [Block]) -> String {
        if blocks.count == 1, let block = blocks.first, case .paragraph(let spans) = block.content {
            return renderer.spans(spans)
        }
        var html = renderer.render(blocks)
        while html.hasSuffix("\n") { html.removeLast() }
        return html
    }

    /// The site page of a link's document, in `locale` or the locale the site shows it in, at the
    /// element its anchor names; `nil` without a site URL or for a document the bundle lacks.
    static func webURL(of target: LinkTarget, in bundle: ContentBundle, locale: String, format: ContentLinkFormat)
        -> String?
    {
        // The manifest is the bundle's, not necessarily signed: a site address that is no web
        // address (`javascript:`) makes no link.
        guard let site = format.siteURL?.lowercased(), site.hasPrefix("https://") || site.hasPrefix("http://"),
            case .document(let kind, let id, let uuid, let anchor) = target,
            let shown = bundle.resolvedLocale(of: kind, id: id, for: locale)
        else { return nil }
        let part = anchor.map { anchor -> ContentLink.Part in
            guard anchor.hasPrefix("^") else { return .section(anchor: anchor) }
            switch kind {
            case .checklist: return .item(id: String(anchor.dropFirst()))
            case .deck: return .card(id: String(anchor.dropFirst()))
            default: return .section(anchor: anchor)
            }
        }
        return format.webURL(for: ContentTarget(kind: kind, id: id, uuid: uuid, locale: shown, title: "", part: part))
    }
}
