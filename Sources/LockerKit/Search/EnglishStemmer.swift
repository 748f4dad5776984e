/// The Snowball English stemmer (Porter2), for full-text search: "anchoring", "anchored" and
/// "anchors" all give "anchor".
///
/// A port of `english.sbl` as Snowball 3.1.1 defines it (https://snowballstem.org/algorithms/english/stemmer.html),
/// routine by routine as Snowball's generated code runs it, with its exceptional forms
/// ("skies" → "sky", "news", "gently" → "gentl", …), its regions' exceptional prefixes
/// ("gener", "commun", "arsen", …) and the "-ing" forms it leaves alone ("inning", "outing").
/// Tests check it against Snowball's own stemmer on the vault's words and on generated ones.
package enum EnglishStemmer {
    /// The stem of one lowercased word. Any string is taken: characters outside English's
    /// letters are kept as they are, and words under three characters are their own stems.
    package static func stem(_ word: String) -> String {
        var z = SnowballWord(word)
        if exception1(&z) { return z.string(original: word) }
        z.cursor = 0
        // `not hop 3`: words of one or two characters are left as they are.
        if z.limit < 3 { return word }

        let yFound = prelude(&z)
        let regions = Regions(z: &z)
        z.limitBackward = 0
        z.cursor = z.limit
        step1a(&z)
        z.cursor = z.limit
        step1b(&z, regions)
        z.cursor = z.limit
        step1c(&z)
        z.cursor = z.limit
        step2(&z, regions)
        z.cursor = z.limit
        step3(&z, regions)
        z.cursor = z.limit
        step4(&z, regions)
        z.cursor = z.limit
        step5(&z, regions)
        // postlude: the Y that marked a consonant y is y again.
        if yFound {
            for i in 0..<z.limit where z.chars[i] == Letter.upperY { z.replaceCharacter(at: i, with: Letter.y) }
        }
        return z.string(original: word)
    }

    private enum Letter {
        static let apostrophe = UInt32(0x27)
        static let upperY = UInt32(0x59)
        static let y = UInt32(0x79)
        static let l = UInt32(0x6C)
        static let s = UInt32(0x73)
        static let t = UInt32(0x74)
    }

    private static let v = SnowballGrouping("aeiouy")
    private static let vWXY = SnowballGrouping("aeiouywxY")
    private static let aeo = SnowballGrouping("aeo")
    private static let validLI = SnowballGrouping("cdeghkmnrt")

    private static let past = [UInt32](scalars: "past")
    private static let i = [UInt32](scalars: "i")
    private static let e = [UInt32](scalars: "e")
    private static let ie = [UInt32](scalars: "ie")
    private static let ee = [UInt32](scalars: "ee")
    private static let ss = [UInt32](scalars: "ss")
    private static let upperY = [UInt32](scalars: "Y")

    // MARK: exception1

    /// Words stemmed by a list: "skis" → "ski", "skies" → "sky", a few "-ly" words, and words
    /// that are their own stems ("news", "atlas", "bias").
    private static let exceptions = SnowballAmong(
        backward: false,
        [
            ("skis", 1), ("skies", 2), ("idly", 3), ("gently", 4), ("ugly", 5), ("early", 6), ("only", 7),
            ("singly", 8), ("sky", -1), ("news", -1), ("howe", -1), ("atlas", -1), ("cosmos", -1), ("bias", -1),
            ("andes", -1),
        ])
    private static let exceptionStems = ["ski", "sky", "idl", "gentl", "ugli", "earli", "onli", "singl"].map {
        [UInt32](scalars: $0)
    }

    /// `[substring] atlimit among (…)`: true when the whole word is one of the exceptions, its stem
    /// then in `z`.
    private static func exception1(_ z: inout SnowballWord) -> Bool {
        z.bra = z.cursor
        let result = z.findAmong(exceptions)
        guard result != 0 else { return false }
        z.ket = z.cursor
        guard z.cursor >= z.limit else { return false }
        if result > 0, result <= exceptionStems.count { z.sliceFrom(exceptionStems[result - 1]) }
        return true
    }

    // MARK: prelude and regions

    /// Drops a leading apostrophe and marks as Y each y that is a consonant (at the start, or after
    /// a vowel). True when it marked one.
    private static func prelude(_ z: inout SnowballWord) -> Bool {
        var yFound = false
        if z.limit > 0, z.chars[0] == Letter.apostrophe {
            z.bra = 0
            z.ket = 1
            z.sliceDelete()
        }
        z.cursor = 0
        if z.limit > 0, z.chars[0] == Letter.y {
            z.bra = 0
            z.ket = 1
            z.sliceFrom(upperY)
            yFound = true
        }
        z.cursor = 0
        // repeat (goto (v ['y']) <- 'Y'): the scan goes on from the vowel, which is no longer
        // followed by a y.
        var p = 0
        while p + 1 < z.limit {
            if v.contains(z.chars[p]), z.chars[p + 1] == Letter.y {
                z.replaceCharacter(at: p + 1, with: Letter.upperY)
                yFound = true
            }
            p += 1
        }
        return yFound
    }

    /// Prefixes whose R1 starts after them rather than after the first non-vowel after a vowel.
    private static let regionPrefixes = SnowballAmong(
        backward: false,
        [
            ("gener", -1), ("commun", -1), ("arsen", -1), ("past", -1), ("univers", -1), ("later", -1),
            ("emerg", -1), ("organ", -1), ("inter", -1),
        ])

    /// R1 and R2, as positions from the word's start (suffixes change only the end).
    private struct Regions {
        var p1 = 0
        var p2 = 0

        init(z: inout SnowballWord) {
            p1 = z.limit
            p2 = z.limit
            let saved = z.cursor
            defer { z.cursor = saved }
            let start = z.cursor
            if z.findAmong(EnglishStemmer.regionPrefixes) == 0 {
                z.cursor = start
                guard z.goOutGrouping(v) else { return }
                z.cursor += 1
                guard z.goInGrouping(v) else { return }
                z.cursor += 1
            }
            p1 = z.cursor
            guard z.goOutGrouping(v) else { return }
            z.cursor += 1
            guard z.goInGrouping(v) else { return }
            z.cursor += 1
            p2 = z.cursor
        }
    }

    /// A short syllable ends at the cursor: non-vowel (not w, x or Y), vowel, non-vowel; or a
    /// vowel and a non-vowel at the word's start; or "past".
    private static func shortv(_ z: inout SnowballWord) -> Bool {
        let saved = z.limit - z.cursor
        if z.outGroupingBackward(vWXY), z.inGroupingBackward(v), z.outGroupingBackward(v) { return true }
        z.cursor = z.limit - saved
        if z.outGroupingBackward(v), z.inGroupingBackward(v), z.cursor <= z.limitBackward { return true }
        z.cursor = z.limit - saved
        return z.eqBackward(past)
    }

    // MARK: Step 1a

    private static let apostropheSuffixes = SnowballAmong(backward: true, [("'", 1), ("'s'", 1), ("'s", 1)])
    private static let step1aSuffixes = SnowballAmong(
        backward: true, [("sses", 1), ("ied", 2), ("ies", 2), ("s", 3), ("us", -1), ("ss", -1)])

    private static func step1a(_ z: inout SnowballWord) {
        let saved = z.limit - z.cursor
        z.ket = z.cursor
        if z.findAmongBackward(apostropheSuffixes) == 0 {
            z.cursor = z.limit - saved
        } else {
            z.bra = z.cursor
            z.sliceDelete()
        }
        z.ket = z.cursor
        let result = z.findAmongBackward(step1aSuffixes)
        guard result != 0 else { return }
        z.bra = z.cursor
        switch result {
        case 1:
            z.sliceFrom(ss)
        case 2:
            // (hop 2 <- 'i') or <- 'ie': "cries" → "cri", "ties" → "tie".
            z.sliceFrom(z.cursor - 2 >= z.limitBackward ? i : ie)
        case 3:
            // next gopast v delete: a vowel before the letter before the s.
            guard z.cursor > z.limitBackward else { return }
            z.cursor -= 1
            guard z.goOutGroupingBackward(v) else { return }
            z.cursor -= 1
            z.sliceDelete()
        default:
            break
        }
    }

    // MARK: Step 1b

    private static let step1bSuffixes = SnowballAmong(
        backward: true, [("", -1), ("ed", 2), ("eed", 1), ("ing", 3), ("edly", 2), ("eedly", 1), ("ingly", 2)])
    private static let eedExceptions = SnowballAmong(backward: true, [("succ", 1), ("proc", 1), ("exc", 1)])
    private static let ingExceptions = SnowballAmong(
        backward: true, [("even", 2), ("cann", 2), ("inn", 2), ("earr", 2), ("herr", 2), ("out", 2), ("y", 1)])
    private static let step1bEndings = SnowballAmong(
        backward: true,
        [
            ("", 3), ("bb", 2), ("dd", 2), ("ff", 2), ("gg", 2), ("bl", 1), ("mm", 2), ("nn", 2), ("pp", 2),
            ("rr", 2), ("at", 1), ("tt", 2), ("iz", 1),
        ])

    private static func step1b(_ z: inout SnowballWord, _ regions: Regions) {
        z.ket = z.cursor
        let result = z.findAmongBackward(step1bSuffixes)
        z.bra = z.cursor
        let saved = z.limit - z.cursor
        // The cases handled on their own; "ed", "edly", "ingly" and most "ing" words below.
        switch result {
        case 1:
            // "eed", "eedly": "ee" in R1, except "proceed", "exceed", "succeed".
            let before = z.limit - z.cursor
            if regions.p1 <= z.cursor {
                let atEed = z.limit - z.cursor
                let whole = z.findAmongBackward(eedExceptions) != 0 && z.cursor <= z.limitBackward
                if !whole {
                    z.cursor = z.limit - atEed
                    z.sliceFrom(ee)
                }
            }
            z.cursor = z.limit - before
            return
        case 2:
            break
        case 3:
            switch z.findAmongBackward(ingExceptions) {
            case 0:
                break
            case 1:
                // "dying" → "die", "lying" → "lie", "tying" → "tie", "vying" → "vie".
                let atY = z.limit - z.cursor
                if z.outGroupingBackward(v), z.cursor <= z.limitBackward {
                    z.cursor = z.limit - atY
                    z.bra = z.cursor
                    z.sliceFrom(ie)
                    return
                }
            default:
                // "inning", "outing", "canning", "herring", "earring", "evening" stay.
                if z.cursor <= z.limitBackward { return }
            }
        default:
            return
        }
        z.cursor = z.limit - saved
        // test gopast v delete: the part before the suffix has a vowel.
        let atSuffix = z.limit - z.cursor
        guard z.goOutGroupingBackward(v) else { return }
        z.cursor = z.limit - atSuffix
        z.sliceDelete()
        z.ket = z.cursor
        z.bra = z.cursor
        let atEnd = z.limit - z.cursor
        switch z.findAmongBackward(step1bEndings) {
        case 1:
            // "at", "bl", "iz" take an e: "luxuriat" → "luxuriate".
            z.sliceFrom(e)
            return
        case 2:
            // A double letter loses one, except after a, e or o alone: "hopped" → "hop", "added".
            let atDouble = z.limit - z.cursor
            if z.inGroupingBackward(aeo), z.cursor <= z.limitBackward { return }
            z.cursor = z.limit - atDouble
        default:
            // A short word takes an e: "hoped" → "hope".
            guard z.cursor == regions.p1 else { return }
            let beforeShort = z.limit - z.cursor
            guard shortv(&z) else { return }
            z.cursor = z.limit - beforeShort
            z.sliceFrom(e)
            return
        }
        z.cursor = z.limit - atEnd
        z.ket = z.cursor
        guard z.cursor > z.limitBackward else { return }
        z.cursor -= 1
        z.bra = z.cursor
        z.sliceDelete()
    }

    // MARK: Step 1c

    /// A final y or Y after a non-vowel that is not the first letter becomes i: "cry" → "cri".
    private static func step1c(_ z: inout SnowballWord) {
        z.ket = z.cursor
        guard z.eqBackward(Letter.y) || z.eqBackward(Letter.upperY) else { return }
        z.bra = z.cursor
        guard z.outGroupingBackward(v), z.cursor > z.limitBackward else { return }
        z.sliceFrom(i)
    }

    // MARK: Steps 2 to 5

    private static let step2Suffixes = SnowballAmong(
        backward: true,
        [
            ("anci", 3), ("enci", 2), ("ogi", 14), ("li", 16), ("bli", 12), ("abli", 4), ("alli", 8), ("fulli", 9),
            ("lessli", 15), ("ousli", 10), ("entli", 5), ("aliti", 8), ("biliti", 12), ("iviti", 11), ("tional", 1),
            ("ational", 7), ("alism", 8), ("ation", 7), ("ization", 6), ("izer", 6), ("ator", 7), ("iveness", 11),
            ("fulness", 9), ("ousness", 10), ("ogist", 13),
        ])
    /// What results 1 to 15 of `step2Suffixes` are replaced with.
    private static let step2Replacements = [
        "tion", "ence", "ance", "able", "ent", "ize", "ate", "al", "ful", "ous", "ive", "ble", "og", "og", "less",
    ].map { [UInt32](scalars: $0) }

    private static func step2(_ z: inout SnowballWord, _ regions: Regions) {
        z.ket = z.cursor
        let result = z.findAmongBackward(step2Suffixes)
        guard result != 0 else { return }
        z.bra = z.cursor
        guard regions.p1 <= z.cursor else { return }
        switch result {
        case 14:
            // "ogi" after l: "geologi" → "geolog".
            guard z.eqBackward(Letter.l) else { return }
            z.sliceFrom(og)
        case 16:
            // "li" after a valid li-ending: "lovingli" → "loving".
            guard z.inGroupingBackward(validLI) else { return }
            z.sliceDelete()
        default:
            guard result >= 1, result <= step2Replacements.count else { return }
            z.sliceFrom(step2Replacements[result - 1])
        }
    }

    private static let og = [UInt32](scalars: "og")

    private static let step3Suffixes = SnowballAmong(
        backward: true,
        [
            ("icate", 4), ("ative", 6), ("alize", 3), ("iciti", 4), ("ical", 4), ("tional", 1), ("ational", 2),
            ("ful", 5), ("ness", 5),
        ])
    private static let tion = [UInt32](scalars: "tion")
    private static let ate = [UInt32](scalars: "ate")
    private static let al = [UInt32](scalars: "al")
    private static let ic = [UInt32](scalars: "ic")

    private static func step3(_ z: inout SnowballWord, _ regions: Regions) {
        z.ket = z.cursor
        let result = z.findAmongBackward(step3Suffixes)
        guard result != 0 else { return }
        z.bra = z.cursor
        guard regions.p1 <= z.cursor else { return }
        switch result {
        case 1: z.sliceFrom(tion)
        case 2: z.sliceFrom(ate)
        case 3: z.sliceFrom(al)
        case 4: z.sliceFrom(ic)
        case 5: z.sliceDelete()
        default:
            // "ative" in R2 alone.
            guard regions.p2 <= z.cursor else { return }
            z.sliceDelete()
        }
    }

    private static let step4Suffixes = SnowballAmong(
        backward: true,
        [
            ("ic", 1), ("ance", 1), ("ence", 1), ("able", 1), ("ible", 1), ("ate", 1), ("ive", 1), ("ize", 1),
            ("iti", 1), ("al", 1), ("ism", 1), ("ion", 2), ("er", 1), ("ous", 1), ("ant", 1), ("ent", 1),
            ("ment", 1), ("ement", 1),
        ])

    private static func step4(_ z: inout SnowballWord, _ regions: Regions) {
        z.ket = z.cursor
        let result = z.findAmongBackward(step4Suffixes)
        guard result != 0 else { return }
        z.bra = z.cursor
        guard regions.p2 <= z.cursor else { return }
        if result == 2 {
            // "ion" after s or t.
            guard z.eqBackward(Letter.s) || z.eqBackward(Letter.t) else { return }
        }
        z.sliceDelete()
    }

    private static let step5Suffixes = SnowballAmong(backward: true, [("e", 1), ("l", 2)])

    private static func step5(_ z: inout SnowballWord, _ regions: Regions) {
        z.ket = z.cursor
        let result = z.findAmongBackward(step5Suffixes)
        guard result != 0 else { return }
        z.bra = z.cursor
        if result == 1 {
            // e in R2, or in R1 after no short syllable.
            if !(regions.p2 <= z.cursor) {
                guard regions.p1 <= z.cursor else { return }
                let saved = z.limit - z.cursor
                if shortv(&z) { return }
                z.cursor = z.limit - saved
            }
        } else {
            // l in R2 after another l.
            guard regions.p2 <= z.cursor, z.eqBackward(Letter.l) else { return }
        }
        z.sliceDelete()
    }
}
