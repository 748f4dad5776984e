/// Why the progress database cannot be used.
public enum ProgressStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be opened or is not a SQLite database.
    case cannotOpen(path: String, reason: String)
    /// The database was written by a newer version of the library, with migrations this one does not know.
    case newerSchema(path: String)
    /// SQLite reported an error while reading or writing.
    case database(reason: String)
    /// A stored value is not what the schema allows: the file was edited or damaged.
    case corrupt(reason: String)
    /// No charter with this ID.
    case noCharter(id: String)
    /// Scheduling settings out of range, each problem named.
    case invalidScheduling(problems: [String])
    /// An event given to ``ProgressStore/merge(_:)`` that cannot be right: nothing was merged.
    case invalidEvent(id: String, reason: String)
    /// A checklist item's note longer than ``CharterDraft/maximumNotesLength`` characters: other
    /// devices would refuse it.
    case noteTooLong(limit: Int)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "\(path): cannot open the progress database: \(reason)"
        case .newerSchema(let path): "\(path): written by a newer version of Locker; update it to open this file"
        case .database(let reason): "progress database: \(reason)"
        case .corrupt(let reason): "progress database: damaged: \(reason)"
        case .noCharter(let id): "no charter with ID \(id)"
        case .invalidScheduling(let problems): "scheduling: " + problems.joined(separator: "; ")
        case .invalidEvent(let id, let reason): "event \(id): \(reason); nothing was merged"
        case .noteTooLong(let limit): "a note is longer than \(limit) characters"
        }
    }
}
