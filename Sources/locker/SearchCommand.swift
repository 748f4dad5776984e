import ArgumentParser
import Foundation
import LockerKit

/// `locker search`: the content's full-text search, as an app runs it.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the guides, checklist items and cards of a bundle, in any form of the words.",
        discussion: """
            Every word must match, in any of its forms («якорем» finds «якорь», "anchoring" finds \
            "anchor"); when nothing has them all, any word may. Hits are ranked best first, each \
            with its kind, title, a snippet and its deep link (the app's and the site's, when the \
            bundle has a scheme and a site URL). The index is made in memory from the bundle, or \
            kept in --index and brought up to date with the bundle.
            """)

    @Argument(help: "The words to look for.")
    var query: [String]

    @OptionGroup var options: BundleOptions

    @Option(help: "Keep the search index in this file (SQLite), updated from the bundle.", completion: .file())
    var index: String?

    @Option(help: "At most this many hits.")
    var limit: Int = 10

    @Option(help: "text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1.") }
        guard query.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw ValidationError("Give the words to look for.")
        }
    }

    func run() throws {
        let bundle = try options.openBundle()
        let locale = try options.locale(in: bundle)
        let search = try ContentSearch(path: index)
        try search.update(from: bundle)
        let hits = try search.search(query.joined(separator: " "), locale: locale, limit: limit)
        let links = bundle.linkFormat
        switch format {
        case .json:
            struct Report: Encodable {
                var query: String
                var locale: String
                var hits: [SearchHitReport]
            }
            try JSONLines.write(
                Report(
                    query: query.joined(separator: " "), locale: locale,
                    hits: hits.map { SearchHitReport($0, links: links) }))
        case .text:
            var out = ""
            for (number, hit) in hits.enumerated() {
                let target = hit.target
                out +=
                    "\(number + 1). \(Style.bold(LinkDescription.title(target.title, part: target.partTitle)))  \(Style.dim(LinkDescription.kind(of: target)))\n"
                if !hit.snippet.text.isEmpty {
                    out +=
                        "   "
                        + hit.snippet.marked(
                            open: Style.enabled ? "\u{1B}[1m" : "", close: Style.enabled ? "\u{1B}[0m" : "") + "\n"
                }
                for link in [links.appURL(for: target), links.webURL(for: target)].compactMap({ $0 }) {
                    out += "   " + Style.dim(link) + "\n"
                }
            }
            if hits.isEmpty { out = "No hits for '\(query.joined(separator: " "))' in \(locale).\n" }
            FileHandle.standardOutput.write(Data(out.utf8))
        }
    }
}

/// A search hit as `locker search --format json` prints it: its target's fields, then its own.
struct SearchHitReport: Encodable {
    var target: TargetReport
    var snippet: String
    /// Each highlight's start and end, in Unicode scalars of `snippet`.
    var highlights: [[Int]]
    var score: Double

    init(_ hit: SearchHit, links: ContentLinkFormat) {
        target = TargetReport(hit.target, links: links)
        snippet = hit.snippet.text
        let scalars = hit.snippet.text.unicodeScalars
        highlights = hit.snippet.highlights.map {
            [
                scalars.distance(from: scalars.startIndex, to: $0.lowerBound),
                scalars.distance(from: scalars.startIndex, to: $0.upperBound),
            ]
        }
        score = (hit.score * 1000).rounded() / 1000
    }

    private enum CodingKeys: String, CodingKey { case snippet, highlights, score }

    func encode(to encoder: any Encoder) throws {
        try target.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(snippet, forKey: .snippet)
        try container.encode(highlights, forKey: .highlights)
        try container.encode(score, forKey: .score)
    }
}
