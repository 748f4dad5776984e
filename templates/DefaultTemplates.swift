/// The site's built-in templates, compiled into `locker` from the `.mustache` files of
/// `templates/site/`. A vault replaces any of them with a file of the same name in its own
/// `templates/` folder.
public enum DefaultTemplates {
    /// Every built-in template by name: its file name without `.mustache`.
    public static let all: [String: String] = [
        "layout": text(PackageResources.layout_mustache),
        "head": text(PackageResources.head_mustache),
        "header": text(PackageResources.header_mustache),
        "footer": text(PackageResources.footer_mustache),
        "cta": text(PackageResources.cta_mustache),
        "style": text(PackageResources.style_mustache),
        "search": text(PackageResources.search_mustache),
        "landing": text(PackageResources.landing_mustache),
        "guide": text(PackageResources.guide_mustache),
        "checklist": text(PackageResources.checklist_mustache),
        "deck": text(PackageResources.deck_mustache),
        "list": text(PackageResources.list_mustache),
        "home": text(PackageResources.home_mustache),
        "notfound": text(PackageResources.notfound_mustache),
    ]

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
