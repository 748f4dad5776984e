import Foundation

/// Slugs for IDs and anchors: lowercase letters and digits of any script, runs of anything else
/// folded into one `-`.
enum Slug {
    /// `Mediterranean Mooring` → `mediterranean-mooring`; `Швартовка кормой` → `швартовка-кормой`.
    static func make(_ text: String) -> String {
        asciiSlug(text) ?? characterSlug(text)
    }

    /// ``make(_:)`` by characters: what any text gets, and the rule ``asciiSlug(_:)`` follows.
    static func characterSlug(_ text: String) -> String {
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

    /// ``make(_:)`` of ASCII text, on bytes: the same result without Unicode's character
    /// breaking; nil when the text is not ASCII.
    static func asciiSlug(_ text: String) -> String? {
        text.asciiLowercasedWords(joinedBy: 0x2D) { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
    }

    /// An ID usable as an Obsidian block ID (`^id`): ASCII letters, digits and `-`, Cyrillic
    /// transliterated, at most `limit` characters cut at a word. `Спасательные жилеты` → `spasatelnye-zhilety`.
    ///
    /// The table is Locker's own, not the platform's, so the same text gives the same ID everywhere.
    static func blockID(_ text: String, limit: Int = 48) -> String {
        var result = ""
        var pendingDash = false
        for character in text.lowercased() {
            let latin: String
            if character.isASCII {
                latin = character.isLetter || character.isNumber ? String(character) : ""
            } else if let mapped = transliteration[character] {
                latin = mapped
            } else if character == "ё" {
                latin = "e"
            } else {
                // Other scripts and accents: the base letter when it is Latin, else a word break.
                let base = String(character).decomposedStringWithCanonicalMapping.unicodeScalars.first
                latin =
                    base.map {
                        $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil) ? String($0) : ""
                    } ?? ""
            }
            if latin.isEmpty {
                if !(character == "ь" || character == "ъ") { pendingDash = true }
                continue
            }
            if pendingDash, !result.isEmpty { result.append("-") }
            pendingDash = false
            result += latin
        }
        guard result.count > limit else { return result }
        let cut = result.prefix(limit)
        if let dash = cut.lastIndex(of: "-"), dash > cut.startIndex { return String(cut[..<dash]) }
        return String(cut)
    }

    /// ``blockID(_:limit:)`` of the text, or `fallback` when nothing of it is left.
    static func blockID(_ text: String, or fallback: String) -> String {
        let slug = blockID(text)
        return slug.isEmpty ? fallback : slug
    }

    /// Russian and Ukrainian letters in Latin, after the common passport-style romanisation.
    private static let transliteration: [Character: String] = [
        "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ж": "zh", "з": "z", "и": "i", "й": "y",
        "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u",
        "ф": "f", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ы": "y", "э": "e", "ю": "yu",
        "я": "ya", "і": "i", "ї": "yi", "є": "ye", "ґ": "g",
    ]

    /// Whether text is a usable Obsidian block ID: ASCII letters, digits and `-`.
    static func isValidBlockID(_ id: String) -> Bool {
        !id.isEmpty && id.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" }
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
