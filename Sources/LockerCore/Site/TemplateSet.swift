import Foundation
import LockerTemplates
import Mustache

/// The site's Mustache templates: the defaults compiled into `locker`, each replaceable by a file
/// of the same name in the vault's `templates/` folder.
///
/// A template is parsed when a page first needs it, with the templates it can include: a
/// rebuild that renders one guide parses the guide's chain (the layout, head, header, footer)
/// and not the landing page, checklist, deck or list templates, most of the defaults' bytes
/// (parsing takes time with every byte). The vault's own templates are parsed as they are loaded,
/// for their problems are the build's.
struct TemplateSet: Sendable {
    /// The folder of a vault that overrides default templates.
    static let folder = "templates"

    /// Every template's text by name, the vault's in place of the defaults. Not changed after
    /// loading: every copy of the set renders through the libraries made from these texts.
    let sources: [String: String]
    /// Problems with the vault's own templates.
    let diagnostics: [Diagnostic]
    /// The names taken from the vault rather than the defaults.
    let overridden: [String]
    /// The vault's templates that parse, by name.
    private let parsedOverrides: [String: MustacheTemplate]
    /// What each template is rendered through, made at its first render.
    private let libraries = Libraries()

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
        var parsedOverrides: [String: MustacheTemplate] = [:]
        for name in overridden.sorted() {
            guard let text = sources[name] else { continue }
            do {
                parsedOverrides[name] = try Self.parse(text)
            } catch {
                diagnostics.append(Self.diagnostic(for: error, file: Self.folder + "/\(name).mustache"))
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
        return TemplateSet(
            sources: sources, diagnostics: diagnostics, overridden: overridden, parsedOverrides: parsedOverrides)
    }

    /// Parses a template that escapes with ``PageEscaping``: the pragma goes on a line of its
    /// own before the text, and Mustache drops it with its line break.
    private static func parse(_ text: String) throws -> MustacheTemplate {
        PageEscaping.register()
        return try MustacheTemplate(string: PageEscaping.pragma + text)
    }

    /// The built-in templates every site with guides renders (the guide page, the home page,
    /// the 404 page and the chain they share), parsed on another thread ahead of a build that
    /// will render pages, while a core is free. Not on one thread (``Compiler/onOneThread``):
    /// the fuzzers keep off worker threads.
    static func parseDefaultsAhead() {
        guard !Compiler.onOneThread else { return }
        DispatchQueue.global().async {
            for name in ["layout", "head", "header", "footer", "guide", "home", "notfound"] {
                _ = parsedDefault(name)
            }
        }
    }

    /// A built-in template, parsed once per process, when first asked for: parsing them took
    /// most of a small vault's build, and of each rebuild in `locker serve`. Nil when there is
    /// no built-in template of that name, or it does not parse.
    static func parsedDefault(_ name: String) -> MustacheTemplate? {
        if let known = defaults.withLock({ $0[name] }) { return try? known.get() }
        guard let text = DefaultTemplates.all[name] else { return nil }
        // Parsed outside the lock: two threads may both parse a template the first time, and
        // the first one kept is the one every later render uses.
        let parsed = Result { try parse(text) }
        return try? defaults.withLock { known in
            if let earlier = known[name] { return earlier }
            known[name] = parsed
            return parsed
        }.get()
    }

    private static let defaults = Guarded<[String: Result<MustacheTemplate, any Error>]>([:])

    /// What swift-mustache reads as a partial's name.
    private static let partialNameCharacters = Set<Character>(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?()*/")

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
        guard let text = sources[name] else { return nil }
        // Text without a tag (the style sheet) is its own rendering: every tag starts with `{{`
        // until one changes the delimiters. When it ends with a line break: Mustache drops a
        // last line of spaces and tabs, and cannot parse a text ending in `{`.
        if text.isEmpty || (text.utf8.last == UInt8(ascii: "\n") && !text.containsBytes("{{")) { return text }
        guard let library = libraries.library(for: name, making: { library(rendering: name) }) else { return nil }
        return library.render(context, withTemplate: name)
    }

    /// A library that holds `name` and every template it can include, parsed: those its
    /// partials and parents name, and theirs in turn. A text whose tags cannot be read (one
    /// that changes the delimiters), that names a partial by a value (`{{>*name}}`), or whose
    /// partial's name is not read here as swift-mustache reads it (white space it skips that
    /// a trim keeps: a space and a combining mark), gets every template. Nil when `name` does
    /// not parse.
    private func library(rendering name: String) -> MustacheLibrary? {
        var needed: Set<String> = [name]
        var unread = [name]
        while let next = unread.popLast(), let text = sources[next] {
            let included = SiteChrome.tags(in: text).map { tags in
                tags.filter { $0.kind == ">" || $0.kind == "<" }.map(\.name)
            }
            let readAsMustacheReadsThem = included?.allSatisfy { name in
                !name.isEmpty && !name.hasPrefix("*") && name.allSatisfy(Self.partialNameCharacters.contains)
            }
            guard let included, readAsMustacheReadsThem == true else {
                needed = Set(sources.keys)
                break
            }
            for other in included where sources[other] != nil && !needed.contains(other) {
                needed.insert(other)
                unread.append(other)
            }
        }
        var library = MustacheLibrary()
        for template in needed {
            let parsed = overridden.contains(template) ? parsedOverrides[template] : Self.parsedDefault(template)
            if let parsed { library.register(parsed, named: template) }
        }
        return library.getTemplate(named: name) == nil ? nil : library
    }
}

/// The libraries a ``TemplateSet`` renders through, by the template each is for: shared by every
/// copy of the set, and by the threads rendering pages.
private final class Libraries: Sendable {
    private let made = Guarded<[String: MustacheLibrary?]>([:])

    /// The library for `name`, made by `make` the first time it is asked for.
    func library(for name: String, making make: () -> MustacheLibrary?) -> MustacheLibrary? {
        if let known = made.withLock({ $0[name] }) { return known }
        let library = make()
        return made.withLock { known in
            if let earlier = known[name] { return earlier }
            known[name] = .some(library)
            return library
        }
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
