import Foundation
import LockerTemplates
import Mustache

/// The site's Mustache templates: the defaults compiled into `locker`, each replaceable by a file
/// of the same name in the vault's `templates/` folder.
struct TemplateSet: Sendable {
    /// The folder of a vault that overrides default templates.
    static let folder = "templates"

    var library: MustacheLibrary
    /// Every template's text by name, the vault's in place of the defaults.
    var sources: [String: String] = [:]
    /// Problems with the vault's own templates.
    var diagnostics: [Diagnostic] = []
    /// The names taken from the vault rather than the defaults.
    var overridden: [String] = []

    /// The defaults, with the vault's `templates/*.mustache` in their place where it has them.
    static func load(vault: URL) -> TemplateSet {
        var sources = DefaultTemplates.all
        var diagnostics: [Diagnostic] = []
        var overridden: [String] = []
        let folder = vault.appendingPathComponent(Self.folder, isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names.sorted() where name.hasSuffix(".mustache") {
            let path = Self.folder + "/" + name
            guard let bytes = try? FileBytes.contents(of: folder.appendingPathComponent(name).path),
                let text = String(bytes: bytes, encoding: .utf8)
            else {
                diagnostics.append(
                    Diagnostic(.error, .fileUnreadable, "cannot read the template as UTF-8 text", file: path))
                continue
            }
            let key = String(name.dropLast(".mustache".count))
            sources[key] = text
            overridden.append(key)
        }
        var library = MustacheLibrary()
        for (name, text) in sources.sorted(by: { $0.key < $1.key }) {
            do {
                let parsed = overridden.contains(name) ? Result { try Self.parse(text) } : Self.defaults[name]
                guard let parsed else { continue }
                library.register(try parsed.get(), named: name)
            } catch {
                let file = overridden.contains(name) ? Self.folder + "/\(name).mustache" : "<built-in \(name).mustache>"
                diagnostics.append(Self.diagnostic(for: error, file: file))
            }
        }
        let texts = Array(sources.values)
        func isIncluded(_ name: String) -> Bool {
            texts.contains { text in
                ["{{>", "{{<"].contains { tag in
                    text.contains(tag + name + "}}") || text.contains(tag + " " + name + "}}")
                        || text.contains(tag + " " + name + " }}")
                }
            }
        }
        for name in overridden where DefaultTemplates.all[name] == nil && !isIncluded(name) {
            diagnostics.append(
                Diagnostic(
                    .warning, .templateInvalid, "no page or template uses a template named '\(name)'",
                    file: Self.folder + "/\(name).mustache",
                    hint: "templates replace the built-in ones by name: "
                        + DefaultTemplates.all.keys.sorted().joined(separator: ", ")))
        }
        return TemplateSet(library: library, sources: sources, diagnostics: diagnostics, overridden: overridden)
    }

    /// Parses a template that escapes with ``PageEscaping``: the pragma goes on a line of its
    /// own before the text, and Mustache drops it with its line break.
    private static func parse(_ text: String) throws -> MustacheTemplate {
        PageEscaping.register()
        return try MustacheTemplate(string: PageEscaping.pragma + text)
    }

    /// Parses the built-in templates on another thread, for a build that will render pages:
    /// a few milliseconds of a rebuild that keeps every page, taken while a core is free.
    /// Not on one thread (``Compiler/onOneThread``): the fuzzers keep off worker threads.
    static func parseDefaultsAhead() {
        guard !Compiler.onOneThread else { return }
        DispatchQueue.global().async { _ = defaults }
    }

    /// The built-in templates, parsed once per process: parsing them took most of a small
    /// vault's build, and of each rebuild in `locker serve`.
    private static let defaults: [String: Result<MustacheTemplate, any Error>] =
        DefaultTemplates.all.mapValues { text in Result { try parse(text) } }

    private static func diagnostic(for error: any Error, file: String) -> Diagnostic {
        if let parserError = error as? MustacheTemplate.ParserError {
            let context = parserError.context
            // Lines are counted from the author's first line, not the pragma's.
            return Diagnostic(
                .error, .templateInvalid, "the template cannot be parsed: \(parserError.error)", file: file,
                at: SourcePosition(line: max(1, context.lineNumber - 1), column: context.columnNumber))
        }
        return Diagnostic(.error, .templateInvalid, "the template cannot be parsed: \(error)", file: file)
    }

    /// Renders a template; nil when there is no template of that name.
    func render(_ name: String, _ context: [String: Any]) -> String? {
        library.render(context, withTemplate: name)
    }
}

/// How the site's templates escape `{{variables}}`: byte by byte, as ``HTMLRenderer/escape(_:)``
/// does for the pages' bodies.
///
/// Mustache's own HTML escaping compares whole characters: a quote followed by a combining mark
/// is one character, left unescaped, and its quote byte would end an attribute's value. Bytes
/// are also looked at many times faster than characters.
struct PageEscaping: MustacheContentType {
    /// The name templates select it by.
    static let name = "LOCKER_HTML"
    /// What each template is compiled with before its text.
    static let pragma = "{{% CONTENT_TYPE: \(name) }}\n"

    func escapeText(_ text: String) -> String { HTMLRenderer.escape(text) }

    /// Makes the escaping known to Mustache, once per process.
    static func register() { _ = registered }

    private static let registered: Void = MustacheContentTypes.register(PageEscaping(), named: name)
}
