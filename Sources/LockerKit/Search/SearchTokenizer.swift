import GRDB

/// The FTS5 tokenizer of ``ContentSearch``: SQLite's `unicode61` (lowercase, accents kept),
/// each word then stemmed by the Snowball stemmer of its script, Russian for Cyrillic and English
/// for Latin, so «якорем», «якоря» and «якорь» are one term, and so are "anchoring" and "anchor".
///
/// By script rather than by the document's locale: a Russian note's English words (VHF, MOB)
/// are stemmed as English, and a query finds the same terms whatever the reader's language.
final class SearchTokenizer: FTS5WrapperTokenizer {
    static let name = "locker_stem"
    let wrappedTokenizer: any FTS5Tokenizer

    init(db: Database, arguments: [String]) throws {
        wrappedTokenizer = try db.makeTokenizer(.unicode61(diacritics: .keep))
    }

    func accept(
        token: String, flags: FTS5TokenFlags, for tokenization: FTS5Tokenization,
        tokenCallback: FTS5WrapperTokenCallback
    ) throws {
        try tokenCallback(Self.stem(token), flags)
    }

    /// The term a lowercase word is indexed and searched as.
    static func stem(_ word: String) -> String {
        for scalar in word.unicodeScalars {
            switch scalar.value {
            case 0x0400...0x04FF: return RussianStemmer.stem(word)
            case 0x61...0x7A: return EnglishStemmer.stem(word)
            default: continue
            }
        }
        return word
    }
}
