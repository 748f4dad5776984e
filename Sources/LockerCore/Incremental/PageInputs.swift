import Foundation
import LockerKit

/// What each page of the site is made from, as a digest that `locker build` records beside the
/// page and that the next build, in another process, compares: a page whose inputs are
/// unchanged is kept from the previous build instead of rendered again.
///
/// A document's page depends on its document and on what it shows of the rest of the site, each
/// a digest of bytes:
/// - the document: the SHA-256 of its bundle file, which encodes every field of it;
/// - the site: the vault's shape (``LinkSurface``: the settings and every note's path, kind, ID,
///   locale and aliases, which decide every link's target), the templates, the address, every
///   landing page (each encoded whole), the shared files' names, and the `locker` program itself
///   (no page shows the content date). A vault file a page shows is named by its content hash,
///   in the bundle file or the landing page, so its bytes are no input of their own;
/// - the page: its folder, its language versions and its Open Graph image.
///
/// An index page depends on the site and on its listing (``IndexListing``).
struct PageInputs: Sendable {
    /// The digest of everything every page shares.
    let site: String

    init(
        linkSurface: String, templates: [String: String], baseURL: String?, pages: [LandingPage],
        sharedFiles: [String], program: String
    ) {
        var bytes = SurfaceBytes()
        bytes.add(["locker-page-inputs 1", linkSurface, baseURL, program])
        for (name, text) in templates.sorted(by: { $0.key.utf8Precedes($1.key) }) {
            bytes.add([name, text])
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for page in pages {
            // A page that cannot be encoded (it always can) leaves a marker no other page leaves.
            bytes.add((try? encoder.encode(page)) ?? Data([0xFF]))
        }
        bytes.add(sharedFiles)
        site = bytes.sha256
    }

    /// The inputs of a document's page.
    func document(route: String, bundleSHA256: String, alternates: [String: String], image: String?) -> String {
        digest(["document", route, bundleSHA256, image], alternates: alternates)
    }

    /// The inputs of an index page.
    func index(route: String, listing: IndexListing, alternates: [String: String]) -> String {
        digest(["index", route, listing.sha256], alternates: alternates)
    }

    private func digest(_ parts: [String?], alternates: [String: String]) -> String {
        var bytes = SurfaceBytes()
        bytes.add([site] + parts)
        for (locale, path) in alternates.sorted(by: { $0.key.utf8Precedes($1.key) }) {
            bytes.add([locale, path])
        }
        return bytes.sha256
    }
}
