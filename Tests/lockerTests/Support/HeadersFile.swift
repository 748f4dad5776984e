import Foundation

/// The cache rules of a build's `_headers` file (Netlify / Cloudflare Pages format), turned into
/// nginx `location` blocks, so nginx answers with the headers a CDN would.
struct HeadersFile {
    /// One path pattern and the headers it asks for.
    struct Rule: Equatable {
        var pattern: String
        var headers: [Header]
    }

    struct Header: Equatable {
        var name: String
        var value: String
    }

    enum Failure: Error, CustomStringConvertible {
        case unsupported(line: Int, String)

        var description: String {
            switch self {
            case .unsupported(let line, let reason): "_headers:\(line): \(reason)"
            }
        }
    }

    var rules: [Rule]

    /// Reads the file's text: a path at the start of a line, its headers indented below it.
    init(text: String) throws {
        rules = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if line.first?.isWhitespace == false {
                rules.append(Rule(pattern: trimmed, headers: []))
                continue
            }
            guard let colon = trimmed.firstIndex(of: ":"), !rules.isEmpty else {
                throw Failure.unsupported(line: index + 1, "expected 'Name: value' under a path: '\(trimmed)'")
            }
            let header = Header(
                name: trimmed[..<colon].trimmingCharacters(in: .whitespaces),
                value: trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            rules[rules.count - 1].headers.append(header)
        }
    }

    /// One nginx `location` per rule: an exact path as `location =`, a folder's `/*` as a prefix
    /// location that no regular expression overrides (`^~`). Other patterns (a `*` inside a
    /// path, placeholders) are refused rather than served without their headers.
    func locationBlocks() throws -> String {
        try rules.enumerated().map { index, rule in
            let location: String
            if rule.pattern.hasSuffix("/*"), !rule.pattern.dropLast().contains("*"), !rule.pattern.contains(":") {
                location = "^~ \(Self.quoted(String(rule.pattern.dropLast())))"
            } else if !rule.pattern.contains("*"), !rule.pattern.contains(":") {
                location = "= \(Self.quoted(rule.pattern))"
            } else {
                throw Failure.unsupported(line: index + 1, "pattern '\(rule.pattern)' has no nginx location here")
            }
            var block = "        location \(location) {\n"
            for header in rule.headers {
                // `$` would be read as an nginx variable.
                guard !header.value.contains("$"), !header.name.contains("$") else {
                    throw Failure.unsupported(line: index + 1, "header '\(header.name)' has a '$'")
                }
                block += "            add_header \(Self.quoted(header.name)) \(Self.quoted(header.value));\n"
            }
            return block + "        }\n"
        }.joined()
    }

    /// A string as an nginx configuration token.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
