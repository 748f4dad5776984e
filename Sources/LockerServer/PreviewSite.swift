import Foundation
import LockerCore
import LockerKit

/// One build of the vault as `locker serve` serves it: the site at `/`, the bundles under
/// `/bundles/`, and the build's diagnostics shown over every page.
public struct PreviewSite: Sendable {
    /// A file answered for a path.
    public struct Resource: Sendable, Equatable {
        public var data: Data
        public var contentType: String
        /// `Cache-Control`, as a CDN given the build's `_headers` would send it.
        public var cacheControl: String
        /// The status: 200, or 404 for the not-found page, 503 while there is no good build.
        public var status: Int = 200
    }

    /// What a path answers.
    public enum Answer: Sendable, Equatable {
        case file(Resource)
        /// A folder's URL without its trailing slash: redirect to this location.
        case redirect(String)
    }

    /// The output files by path (`site/…`, `bundles/v1/…`); empty when no build has succeeded.
    private var files: [String: Data]
    /// The last build's diagnostics, each as `locker check` prints it, and its summary line.
    public private(set) var problems: [String]
    public private(set) var summary: String
    /// Whether the last build failed, so the pages are those of an earlier one (or none).
    public private(set) var failed: Bool
    /// Counts the builds that changed what is served; pages reload when it moves.
    public var generation: Int {
        didSet {
            injection = Self.injection(problems: problems, summary: summary, failed: failed, generation: generation)
        }
    }
    /// What every page gets before `</body>`: the reload script, and the overlay when there are
    /// problems. Made once per build, not per request.
    private var injection: String

    public init(files: [OutputFile], problems: [String], summary: String, failed: Bool, generation: Int) {
        self.init(
            files: Dictionary(files.map { ($0.path, $0.data) }, uniquingKeysWith: { first, _ in first }),
            problems: problems, summary: summary, failed: failed, generation: generation)
    }

    private init(files: [String: Data], problems: [String], summary: String, failed: Bool, generation: Int) {
        self.files = files
        self.problems = problems
        self.summary = summary
        self.failed = failed
        self.generation = generation
        injection = Self.injection(problems: problems, summary: summary, failed: failed, generation: generation)
    }

    /// The same pages with a failed build's diagnostics: what a failed build leaves served.
    func failing(problems: [String], summary: String, generation: Int) -> PreviewSite {
        PreviewSite(files: files, problems: problems, summary: summary, failed: true, generation: generation)
    }

    /// Whether two builds serve the same bytes and report the same problems.
    func serves(sameAs other: PreviewSite) -> Bool {
        files == other.files && problems == other.problems && failed == other.failed
    }

    /// The answer for a URL path (percent-decoded, starting with `/`).
    public func answer(for path: String) -> Answer {
        let relative = String(path.drop { $0 == "/" })
        if relative.hasPrefix(BundleSchema.folder + "/") || relative == BundleSchema.folder {
            guard let data = files[relative] else { return .file(notFound()) }
            let cache =
                relative.hasSuffix("/manifest.json")
                ? "no-cache" : "public, max-age=31536000, immutable"
            return .file(Resource(data: data, contentType: Self.contentType(of: relative), cacheControl: cache))
        }
        guard !relative.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else {
            return .file(notFound())
        }
        let site = Compilation.siteFolder + "/"
        if relative.isEmpty || relative.hasSuffix("/") {
            guard let page = files[site + relative + "index.html"] else { return .file(notFound()) }
            return .file(html(page))
        }
        if let data = files[site + relative], relative != "_headers" {
            let type = Self.contentType(of: relative)
            if type.hasPrefix("text/html") { return .file(html(data)) }
            let cache = relative.hasPrefix("assets/") ? "public, max-age=31536000, immutable" : "no-cache"
            return .file(Resource(data: data, contentType: type, cacheControl: cache))
        }
        if files[site + relative + "/index.html"] != nil { return .redirect("/" + relative + "/") }
        return .file(notFound())
    }

    private func notFound() -> Resource {
        var resource = html(
            files[Compilation.siteFolder + "/404.html"] ?? Data("<!doctype html><title>Not found</title>".utf8))
        resource.status = 404
        return resource
    }

    /// A page with the reload script and, when the build had problems, the overlay listing them.
    private func html(_ page: Data) -> Resource {
        var text = String(decoding: page, as: UTF8.self)
        if let end = text.range(of: "</body>", options: .backwards) {
            text.insert(contentsOf: injection, at: end.lowerBound)
        } else {
            text += injection
        }
        return Resource(data: Data(text.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-cache")
    }

    /// What a build failing before any succeeded serves for every path.
    static func failedPage(problems: [String], summary: String, generation: Int) -> PreviewSite {
        let page = """
            <!doctype html>
            <html lang="en"><meta charset="utf-8"><title>Build failed</title>
            <body><h1>The vault does not build yet</h1></body></html>

            """
        return PreviewSite(
            files: [OutputFile(path: Compilation.siteFolder + "/404.html", data: Data(page.utf8))], problems: problems,
            summary: summary, failed: true, generation: generation)
    }

    /// The reload script, and the overlay when the build had problems.
    private static func injection(problems: [String], summary: String, failed: Bool, generation: Int) -> String {
        let script = "<script src=\"/_locker/reload.js\" data-generation=\"\(generation)\" defer></script>\n"
        guard !problems.isEmpty || failed else { return script }
        return script + overlay(problems: problems, summary: summary, failed: failed)
    }

    /// The diagnostics over the page, in the corner, until the next build.
    private static func overlay(problems: [String], summary: String, failed: Bool) -> String {
        let heading =
            failed ? "Build failed; showing the last good build" : "Built with warnings"
        var out = """
            <aside id="locker-diagnostics" role="alert" style="position:fixed;z-index:2147483647;left:1rem;\
            right:1rem;bottom:1rem;max-height:45vh;overflow:auto;margin:0;padding:1rem 1.25rem;\
            background:#1c1c1e;color:#f2f2f5;border-left:6px solid \(failed ? "#ff453a" : "#ffd60a");\
            border-radius:8px;font:14px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;\
            box-shadow:0 8px 32px rgba(0,0,0,.35)">
            <strong>\(HTMLRenderer.escape(heading)): \(HTMLRenderer.escape(summary))</strong>
            <button type="button" onclick="this.parentElement.remove()" aria-label="Close" style="float:right;\
            background:none;border:0;color:inherit;font:inherit;cursor:pointer">×</button>
            <ul style="margin:.5rem 0 0;padding-left:1.25rem">

            """
        for problem in problems.prefix(200) { out += "<li>\(HTMLRenderer.escape(problem))</li>\n" }
        if problems.count > 200 { out += "<li>… and \(problems.count - 200) more (see the terminal)</li>\n" }
        return out + "</ul></aside>\n"
    }

    static func contentType(of path: String) -> String {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "xml": "application/xml"
        case "txt": "text/plain; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "avif": "image/avif"
        case "bmp": "image/bmp"
        default: "application/octet-stream"
        }
    }
}
