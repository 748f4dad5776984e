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
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path),
                let text = String(data: data, encoding: .utf8)
            else {
                diagnostics.append(Diagnostic(.error, .fileUnreadable, "cannot read the template as UTF-8 text", file: path))
                continue
            }
            let key = String(name.dropLast(".mustache".count))
            sources[key] = text
            overridden.append(key)
        }
        var library = MustacheLibrary()
        for (name, text) in sources.sorted(by: { $0.key < $1.key }) {
            do {
                library.register(try MustacheTemplate(string: text), named: name)
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
                    .warning, .templateInvalid, "no page or template uses a template named '\(name)'", file: Self.folder + "/\(name).mustache",
                    hint: "templates replace the built-in ones by name: " + DefaultTemplates.all.keys.sorted().joined(separator: ", ")))
        }
        return TemplateSet(library: library, sources: sources, diagnostics: diagnostics, overridden: overridden)
    }

    private static func diagnostic(for error: any Error, file: String) -> Diagnostic {
        if let parserError = error as? MustacheTemplate.ParserError {
            let context = parserError.context
            return Diagnostic(
                .error, .templateInvalid, "the template cannot be parsed: \(parserError.error)", file: file,
                at: SourcePosition(line: context.lineNumber, column: context.columnNumber))
        }
        return Diagnostic(.error, .templateInvalid, "the template cannot be parsed: \(error)", file: file)
    }

    /// Renders a template; nil when there is no template of that name.
    func render(_ name: String, _ context: [String: Any]) -> String? {
        library.render(context, withTemplate: name)
    }
}
