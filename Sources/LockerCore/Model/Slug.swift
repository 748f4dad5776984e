/// Slugs for IDs and anchors: lowercase letters and digits of any script, runs of anything else
/// folded into one `-`.
enum Slug {
    /// `Mediterranean Mooring` → `mediterranean-mooring`; `Швартовка кормой` → `швартовка-кормой`.
    static func make(_ text: String) -> String {
        var result = ""
        var pendingDash = false
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                if pendingDash, !result.isEmpty { result.append("-") }
                pendingDash = false
                result.append(character)
            } else {
                pendingDash = true
            }
        }
        return result
    }

    /// The ID of a note without a frontmatter `id`: each folder and the file name slugged, joined by `/`.
    static func id(forPath path: String) -> String {
        path.split(separator: "/").map { make(String($0)) }.filter { !$0.isEmpty }.joined(separator: "/")
    }

    /// Whether a frontmatter `id` is usable: parts of letters, digits, `-`, `_` and `.`, joined by `/`.
    static func isValidID(_ id: String) -> Bool {
        let parts = id.split(separator: "/", omittingEmptySubsequences: false)
        return parts.allSatisfy { part in
            !part.isEmpty && part != "." && part != ".."
                && part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }
        }
    }
}
