/// The Snowball Russian stemmer, for full-text search: «якорь», «якоря» and «якорем» all give
/// «якор».
///
/// A port of `russian.sbl` as Snowball 3.1.1 defines it (https://snowballstem.org/algorithms/russian/stemmer.html),
/// routine by routine as Snowball's generated code runs it: ё is read as е first (as Snowball
/// has done itself since 2.1), then within RV the perfective gerund, or the reflexive and the
/// adjectival, verb or noun ending, a final и, the derivational -ость in R2, and the superlative
/// -ейш(е), a double н or a soft sign are removed. Tests check it against Snowball's own stemmer
/// on the vault's words and on generated ones.
package enum RussianStemmer {
    /// The stem of one lowercased word. Any string is taken: a word with no Russian vowel, or in
    /// another script, comes back as it is (its ё, if any, as е).
    package static func stem(_ word: String) -> String {
        var z = SnowballWord(word)
        // do repeat ( goto (['ё']) <- 'е' )
        for i in 0..<z.limit where z.chars[i] == Letter.yo { z.replaceCharacter(at: i, with: Letter.ye) }

        let regions = Regions(z: &z)
        // backwards setlimit tomark pV for (…): every ending lies within RV.
        z.cursor = z.limit
        guard z.cursor >= regions.pV else { return z.string(original: word) }
        z.limitBackward = regions.pV

        let start = z.limit - z.cursor
        if !perfectiveGerund(&z) {
            z.cursor = z.limit - start
            let beforeReflexive = z.limit - z.cursor
            if !reflexive(&z) { z.cursor = z.limit - beforeReflexive }
            let beforeEnding = z.limit - z.cursor
            if !adjectival(&z) {
                z.cursor = z.limit - beforeEnding
                if !verb(&z) {
                    z.cursor = z.limit - beforeEnding
                    _ = noun(&z)
                }
            }
        }
        z.cursor = z.limit - start

        // try ([ 'и' ] delete)
        z.ket = z.cursor
        if z.eqBackward(Letter.i) {
            z.bra = z.cursor
            z.sliceDelete()
        }
        let beforeDerivational = z.limit - z.cursor
        derivational(&z, regions)
        z.cursor = z.limit - beforeDerivational
        tidyUp(&z)
        return z.string(original: word)
    }

    private enum Letter {
        static let a = UInt32(0x430)  // а
        static let ye = UInt32(0x435)  // е
        static let i = UInt32(0x438)  // и
        static let n = UInt32(0x43D)  // н
        static let ya = UInt32(0x44F)  // я
        static let yo = UInt32(0x451)  // ё
    }

    /// а е и о у ы э ю я
    private static let v = SnowballGrouping("аеиоуыэюя")

    /// RV (from pV) and R2 (from p2), as positions from the word's start.
    private struct Regions {
        var pV: Int
        var p2: Int

        init(z: inout SnowballWord) {
            pV = z.limit
            p2 = z.limit
            let saved = z.cursor
            defer { z.cursor = saved }
            guard z.goOutGrouping(v) else { return }
            z.cursor += 1
            pV = z.cursor
            guard z.goInGrouping(v) else { return }
            z.cursor += 1
            guard z.goOutGrouping(v) else { return }
            z.cursor += 1
            guard z.goInGrouping(v) else { return }
            z.cursor += 1
            p2 = z.cursor
        }
    }

    /// `'а' or 'я'` before the cursor.
    private static func afterAOrYa(_ z: inout SnowballWord) -> Bool {
        z.eqBackward(Letter.a) || z.eqBackward(Letter.ya)
    }

    private static let perfectiveGerundEndings = SnowballAmong(
        backward: true,
        [
            ("в", 1), ("вши", 1), ("вшись", 1), ("ив", 2), ("ивши", 2), ("ившись", 2), ("ыв", 2), ("ывши", 2),
            ("ывшись", 2),
        ])

    private static func perfectiveGerund(_ z: inout SnowballWord) -> Bool {
        z.ket = z.cursor
        let result = z.findAmongBackward(perfectiveGerundEndings)
        guard result != 0 else { return false }
        z.bra = z.cursor
        if result == 1 {
            guard afterAOrYa(&z) else { return false }
        }
        z.sliceDelete()
        return true
    }

    private static let adjectiveEndings = SnowballAmong(
        backward: true,
        [
            "ее", "ие", "ые", "ое", "ими", "ыми", "ей", "ий", "ый", "ой", "ем", "им", "ым", "ом", "его", "ого", "ему",
            "ому", "их", "ых", "ую", "юю", "ая", "яя", "ою", "ею",
        ].map { ($0, 1) })

    private static func adjective(_ z: inout SnowballWord) -> Bool {
        z.ket = z.cursor
        guard z.findAmongBackward(adjectiveEndings) != 0 else { return false }
        z.bra = z.cursor
        z.sliceDelete()
        return true
    }

    private static let participleEndings = SnowballAmong(
        backward: true,
        [("ем", 1), ("нн", 1), ("вш", 1), ("ющ", 1), ("щ", 1), ("ивш", 2), ("ывш", 2), ("ующ", 2)])

    /// An adjective ending, and then, if there is one, a participle's.
    private static func adjectival(_ z: inout SnowballWord) -> Bool {
        guard adjective(&z) else { return false }
        let saved = z.limit - z.cursor
        z.ket = z.cursor
        let result = z.findAmongBackward(participleEndings)
        guard result != 0 else {
            z.cursor = z.limit - saved
            return true
        }
        z.bra = z.cursor
        if result == 1, !afterAOrYa(&z) {
            z.cursor = z.limit - saved
            return true
        }
        z.sliceDelete()
        return true
    }

    private static let reflexiveEndings = SnowballAmong(backward: true, [("ся", 1), ("сь", 1)])

    private static func reflexive(_ z: inout SnowballWord) -> Bool {
        z.ket = z.cursor
        guard z.findAmongBackward(reflexiveEndings) != 0 else { return false }
        z.bra = z.cursor
        z.sliceDelete()
        return true
    }

    private static let verbEndings = SnowballAmong(
        backward: true,
        [
            "ла", "на", "ете", "йте", "ли", "й", "л", "ем", "н", "ло", "но", "ет", "ют", "ны", "ть", "ешь", "нно",
        ].map { ($0, 1) }
            + [
                "ила", "ыла", "ена", "ейте", "уйте", "ите", "или", "ыли", "ей", "уй", "ил", "ыл", "им", "ым", "ен",
                "ило", "ыло", "ено", "ят", "ует", "уют", "ит", "ыт", "ены", "ить", "ыть", "ишь", "ую", "ю",
            ].map { ($0, 2) })

    private static func verb(_ z: inout SnowballWord) -> Bool {
        z.ket = z.cursor
        let result = z.findAmongBackward(verbEndings)
        guard result != 0 else { return false }
        z.bra = z.cursor
        if result == 1 {
            guard afterAOrYa(&z) else { return false }
        }
        z.sliceDelete()
        return true
    }

    private static let nounEndings = SnowballAmong(
        backward: true,
        [
            "а", "ев", "ов", "ие", "ье", "е", "иями", "ями", "ами", "еи", "ии", "и", "ией", "ей", "ой", "ий", "й",
            "иям", "ям", "ием", "ем", "ам", "ом", "о", "у", "ах", "иях", "ях", "ы", "ь", "ию", "ью", "ю", "ия", "ья",
            "я",
        ].map { ($0, 1) })

    private static func noun(_ z: inout SnowballWord) -> Bool {
        z.ket = z.cursor
        guard z.findAmongBackward(nounEndings) != 0 else { return false }
        z.bra = z.cursor
        z.sliceDelete()
        return true
    }

    private static let derivationalEndings = SnowballAmong(backward: true, [("ост", 1), ("ость", 1)])

    /// -ост, -ость in R2.
    private static func derivational(_ z: inout SnowballWord, _ regions: Regions) {
        z.ket = z.cursor
        guard z.findAmongBackward(derivationalEndings) != 0 else { return }
        z.bra = z.cursor
        guard regions.p2 <= z.cursor else { return }
        z.sliceDelete()
    }

    private static let tidyUpEndings = SnowballAmong(
        backward: true, [("ейш", 1), ("ейше", 1), ("н", 2), ("ь", 3)])

    /// The superlative -ейш(е) (then нн as н), нн as н, or a final soft sign.
    private static func tidyUp(_ z: inout SnowballWord) {
        z.ket = z.cursor
        let result = z.findAmongBackward(tidyUpEndings)
        guard result != 0 else { return }
        z.bra = z.cursor
        switch result {
        case 1:
            z.sliceDelete()
            z.ket = z.cursor
            guard z.eqBackward(Letter.n) else { return }
            z.bra = z.cursor
            guard z.eqBackward(Letter.n) else { return }
            z.sliceDelete()
        case 2:
            guard z.eqBackward(Letter.n) else { return }
            z.sliceDelete()
        default:
            z.sliceDelete()
        }
    }
}
