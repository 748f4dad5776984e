import Foundation
import LockerKit

/// A value of a page's context, by the kinds ``PageContext`` puts there.
///
/// The kind is told by the value's exact type before any cast: a cast that fails (a list taken
/// for a `Bool`) tries Foundation's bridging first, which costs far more than the cast itself.
/// A value of another type is nil: whoever looks at it falls back to rendering the page as it is.
enum TemplateValue {
    case text(String)
    case flag(Bool)
    case number(Int)
    /// A locale's words: the same for every page in the locale.
    case strings(TemplateStrings)
    case object([String: Any])
    case objects([[String: Any]])
    case list([Any])
    case texts([String])

    init?(_ value: Any) {
        let type = ObjectIdentifier(Swift.type(of: value))
        if type == Types.string, let text = value as? String {
            self = .text(text)
        } else if type == Types.bool, let flag = value as? Bool {
            self = .flag(flag)
        } else if type == Types.int, let number = value as? Int {
            self = .number(number)
        } else if type == Types.strings, let strings = value as? TemplateStrings {
            self = .strings(strings)
        } else if type == Types.object, let object = value as? [String: Any] {
            self = .object(object)
        } else if type == Types.objects, let objects = value as? [[String: Any]] {
            self = .objects(objects)
        } else if type == Types.list, let list = value as? [Any] {
            self = .list(list)
        } else if type == Types.texts, let texts = value as? [String] {
            self = .texts(texts)
        } else {
            return nil
        }
    }

    /// The types, by identity.
    private enum Types {
        static let string = ObjectIdentifier(String.self)
        static let bool = ObjectIdentifier(Bool.self)
        static let int = ObjectIdentifier(Int.self)
        static let strings = ObjectIdentifier(TemplateStrings.self)
        static let object = ObjectIdentifier([String: Any].self)
        static let objects = ObjectIdentifier([[String: Any]].self)
        static let list = ObjectIdentifier([Any].self)
        static let texts = ObjectIdentifier([String].self)
    }

    /// An object's names in one order for every process: its dictionary's own order is not.
    static func names(of object: [String: Any]) -> [String] {
        object.keys.sorted { $0.utf8Precedes($1) }
    }
}
