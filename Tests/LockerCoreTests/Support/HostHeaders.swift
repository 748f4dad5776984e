import Foundation

/// A `_headers` file read as Netlify and Cloudflare Pages read it: blocks of a URL pattern and
/// its indented `Name: value` lines; a request gets the headers of every rule that matches it.
struct HostHeaders {
    /// How a host matches a rule's pattern against a path.
    enum Host: CaseIterable {
        /// `*` matches any run of characters, none included; the rest exactly.
        case cloudflare
        /// As `@netlify/headers-parser` builds its expression: a segment `*` is `?(.*)` (so
        /// `/ru/*` matches `/rules/`), a trailing slash is optional, and case is ignored.
        case netlify
    }

    struct Rule {
        var pattern: String
        var headers: [(name: String, value: String)]
    }

    let rules: [Rule]

    init(_ text: String) {
        var rules: [Rule] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            if line.hasPrefix(" ") || line.hasPrefix("\t") {
                let pair = line.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
                guard pair.count == 2, !rules.isEmpty else { continue }
                rules[rules.count - 1].headers.append(
                    (String(pair[0]), pair[1].trimmingCharacters(in: .whitespaces)))
            } else {
                rules.append(Rule(pattern: String(line), headers: []))
            }
        }
        self.rules = rules
    }

    /// The rules whose pattern matches `path` on `host`.
    func matching(_ path: String, on host: Host) -> [Rule] {
        switch host {
        case .cloudflare:
            return rules.filter { Self.matches(Array($0.pattern.utf8)[...], Array(path.utf8)[...]) }
        case .netlify:
            return rules.filter { rule in
                let parts = rule.pattern.split(separator: "/").map { part in
                    part == "*"
                        ? "?(.*)"
                        : part.contains("*")
                            ? part.replacingOccurrences(of: "*", with: "(.*)")
                            : NSRegularExpression.escapedPattern(for: String(part))
                }
                let expression = try? NSRegularExpression(
                    pattern: "^/" + parts.joined(separator: "/") + "/?$", options: [.caseInsensitive])
                let range = NSRange(path.startIndex..., in: path)
                return expression?.firstMatch(in: path, range: range) != nil
            }
        }
    }

    private static func matches(_ pattern: ArraySlice<UInt8>, _ path: ArraySlice<UInt8>) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        if first == UInt8(ascii: "*") {
            let rest = pattern.dropFirst()
            return path.indices.contains { matches(rest, path[$0...]) } || matches(rest, path[path.endIndex...])
        }
        return path.first == first && matches(pattern.dropFirst(), path.dropFirst())
    }
}
