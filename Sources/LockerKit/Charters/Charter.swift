import Foundation

/// A charter trip: the yacht a crew takes over for some days, and what its checklists are run for.
public struct Charter: Sendable, Hashable, Codable, Identifiable {
    public var id: UUID
    public var name: String
    /// The first day of the charter.
    public var startDate: LocalDay
    /// The last day; `nil` while unknown, when the charter covers its start day only.
    public var endDate: LocalDay?
    public var location: String?
    public var yachtName: String?
    public var charterCompany: String?
    public var notes: String?
    public var createdAt: Date
    /// When it was archived; an archived charter is kept, but is never active.
    public var archivedAt: Date?

    public init(
        id: UUID, name: String, startDate: LocalDay, endDate: LocalDay?, location: String?, yachtName: String?,
        charterCompany: String?, notes: String?, createdAt: Date, archivedAt: Date?
    ) {
        self.id = id
        self.name = name
        self.startDate = startDate
        self.endDate = endDate
        self.location = location
        self.yachtName = yachtName
        self.charterCompany = charterCompany
        self.notes = notes
        self.createdAt = createdAt
        self.archivedAt = archivedAt
    }

    /// The last day the charter covers: its end date, else its start date.
    public var lastDay: LocalDay { endDate ?? startDate }

    /// Whether `day` is within the charter's dates.
    public func includes(_ day: LocalDay) -> Bool { startDate <= day && day <= lastDay }

    /// Whether the charter is archived.
    public var isArchived: Bool { archivedAt != nil }

    /// The active charter on `day`: of the charters not archived whose dates include it, the one
    /// that starts first (then the one created first, then by ID, so the choice is stable).
    public static func active(among charters: [Charter], on day: LocalDay) -> Charter? {
        charters.filter { !$0.isArchived && $0.includes(day) }.min {
            ($0.startDate, $0.createdAt, $0.id.uuidString) < ($1.startDate, $1.createdAt, $1.id.uuidString)
        }
    }

    /// The charter's editable fields.
    public var draft: CharterDraft {
        CharterDraft(
            name: name, startDate: startDate, endDate: endDate, location: location, yachtName: yachtName,
            charterCompany: charterCompany, notes: notes)
    }
}

/// The fields a person fills in to create or edit a charter, before validation.
public struct CharterDraft: Sendable, Hashable, Codable {
    public var name: String
    public var startDate: LocalDay?
    public var endDate: LocalDay?
    public var location: String?
    public var yachtName: String?
    public var charterCompany: String?
    public var notes: String?

    public init(
        name: String, startDate: LocalDay?, endDate: LocalDay? = nil, location: String? = nil,
        yachtName: String? = nil, charterCompany: String? = nil, notes: String? = nil
    ) {
        self.name = name
        self.startDate = startDate
        self.endDate = endDate
        self.location = location
        self.yachtName = yachtName
        self.charterCompany = charterCompany
        self.notes = notes
    }

    /// The longest name, location, yacht or company accepted, in characters.
    public static let maximumFieldLength = 200
    /// The longest notes accepted, in characters.
    public static let maximumNotesLength = 10_000

    /// Every problem with the draft; empty when it can be saved.
    public var problems: [CharterValidationError] {
        var problems: [CharterValidationError] = []
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if name.isEmpty { problems.append(.init(field: .name, message: "a name is required")) }
        if startDate == nil { problems.append(.init(field: .startDate, message: "a start date is required")) }
        if let start = startDate, let end = endDate, end < start {
            problems.append(.init(field: .endDate, message: "the end date \(end) is before the start date \(start)"))
        }
        let limited: [(CharterValidationError.Field, String?, Int)] = [
            (.name, name, Self.maximumFieldLength), (.location, location, Self.maximumFieldLength),
            (.yachtName, yachtName, Self.maximumFieldLength),
            (.charterCompany, charterCompany, Self.maximumFieldLength),
            (.notes, notes, Self.maximumNotesLength),
        ]
        // Measured as saved: trimmed.
        for (field, value, limit) in limited
        where (value?.trimmingCharacters(in: .whitespacesAndNewlines).count ?? 0) > limit {
            problems.append(.init(field: field, message: "longer than \(limit) characters"))
        }
        return problems
    }

    /// The charter this draft describes, or the problems that keep it from being one.
    ///
    /// Text fields are trimmed; empty optional fields become `nil`.
    public func validated(id: UUID, createdAt: Date, archivedAt: Date? = nil) throws(CharterValidationErrors) -> Charter
    {
        let problems = problems
        guard problems.isEmpty, let startDate else { throw CharterValidationErrors(problems: problems) }
        func clean(_ text: String?) -> String? {
            guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        return Charter(
            id: id, name: name.trimmingCharacters(in: .whitespacesAndNewlines), startDate: startDate, endDate: endDate,
            location: clean(location), yachtName: clean(yachtName), charterCompany: clean(charterCompany),
            notes: clean(notes), createdAt: createdAt, archivedAt: archivedAt)
    }
}

/// One problem with a charter's field.
public struct CharterValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A field of a charter.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case name, startDate, endDate, location, yachtName, charterCompany, notes
    }

    public var field: Field
    public var message: String

    public init(field: Field, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field.rawValue): \(message)" }
}

/// Every problem that keeps a charter from being saved.
public struct CharterValidationErrors: Error, Sendable, Hashable, CustomStringConvertible {
    public var problems: [CharterValidationError]

    public init(problems: [CharterValidationError]) { self.problems = problems }

    /// The fields with problems, in the order found.
    public var fields: [CharterValidationError.Field] { problems.map(\.field) }

    public var description: String { problems.map(\.description).joined(separator: "; ") }
}
