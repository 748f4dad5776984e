import ArgumentParser
import Foundation
import LockerKit

/// `locker open`: what a deep link names in a bundle, as an app resolves it.
struct OpenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Print what a deep link (app or web form) names in a bundle.",
        discussion: """
            A link is <scheme>://content/<kind>/<uuid>[/section/<anchor>|/item/<id>|/card/<id>], \
            or the site's https URL of a page, with #<anchor>, #item-<id> or #card-<id> \
            (docs/bundle-format.md#deep-links). It is resolved for a reader of --locale. Exit \
            status: 0 when it names something (in the reader's version or only in another \
            language's), 1 when it is no link of the bundle or names nothing there.
            """)

    @Argument(help: "The link.")
    var link: String

    @OptionGroup var options: BundleOptions

    @Option(help: "text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let bundle = try options.openBundle()
        let locale = try options.locale(in: bundle)
        let links = bundle.linkFormat
        let report: OpenReport
        switch bundle.resolve(link, locale: locale) {
        case .failure(let error): report = OpenReport(outcome: "malformed", reason: error.description)
        case .success(let resolution): report = OpenReport(resolution, links: links)
        }
        switch format {
        case .json: try JSONLines.write(report)
        case .text:
            var out = ""
            if let target = report.target {
                let title = LinkDescription.title(target.title, part: target.partTitle)
                out += "\(Style.bold(title))  \(Style.dim(target.what))\n"
                out += "  \(target.kind) \(target.id), \(target.locale)"
                if let part = target.part, let partID = target.partID { out += ", \(part) \(partID)" }
                out += "\n"
                for link in [target.appLink, target.webLink].compactMap({ $0 }) { out += "  \(link)\n" }
            }
            if let reason = report.reason { out += (report.target == nil ? "" : "  ") + reason + "\n" }
            FileHandle.standardOutput.write(Data(out.utf8))
        }
        if report.target == nil || report.outcome == "partNotFound" { throw ExitCode(1) }
    }
}

/// What `locker open` prints.
struct OpenReport: Encodable {
    /// `found`, `otherLocale`, `partNotFound`, `notFound`, `wrongKind`, `unreadable` or `malformed`.
    var outcome: String
    var target: TargetReport?
    var reason: String?

    init(outcome: String, target: TargetReport? = nil, reason: String? = nil) {
        self.outcome = outcome
        self.target = target
        self.reason = reason
    }

    init(_ resolution: LinkResolution, links: ContentLinkFormat) {
        switch resolution {
        case .found(let target):
            self.init(outcome: "found", target: TargetReport(target, links: links))
        case .otherLocale(let target):
            self.init(
                outcome: "otherLocale", target: TargetReport(target, links: links),
                reason: "only the \(target.locale) version has it")
        case .partNotFound(let document, let part):
            self.init(
                outcome: "partNotFound", target: TargetReport(document, links: links),
                reason: "no version of \(document.kind) \(document.id) has \(part.name) '\(part.value)'")
        case .notFound(let kind, let document):
            self.init(outcome: "notFound", reason: "the bundle has no \(kind) \(document)")
        case .wrongKind(let link, let actual, let id):
            self.init(outcome: "wrongKind", reason: "the link says \(link), but \(id) is a \(actual)")
        case .unreadable(let error):
            self.init(outcome: "unreadable", reason: error.description)
        }
    }
}

/// Words for targets, shared by `search` and `open`.
enum LinkDescription {
    /// The document's title, then the part's: `Check-in › Windlass`.
    static func title(_ document: String, part: String?) -> String {
        [document, part].compactMap { $0 }.joined(separator: " › ")
    }

    /// `guide`, `guide section`, `checklist item`, `card`, …
    static func kind(of target: ContentTarget) -> String {
        switch target.part {
        case nil: target.kind.rawValue
        case .section: "\(target.kind.rawValue) section"
        case .item: "checklist item"
        case .card: "card"
        }
    }
}

/// A link's target as `locker open` and `locker search` print it.
struct TargetReport: Encodable {
    var what: String
    var kind: String
    var id: String
    var uuid: String
    var locale: String
    var title: String
    var part: String?
    var partID: String?
    var partTitle: String?
    var partUUID: String?
    var appLink: String?
    var webLink: String?

    init(_ target: ContentTarget, links: ContentLinkFormat) {
        what = LinkDescription.kind(of: target)
        kind = target.kind.rawValue
        id = target.id
        uuid = target.uuid
        locale = target.locale
        title = target.title
        part = target.part?.name
        partID = target.part?.value
        partTitle = target.partTitle
        partUUID = target.partUUID
        appLink = links.appURL(for: target)
        webLink = links.webURL(for: target)
    }
}
