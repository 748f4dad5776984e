import Foundation
import LockerKit
import LockerTestSupport
import Testing

/// The Russian and English stemmers: a few words with the stems Snowball documents, and every
/// word of the vault and thousands of generated ones checked against Snowball's own stemmers
/// (the `snowballstemmer` package, Python generated from the same `.sbl` sources).
@Suite struct StemmerTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    // MARK: Examples

    @Test func russianFormsOfAWordShareItsStem() {
        for word in ["якорь", "якоря", "якорем", "якорями", "якорю"] {
            #expect(RussianStemmer.stem(word) == "якор", "\(word)")
        }
        #expect(RussianStemmer.stem("ветра") == RussianStemmer.stem("ветром"))
        #expect(RussianStemmer.stem("парусами") == "парус")
    }

    /// From Snowball's page for the Russian stemmer and its sample vocabulary.
    @Test(arguments: [
        ("в", "в"), ("вавиловка", "вавиловк"), ("вагнера", "вагнер"), ("вагон", "вагон"), ("вагона", "вагон"),
        ("важная", "важн"), ("важнее", "важн"), ("важнейшие", "важн"), ("важнейшими", "важн"),
        ("красивейший", "красив"), ("парусность", "парусн"), ("проходившись", "проход"),
    ])
    func russianSnowballExamples(_ word: String, _ stem: String) {
        #expect(RussianStemmer.stem(word) == stem)
    }

    /// ё is read as е, as Snowball's own stemmer now does.
    @Test func russianYoIsYe() {
        #expect(RussianStemmer.stem("ёлка") == "елк")
        #expect(RussianStemmer.stem("ёлки") == RussianStemmer.stem("елки"))
        #expect(RussianStemmer.stem("ещё") == "ещ")
        #expect(RussianStemmer.stem("ё") == "е")
    }

    @Test func englishFormsOfAWordShareItsStem() {
        for word in ["anchor", "anchoring", "anchored", "anchors"] {
            #expect(EnglishStemmer.stem(word) == "anchor", "\(word)")
        }
    }

    /// From Snowball's page for the English stemmer, its sample vocabulary and exceptional forms.
    @Test(arguments: [
        ("consign", "consign"), ("consigned", "consign"), ("consigning", "consign"), ("consignment", "consign"),
        ("consistency", "consist"), ("consistently", "consist"), ("knackeries", "knackeri"), ("knaves", "knave"),
        ("knavish", "knavish"), ("skies", "sky"), ("skis", "ski"), ("news", "news"), ("atlas", "atlas"),
        ("early", "earli"), ("dying", "die"), ("lying", "lie"), ("inning", "inning"), ("outing", "outing"),
        ("proceed", "proceed"), ("succeeded", "succeed"), ("generously", "generous"), ("hoped", "hope"),
        ("hopping", "hop"), ("cried", "cri"), ("ties", "tie"), ("gas", "gas"), ("gaps", "gap"), ("saying", "say"),
    ])
    func englishSnowballExamples(_ word: String, _ stem: String) {
        #expect(EnglishStemmer.stem(word) == stem)
    }

    @Test func anyStringIsTaken() {
        for word in ["", "a", "я", "12", "⚓", "😀ing", "x1ing", "'", "''", "y", "и\u{306}"] {
            #expect(EnglishStemmer.stem(word) == word, "\(word)")
            #expect(RussianStemmer.stem(word) == word, "\(word)")
        }
        // A combining mark is a character of its own, a non-vowel, as Snowball counts code points.
        #expect(EnglishStemmer.stem("e\u{301}ing").unicodeScalars.elementsEqual("e\u{301}e".unicodeScalars))
    }

    // MARK: Against Snowball

    /// The version of Snowball's Python stemmers that `Tests/browser/requirements.txt` pins and
    /// `make tools` installs in `.build/tools`.
    static let referenceVersion: String? = {
        let url = repository.appendingPathComponent("Tests/browser/requirements.txt")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("snowballstemmer==") {
            return String(line.dropFirst("snowballstemmer==".count)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }()

    /// Stems every word with Snowball's pure-Python English and Russian stemmers, in one process;
    /// also answers the package's version.
    static let referenceScript = """
        import sys, importlib.metadata
        from snowballstemmer.english_stemmer import EnglishStemmer
        from snowballstemmer.russian_stemmer import RussianStemmer
        with open(sys.argv[1], encoding="utf-8", newline="") as f:
            words = f.read().split("\\n")
        english, russian = EnglishStemmer(), RussianStemmer()
        with open(sys.argv[2], "w", encoding="utf-8", newline="") as out:
            out.write(importlib.metadata.version("snowballstemmer") + "\\n")
            for word in words:
                out.write(english.stemWord(word) + "\\t" + russian.stemWord(word) + "\\n")
        """

    /// Both stems of each word from Snowball's own stemmers, in order, and the reference's version.
    static func reference(_ words: [String]) throws -> (version: String, stems: [(english: String, russian: String)]) {
        let output = try PythonReference.run(
            referenceScript, input: Data(words.joined(separator: "\n").utf8),
            package: "snowballstemmer==\(referenceVersion ?? "?")")
        let lines = String(decoding: output, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        try #require(
            lines.count == words.count + 2, "the reference answered \(lines.count - 2) lines for \(words.count) words")
        let stems = lines[1...words.count].map { line in
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
            return (english: String(parts.first ?? ""), russian: String(parts.count > 1 ? parts[1] : ""))
        }
        return (String(lines[0]), stems)
    }

    /// Every word on which a stemmer differs from Snowball's, as `language word: ours ≠ Snowball's`.
    static func mismatches(_ words: [String], _ stems: ArraySlice<(english: String, russian: String)>) -> [String] {
        var found: [String] = []
        for (word, reference) in zip(words, stems) {
            let english = EnglishStemmer.stem(word)
            let russian = RussianStemmer.stem(word)
            // By their scalars: String's == would take a composed and a decomposed letter as one.
            if !english.unicodeScalars.elementsEqual(reference.english.unicodeScalars) {
                found.append(
                    "english \(word.debugDescription): \(english.debugDescription) ≠ \(reference.english.debugDescription)"
                )
            }
            if !russian.unicodeScalars.elementsEqual(reference.russian.unicodeScalars) {
                found.append(
                    "russian \(word.debugDescription): \(russian.debugDescription) ≠ \(reference.russian.debugDescription)"
                )
            }
        }
        return found
    }

    /// Every word of the vault's notes and thousands of generated ones, each through both
    /// stemmers, as Snowball's stemmers stem them.
    @Test func stemsAreSnowballs() throws {
        let vaultWords = try Self.vaultWords()
        // Enough of each script that the check means something.
        #expect(
            vaultWords.filter { $0.unicodeScalars.first.map { (0x430...0x451).contains($0.value) } ?? false }.count
                > 1000)
        #expect(
            vaultWords.filter { $0.unicodeScalars.first.map { (0x61...0x7A).contains($0.value) } ?? false }.count > 1000
        )
        let generated = Self.generatedWords()
        let words = vaultWords + generated

        let reference = try Self.reference(words)
        #expect(
            reference.version == Self.referenceVersion,
            "Snowball's stemmers are not the pinned version: run `make tools`")
        // The counts compared, not the lists: a failure shows the first 30 mismatches alone.
        let vault = Self.mismatches(vaultWords, reference.stems[0..<vaultWords.count])
        #expect(
            vault.count == 0,
            "stems of the vault's \(vaultWords.count) words that differ from Snowball's:\n\(vault.prefix(30).joined(separator: "\n"))"
        )
        let others = Self.mismatches(generated, reference.stems[vaultWords.count...])
        #expect(
            others.count == 0,
            "stems of \(generated.count) generated words that differ from Snowball's:\n\(others.prefix(30).joined(separator: "\n"))"
        )
    }

    // MARK: Words

    /// Every distinct word of the vault's notes: runs of letters, lowercased, in order.
    static func vaultWords() throws -> [String] {
        let content = repository.appendingPathComponent("content")
        let files = try FileManager.default.subpathsOfDirectory(atPath: content.path).filter { $0.hasSuffix(".md") }
            .sorted()
        try #require(!files.isEmpty, "no notes in \(content.path)")
        var words = Set<String>()
        for file in files {
            let text = try String(contentsOf: content.appendingPathComponent(file), encoding: .utf8)
            var word = ""
            for character in text {
                if character.isLetter {
                    word.append(character)
                } else if !word.isEmpty {
                    words.insert(word.lowercased())
                    word = ""
                }
            }
            if !word.isEmpty { words.insert(word.lowercased()) }
        }
        return words.sorted()
    }

    static let russianStems = [
        "якор", "парус", "ветр", "мачт", "лодк", "волн", "берег", "кнехт", "узл", "плав", "ход", "бег", "чита",
        "дела", "говор", "красн", "нов", "син", "хорош", "быстр", "сторон", "люб", "зелен", "ёлк", "зна", "работ",
        "оста", "стро", "прох", "держ", "вяз", "крепк", "шварт", "отда", "ид", "по", "в", "да", "ин", "ун", "сильн",
        "важн", "остр", "ём", "ша", "ия", "ост",
    ]

    static let russianEndings: [String] = {
        let gerund = [
            "в", "вши", "вшись", "ав", "авши", "авшись", "яв", "явши", "ив", "ивши", "ившись", "ыв", "ывши", "ывшись",
        ]
        let adjective = [
            "ее", "ие", "ые", "ое", "ими", "ыми", "ей", "ий", "ый", "ой", "ем", "им", "ым", "ом", "его", "ого", "ему",
            "ому", "их", "ых", "ую", "юю", "ая", "яя", "ою", "ею",
        ]
        let participle = [
            "ем", "нн", "вш", "ющ", "щ", "ивш", "ывш", "ующ", "аем", "яем", "анн", "енн", "авш", "ающ", "ящ",
        ]
        let verb = [
            "ла", "на", "ете", "йте", "ли", "й", "л", "ем", "н", "ло", "но", "ет", "ют", "ны", "ть", "ешь", "нно",
            "ила", "ыла", "ена", "ейте", "уйте", "ите", "или", "ыли", "ей", "уй", "ил", "ыл", "им", "ым", "ен", "ило",
            "ыло", "ено", "ят", "ует", "уют", "ит", "ыт", "ены", "ить", "ыть", "ишь", "ую", "ю", "ала", "ало", "али",
            "ать", "ают", "аешь", "яла", "ять", "анно",
        ]
        let noun = [
            "а", "ев", "ов", "ие", "ье", "е", "иями", "ями", "ами", "еи", "ии", "и", "ией", "ей", "ой", "ий", "й",
            "иям", "ям", "ием", "ем", "ам", "ом", "о", "у", "ах", "иях", "ях", "ы", "ь", "ию", "ью", "ю", "ия", "ья",
            "я",
        ]
        var endings = [
            "", "и", "ь", "нь", "ость", "ост", "ости", "остью", "остей", "остями", "ейш", "ейше", "нн", "ё", "ёй",
        ]
        endings += gerund + adjective + verb + noun
        endings += participle.flatMap { p in adjective.map { p + $0 } }
        endings += adjective.map { "ейш" + $0 } + noun.map { "ост" + $0 }
        endings += (verb + adjective + participle.map { $0 + "ий" }).flatMap { [$0 + "ся", $0 + "сь"] }
        var seen = Set<String>()
        return endings.filter { seen.insert($0).inserted }
    }()

    static let englishBases = [
        "anchor", "sail", "hop", "hope", "luxuri", "cri", "troubl", "generat", "gener", "commun", "arsen", "past",
        "univers", "later", "emerg", "organ", "inter", "proc", "exc", "succ", "inn", "out", "cann", "herr", "earr",
        "even", "sky", "ski", "agre", "feed", "bleed", "nation", "relat", "condition", "ration", "valenc", "digit",
        "conform", "radic", "differ", "vile", "analog", "geolog", "fruit", "sensitiv", "hesit", "bo", "y", "ay", "toy",
        "say", "fizz", "add", "ebb", "off", "egg", "err", "inn", "at", "bl", "iz", "a", "e", "ion", "ing", "ed", "fa",
        "tap", "tape", "wax", "snow", "fix", "sho", "ski'", "'twas", "d", "lie", "tie", "die", "vie", "dy", "ly",
    ]

    static let englishSuffixes = [
        "", "s", "es", "'s", "s'", "'", "'s'", "ed", "ing", "ly", "edly", "ingly", "eed", "eedly", "ness", "ational",
        "tional", "ation", "ations", "ator", "alism", "aliti", "alli", "fulness", "ousli", "ousness", "iveness",
        "iviti",
        "biliti", "bli", "ogist", "ogi", "logi", "fulli", "lessli", "li", "cli", "enci", "anci", "abli", "entli",
        "izer", "ization", "alize", "icate", "iciti", "ical", "ful", "ative", "al", "ance", "ence", "er", "ic", "able",
        "ible", "ant", "ement", "ment", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion", "sion", "tion", "e",
        "l", "ll", "y", "ies", "ied", "sses", "ss", "us", "ys", "yed", "ying", "ated", "bled", "ized", "bbing", "tted",
        "ping", "ered", "fulnesses", "ously", "ivities", "izations", "ationally",
    ]

    /// Edge cases: short and empty words, apostrophes, y and Y, ё, digits, other scripts,
    /// combining marks and emoji.
    static let edgeWords = [
        "", "a", "я", "ё", "ёж", "ежё", "ёлочка", "yy", "y", "Y", "yyy", "yay", "yYy", "sayYes", "'", "''", "'''",
        "'s", "s'", "ys", "sky", "skies", "abc123ing", "2nd", "100ed", "a1b2", "ing", "ed", "s", "ss", "ies", "ied",
        "eed", "us", "якорing", "anchorами", "и\u{306}", "йод", "e\u{301}ing", "⚓ing", "😀", "ing😀", "я😀",
        "😀ами", "x\u{200D}y", "ıng", "ßing", "ǆing", "日本語", "δing",
    ]

    /// Stems with every ending, bases with every suffix, the edge cases, and 3,000 random strings
    /// of letters of both scripts, digits, apostrophes, combining marks and emoji (seeded).
    static func generatedWords() -> [String] {
        var words = edgeWords
        words += russianStems.flatMap { stem in russianEndings.map { stem + $0 } }
        words += englishBases.flatMap { base in englishSuffixes.map { base + $0 } }
        let alphabet = Array(
            "abcdeiouyYwxzlstgnrmpbfkhq'ааеиоуыэюяёйвшщсьъчжмнлтрпкзхцбгфдд0123456789\u{301}\u{306}😀⚓ß".unicodeScalars)
        var random = SplitMix64(seed: 0x5EED_57E3)
        for _ in 0..<3000 {
            var word = String.UnicodeScalarView()
            for _ in 0..<Int(random.next() % 13) { word.append(alphabet[Int(random.next() % UInt64(alphabet.count))]) }
            words.append(String(word))
        }
        var seen = Set<[Unicode.Scalar]>()
        return words.filter { seen.insert(Array($0.unicodeScalars)).inserted }
    }
}
