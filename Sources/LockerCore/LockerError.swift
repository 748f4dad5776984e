/// A failure of the tool itself (I/O, arguments), as opposed to a problem in the content.
public enum LockerError: Error, Sendable, CustomStringConvertible {
    /// Reading or writing files failed.
    case io(String)
    /// The request cannot be carried out as given.
    case usage(String)

    public var description: String {
        switch self {
        case .io(let message), .usage(let message): message
        }
    }
}
