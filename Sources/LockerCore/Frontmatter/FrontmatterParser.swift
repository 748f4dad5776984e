import LockerKit

/// Finds a note's frontmatter, reads its YAML and checks the keys Locker knows.
struct FrontmatterParser: Sendable {
    var file: String
    var config: VaultConfig

    /// Splits off the frontmatter fenced by `---` lines at the very top of the note.
    func split(_ source: SourceText) -> (SplitNote, Diagnostic?) {
        guard source.lineCount > 1, Self.isFence(source.line(1), closing: false) else {
            return (SplitNote(yaml: nil, body: source.text), nil)
        }
        for line in 2...source.lineCount where Self.isFence(source.line(line), closing: true) {
            let yamlStart = source.lineStarts[1]
            let yamlEnd = source.lineStarts[line - 1]
            let yaml = String(decoding: source.bytes[yamlStart..<yamlEnd], as: UTF8.self)
            let bodyStart = line < source.lineCount ? source.lineStarts[line] : source.bytes.count
            let blank = String(repeating: "\n", count: line)
            let body = blank + source.text(fromLineStartOffset: bodyStart)
            return (SplitNote(yaml: yaml, yamlFirstLine: 2, body: body), nil)
        }
        let diagnostic = Diagnostic(
            .error, .frontmatterUnterminated, "frontmatter opened with '---' is never closed", file: file,
            hint: "end the frontmatter with a line holding only '---'")
        return (SplitNote(yaml: nil, body: source.text), diagnostic)
    }

    private static func isFence(_ line: String, closing: Bool) -> Bool {
        let trimmed = line.trimmingTrailingWhitespace
        return trimmed == "---" || (closing && trimmed == "...")
    }

    /// Reads the YAML and types the known keys. Problems become diagnostics; parsing goes on.
    func parse(_ split: SplitNote) -> (Frontmatter, [Diagnostic]) {
        var frontmatter = Frontmatter()
        guard let yaml = split.yaml else { return (frontmatter, []) }
        let reader = YAMLReader(lineOffset: split.yamlFirstLine - 1, file: file)
        let root: YAMLValue
        switch reader.read(yaml) {
        case .failure(let diagnostic): return (frontmatter, [diagnostic])
        case .success(.none): return (frontmatter, [])
        case .success(let value?): root = value
        }
        guard case .mapping(let entries, _) = root else {
            let diagnostic = Diagnostic(
                .error, .frontmatterNotMapping, "frontmatter must be 'key: value' lines, not \(root.typeName)",
                file: file, at: root.position)
            return (frontmatter, [diagnostic])
        }
        var diagnostics: [Diagnostic] = []
        func invalid(_ value: YAMLValue, _ message: String, hint: String? = nil) {
            diagnostics.append(
                Diagnostic(.error, .frontmatterInvalidValue, message, file: file, at: value.position, hint: hint))
        }
        func text(_ value: YAMLValue, _ key: String) -> String? {
            switch value {
            case .scalar(_, .null, _): return nil
            case .scalar(let text, _, _):
                let trimmed = text.trimmingWhitespace
                return trimmed.isEmpty ? nil : trimmed
            default:
                invalid(value, "'\(key)' must be text, not \(value.typeName)")
                return nil
            }
        }
        func list(_ value: YAMLValue, _ key: String) -> [(String, YAMLValue)] {
            switch value {
            case .scalar(_, .null, _): return []
            case .scalar: return text(value, key).map { [($0, value)] } ?? []
            case .sequence(let items, _): return items.compactMap { item in text(item, key).map { ($0, item) } }
            case .mapping: invalid(value, "'\(key)' must be text or a list, not a mapping")
            }
            return []
        }
        func oneOf(_ value: YAMLValue, _ key: String, _ allowed: [String]) -> String? {
            guard let raw = text(value, key) else { return nil }
            let lowered = raw.lowercased()
            guard allowed.contains(lowered) else {
                invalid(value, "'\(raw)' is not a valid \(key)", hint: "use one of: " + allowed.joined(separator: ", "))
                return nil
            }
            return lowered
        }
        for entry in entries {
            let value = entry.value
            switch entry.key {
            case "id":
                guard let id = text(value, "id") else { continue }
                if Slug.isValidID(id) {
                    frontmatter.id = id
                    frontmatter.idPosition = value.position
                } else {
                    diagnostics.append(
                        Diagnostic(
                            .error, .idInvalid, "id '\(id)' is not usable", file: file, at: value.position,
                            hint: "use letters, digits, '-', '_' and '.', with '/' between parts"))
                }
            case "kind":
                if let kind = oneOf(value, "kind", ContentKind.authored.map(\.rawValue)) {
                    frontmatter.kind = ContentKind(rawValue: kind)
                }
            case "type": frontmatter.type = oneOf(value, "type", Frontmatter.types)
            case "checklistType":
                guard let raw = text(value, "checklistType") else { continue }
                if let type = ChecklistType.known.first(where: { $0.rawValue.lowercased() == raw.lowercased() }) {
                    frontmatter.checklistType = type
                } else {
                    diagnostics.append(
                        Diagnostic(
                            .error, .checklistUnknownType, "unknown checklistType '\(raw)'", file: file,
                            at: value.position,
                            hint: "use one of: " + ChecklistType.known.map(\.rawValue).joined(separator: ", ")))
                }
            case "title":
                frontmatter.title = text(value, "title")
                frontmatter.titlePosition = value.position
            case "subtitle": frontmatter.subtitle = text(value, "subtitle")
            case "description":
                frontmatter.description = text(value, "description")
                frontmatter.descriptionPosition = value.position
            case "category": frontmatter.category = oneOf(value, "category", Frontmatter.categories)
            case "lang":
                guard let lang = text(value, "lang") else { continue }
                if config.locales.contains(lang) {
                    frontmatter.lang = lang
                } else {
                    invalid(
                        value, "'\(lang)' is not one of the vault's locales",
                        hint: "locales: " + config.locales.joined(separator: ", ") + " (set them in locker.yml)")
                }
            case "aliases", "alias": frontmatter.aliases += list(value, entry.key).map { VaultPath.normalize($0.0) }
            case "tags", "tag":
                for (raw, _) in list(value, entry.key) {
                    let parts = raw.split(whereSeparator: { $0 == "," || $0 == " " })
                    for part in parts {
                        let tag = part.hasPrefix("#") ? String(part.dropFirst()) : String(part)
                        if !tag.isEmpty, !frontmatter.tags.contains(tag) { frontmatter.tags.append(tag) }
                    }
                }
            case "order":
                if case .scalar(let raw, .int, _) = value, let number = Int(raw) {
                    frontmatter.order = number
                } else if case .scalar(_, .null, _) = value {
                    continue
                } else {
                    invalid(value, "'order' must be a whole number, not \(value.typeName)")
                }
            default:
                frontmatter.extra[entry.key] = value.json
                frontmatter.extraEntries.append(entry)
            }
        }
        return (frontmatter, diagnostics)
    }
}

extension String {
    var trimmingWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else {
            return ""
        }
        return String(self[first...last])
    }

    var trimmingTrailingWhitespace: String {
        guard let last = lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(self[...last])
    }
}
