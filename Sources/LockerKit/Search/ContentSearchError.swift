/// Why a ``ContentSearch`` could not open, index or search.
public enum ContentSearchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The index file could not be opened or made.
    case cannotOpen(path: String, reason: String)
    /// SQLite failed.
    case database(reason: String)
    /// A document of the bundle did not decode.
    case unreadable(BundleError)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the search index \(path): \(reason)"
        case .database(let reason): "search index: \(reason)"
        case .unreadable(let error): error.description
        }
    }
}
