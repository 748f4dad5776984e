import Testing

@testable import LockerCore

@Suite struct YAMLReaderTests {
    /// Plain scalars get YAML's types; quoted ones and everything else are text.
    @Test(arguments: [
        ("12", YAMLValue.ScalarType.int), ("-3", .int), ("+7", .int), ("0x1F", .int), ("0o17", .int), ("1_000", .int),
        ("1.5", .float), ("-0.5", .float), (".inf", .float), (".NaN", .float), ("1e+3", .float),
        ("true", .bool), ("False", .bool), ("no", .bool), ("YES", .bool), ("on", .bool), ("off", .bool),
        ("~", .null), ("null", .null), ("NULL", .null),
        ("Note 1234", .string), ("yes please", .string), ("2024-01-01", .string), ("nothing", .string),
        ("offshore", .string), ("12 knots", .string), ("\"12\"", .string), ("'true'", .string), ("Якорь", .string),
    ])
    func plainScalarsAreTyped(_ text: String, _ type: YAMLValue.ScalarType) throws {
        let value = try YAMLReader(file: "note.md").read("key: \(text)\n").get()
        guard case .mapping(let entries, _)? = value, case .scalar(_, let found, _) = entries.first?.value else {
            Issue.record("not a mapping of one scalar: \(String(describing: value))")
            return
        }
        #expect(found == type, "\(text)")
    }

    @Test func anEmptyValueIsNull() throws {
        let value = try YAMLReader(file: "note.md").read("key:\n").get()
        guard case .mapping(let entries, _)? = value, case .scalar(_, let found, _) = entries.first?.value else {
            Issue.record("not a mapping of one scalar")
            return
        }
        #expect(found == .null)
    }

    /// The types decided without Yams' regular expressions are the ones they give.
    @Test func plainScalarTypesAreWhatYamsResolves() {
        var samples = [
            "", "0", "00", "007", "08", "1", "12", "9999", "1_000", "-3", "+7", "0x1F", "0b101", "1:30", "1.5", ".5",
            "1e3", "1e+3", "2024-01-01", "yes", "Yes", "YES", "yEs", "no", "No", "nO", "true", "True", "TRUE", "tRUE",
            "false", "on", "On", "oN", "off", "OFF", "null", "Null", "nULL", "nulls", "y", "n", "Y", "knots",
            "Guide 9999",
            "note", "document", "~", "<<", "=", ".inf", ".NaN", "Да", "нет", "ON!", "z9", "Z", "a", "_x", "@x", "12a",
        ]
        samples += (0..<200).map { String($0 * 37) }
        for text in samples {
            #expect(YAMLReader.plainScalarType(text) == YAMLReader.resolvedType(text), "\(text)")
        }
    }

    /// An explicit tag decides a scalar's type, not its look.
    @Test func explicitTagsDecideTheType() throws {
        let value = try YAMLReader(file: "n.md").read(
            "a: !!str 0042\nb: !!str yes\nc: ! 12\nd: 0042\ne: yes\nf: !!int 12\ng: !!float 1\nh: !!bool yes\n"
                + "i: !!null ~\nj: !!timestamp 2026-11-25\nk: !local 3\n"
        ).get()
        guard case .mapping(let entries, _)? = value else {
            Issue.record("not a mapping: \(String(describing: value))")
            return
        }
        let types = entries.map { entry -> YAMLValue.ScalarType? in
            if case .scalar(_, let type, _) = entry.value { return type }
            return nil
        }
        #expect(types == [.string, .string, .string, .int, .bool, .int, .float, .bool, .null, .string, .string])
    }
}
