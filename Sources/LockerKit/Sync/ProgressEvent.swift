import Foundation

/// One change to a sailor's progress as it travels between devices: what
/// ``ProgressStore/events(since:)`` gives and ``ProgressStore/merge(_:)`` takes.
///
/// Its JSON is flat: `{"id", "timeMs", "type", …}` with the fields of the type, so an app can
/// carry events over CloudKit, a file or any transport. Fields a reader does not know are
/// ignored; a type it does not know does not decode.
public struct ProgressEvent: Sendable, Hashable, Codable {
    /// The event's ID: the same event merged twice counts once.
    public var id: UUID
    /// When it happened, to the millisecond.
    public var time: Date
    public var change: Change

    /// What an event changed.
    public enum Change: Sendable, Hashable {
        /// A card answered with `grade`, counting for `day`.
        case review(cardKey: String, deckID: String, cardID: String, grade: Grade, day: LocalDay)
        /// The review `review` taken back.
        case undo(review: UUID, cardKey: String, deckID: String, cardID: String, grade: Grade, day: LocalDay)
        /// A checklist item's state, its note, or both.
        case item(ItemChange)
        /// A charter made, edited, archived, brought back or deleted.
        case charter(id: UUID, action: CharterAction)
    }

    /// A change of one item of a charter's checklist run.
    public struct ItemChange: Sendable, Hashable {
        public var charterID: UUID
        public var checklistID: String
        public var itemID: String
        /// The state set; `nil` when the event set only the note.
        public var state: ItemState?
        /// Whether the event set the note (to `note`; `nil` removes it).
        public var setsNote: Bool
        public var note: String?

        public init(
            charterID: UUID, checklistID: String, itemID: String, state: ItemState?, setsNote: Bool, note: String?
        ) {
            self.charterID = charterID
            self.checklistID = checklistID
            self.itemID = itemID
            self.state = state
            self.setsNote = setsNote
            self.note = setsNote ? note : nil
        }
    }

    /// What happened to a charter.
    public enum CharterAction: Sendable, Hashable {
        case create(CharterDraft)
        /// Its editable fields replaced, all together.
        case update(CharterDraft)
        case archive
        case unarchive
        case delete

        var name: String {
            switch self {
            case .create: "create"
            case .update: "update"
            case .archive: "archive"
            case .unarchive: "unarchive"
            case .delete: "delete"
            }
        }

        var draft: CharterDraft? {
            switch self {
            case .create(let draft), .update(let draft): draft
            case .archive, .unarchive, .delete: nil
            }
        }

        init?(name: String, draft: CharterDraft?) {
            switch (name, draft) {
            case ("create", let draft?): self = .create(draft)
            case ("update", let draft?): self = .update(draft)
            case ("archive", nil): self = .archive
            case ("unarchive", nil): self = .unarchive
            case ("delete", nil): self = .delete
            default: return nil
            }
        }
    }

    public init(id: UUID, time: Date, change: Change) {
        self.id = id
        self.time = Milliseconds.rounded(time)
        self.change = change
    }

    // MARK: - Coding

    private enum Key: String, CodingKey {
        case id, timeMs, type, cardKey, deckID, cardID, grade, day, undoes
        case charterID, checklistID, itemID, state, setsNote, note, action, charter
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        id = try container.decode(UUID.self, forKey: .id)
        time = Milliseconds.date(try container.decode(Int64.self, forKey: .timeMs))
        let type = try container.decode(String.self, forKey: .type)
        func grade() throws -> Grade {
            let name = try container.decode(String.self, forKey: .grade)
            guard let grade = Grade(name: name) else {
                throw DecodingError.dataCorruptedError(forKey: .grade, in: container, debugDescription: "not a grade")
            }
            return grade
        }
        switch type {
        case "review":
            change = .review(
                cardKey: try container.decode(String.self, forKey: .cardKey),
                deckID: try container.decode(String.self, forKey: .deckID),
                cardID: try container.decode(String.self, forKey: .cardID), grade: try grade(),
                day: try container.decode(LocalDay.self, forKey: .day))
        case "undo":
            change = .undo(
                review: try container.decode(UUID.self, forKey: .undoes),
                cardKey: try container.decode(String.self, forKey: .cardKey),
                deckID: try container.decode(String.self, forKey: .deckID),
                cardID: try container.decode(String.self, forKey: .cardID), grade: try grade(),
                day: try container.decode(LocalDay.self, forKey: .day))
        case "item":
            change = .item(
                ItemChange(
                    charterID: try container.decode(UUID.self, forKey: .charterID),
                    checklistID: try container.decode(String.self, forKey: .checklistID),
                    itemID: try container.decode(String.self, forKey: .itemID),
                    state: try container.decodeIfPresent(ItemState.self, forKey: .state),
                    setsNote: try container.decode(Bool.self, forKey: .setsNote),
                    note: try container.decodeIfPresent(String.self, forKey: .note)))
        case "charter":
            let name = try container.decode(String.self, forKey: .action)
            guard
                let action = CharterAction(
                    name: name, draft: try container.decodeIfPresent(CharterDraft.self, forKey: .charter))
            else {
                throw DecodingError.dataCorruptedError(
                    forKey: .action, in: container, debugDescription: "not a charter action with its fields")
            }
            change = .charter(id: try container.decode(UUID.self, forKey: .charterID), action: action)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown event type \(type)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: .id)
        try container.encode(Milliseconds.of(time), forKey: .timeMs)
        switch change {
        case .review(let cardKey, let deckID, let cardID, let grade, let day),
            .undo(_, let cardKey, let deckID, let cardID, let grade, let day):
            if case .undo(let review, _, _, _, _, _) = change {
                try container.encode("undo", forKey: .type)
                try container.encode(review, forKey: .undoes)
            } else {
                try container.encode("review", forKey: .type)
            }
            try container.encode(cardKey, forKey: .cardKey)
            try container.encode(deckID, forKey: .deckID)
            try container.encode(cardID, forKey: .cardID)
            try container.encode(grade.name, forKey: .grade)
            try container.encode(day, forKey: .day)
        case .item(let item):
            try container.encode("item", forKey: .type)
            try container.encode(item.charterID, forKey: .charterID)
            try container.encode(item.checklistID, forKey: .checklistID)
            try container.encode(item.itemID, forKey: .itemID)
            try container.encodeIfPresent(item.state, forKey: .state)
            try container.encode(item.setsNote, forKey: .setsNote)
            try container.encodeIfPresent(item.note, forKey: .note)
        case .charter(let charterID, let action):
            try container.encode("charter", forKey: .type)
            try container.encode(charterID, forKey: .charterID)
            try container.encode(action.name, forKey: .action)
            try container.encodeIfPresent(action.draft, forKey: .charter)
        }
    }
}

/// Where a reading of a store's events ended: pass it to ``ProgressStore/events(since:)`` to get
/// only what came after, including events merged from other devices since.
///
/// It counts this store's own log positions, so keep one per store (and per peer you send to).
public struct ProgressCursor: Sendable, Hashable, Codable {
    var reviews: Int64
    var items: Int64
    var charters: Int64

    /// Before every event.
    public static let start = ProgressCursor(reviews: 0, items: 0, charters: 0)
}

/// What ``ProgressStore/merge(_:)`` did.
public struct MergeReport: Sendable, Hashable {
    /// Events the store did not have, now in it.
    public var added: Int
    /// Events it had already: merged before, or its own.
    public var known: Int

    public init(added: Int = 0, known: Int = 0) {
        self.added = added
        self.known = known
    }
}
