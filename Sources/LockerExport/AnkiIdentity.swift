import Crypto
import Foundation

/// The names an Anki package gives its notes, decks and note types, derived from Locker's UUIDs
/// and fixed names: every export of the same content names the same things, so Anki's importer
/// (which matches notes by GUID and note types by ID) updates what an earlier export brought in.
enum AnkiIdentity {
    /// A note's GUID: Anki's base91 of the first 8 bytes (big-endian) of the SHA-256 of
    /// `<collection>/<card uuid>/<locale>`, for the card the note is made from (a reversible
    /// card's forward one). A card's uuid is the same in every vault that has its deck and card
    /// IDs (every vault `locker init` makes has `knots/bowline`): the collection's title keeps
    /// one vault's notes from updating another's.
    static func guid(collection: String, cardUUID: String, locale: String) -> String {
        base91(hash64(collection + "/" + cardUUID + "/" + locale))
    }

    /// An ID for a deck, note type, field or template: the first 52 bits of the SHA-256 of
    /// `locker/anki/<name>`, below 2^53 so that Anki's JavaScript reads it exactly.
    static func id(_ name: String) -> Int {
        Int(hash64("locker/anki/" + name) >> 12)
    }

    /// The ID of a deck of the bundle in one locale, in a collection.
    static func deckID(collection: String, uuid: String, locale: String) -> Int {
        id("deck/\(collection)/\(uuid)/\(locale)")
    }

    /// The first 8 bytes of the SHA-256 of `text`, big-endian.
    static func hash64(_ text: String) -> UInt64 {
        SHA256.hash(data: Data(text.utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Anki's base91 (`anki.utils.base91`): letters, digits, then these 29 signs, most
    /// significant digit first.
    private static let base91Digits = Array(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~")

    static func base91(_ number: UInt64) -> String {
        var number = number
        var digits: [Character] = []
        repeat {
            digits.append(base91Digits[Int(number % 91)])
            number /= 91
        } while number > 0
        return String(digits.reversed())
    }
}
