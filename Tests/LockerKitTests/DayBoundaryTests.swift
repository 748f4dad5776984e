import Foundation
import LockerKit
import Testing

@Suite struct DayBoundaryTests {
    /// An instant written with its UTC offset, so the test does not depend on the time-zone
    /// database it is checking the library against.
    static func instant(_ text: String) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return try #require(formatter.date(from: text), "not an ISO 8601 time: \(text)")
    }

    static func zone(_ identifier: String) throws -> TimeZone {
        try #require(TimeZone(identifier: identifier), "no time zone \(identifier)")
    }

    static func day(_ text: String) throws -> LocalDay {
        try #require(LocalDay(text), "not a day: \(text)")
    }

    static let utc = TimeZone(identifier: "UTC")!

    @Test func defaultStartIsFourInTheMorning() {
        #expect(DayBoundary.defaultStartHour == 4)
        #expect(DayBoundary(timeZone: Self.utc).startHour == 4)
    }

    @Test func aReviewAtOneInTheMorningCountsForTheDayBefore() throws {
        let boundary = DayBoundary(timeZone: Self.utc)
        #expect(boundary.day(of: try Self.instant("2026-06-10T01:00:00Z")) == (try Self.day("2026-06-09")))
        #expect(boundary.day(of: try Self.instant("2026-06-10T00:00:00Z")) == (try Self.day("2026-06-09")))
        #expect(boundary.day(of: try Self.instant("2026-06-10T03:59:59Z")) == (try Self.day("2026-06-09")))
        // Across a month and a year.
        #expect(boundary.day(of: try Self.instant("2026-07-01T02:00:00Z")) == (try Self.day("2026-06-30")))
        #expect(boundary.day(of: try Self.instant("2027-01-01T03:30:00Z")) == (try Self.day("2026-12-31")))
    }

    @Test func aReviewAtFourExactlyCountsForTheSameDay() throws {
        let boundary = DayBoundary(timeZone: Self.utc)
        #expect(boundary.day(of: try Self.instant("2026-06-10T04:00:00Z")) == (try Self.day("2026-06-10")))
        #expect(boundary.day(of: try Self.instant("2026-06-10T23:59:59Z")) == (try Self.day("2026-06-10")))
    }

    @Test func startHourZeroMeansMidnight() throws {
        let boundary = DayBoundary(timeZone: Self.utc, startHour: 0)
        #expect(boundary.day(of: try Self.instant("2026-06-10T00:00:00Z")) == (try Self.day("2026-06-10")))
        #expect(boundary.day(of: try Self.instant("2026-06-10T01:00:00Z")) == (try Self.day("2026-06-10")))
        #expect(boundary.day(of: try Self.instant("2026-06-09T23:59:59Z")) == (try Self.day("2026-06-09")))
        #expect(boundary.start(of: try Self.day("2026-06-10")) == (try Self.instant("2026-06-10T00:00:00Z")))
    }

    @Test func startHourIsClamped() {
        #expect(DayBoundary(timeZone: Self.utc, startHour: 30).startHour == 23)
        #expect(DayBoundary(timeZone: Self.utc, startHour: -5).startHour == 0)
        #expect(DayBoundary(timeZone: Self.utc, startHour: 23).startHour == 23)
    }

    @Test func theSameInstantIsADifferentDayInAucklandAndLosAngeles() throws {
        // 20:00 UTC is 09:00 the next morning in Auckland (NZDT, +13) and noon in Los Angeles (PST, −8).
        let moment = try Self.instant("2026-01-15T20:00:00Z")
        let auckland = DayBoundary(timeZone: try Self.zone("Pacific/Auckland"))
        let losAngeles = DayBoundary(timeZone: try Self.zone("America/Los_Angeles"))
        #expect(auckland.day(of: moment) == (try Self.day("2026-01-16")))
        #expect(losAngeles.day(of: moment) == (try Self.day("2026-01-15")))
        // In July (NZST +12, PDT −7): 15:30 UTC is 03:30 in Auckland (still the day before) and 08:30 in LA.
        let july = try Self.instant("2026-07-15T15:30:00Z")
        #expect(auckland.day(of: july) == (try Self.day("2026-07-15")))
        #expect(losAngeles.day(of: july) == (try Self.day("2026-07-15")))
        let later = try Self.instant("2026-07-15T16:00:00Z")  // 04:00 in Auckland
        #expect(auckland.day(of: later) == (try Self.day("2026-07-16")))
    }

    @Test func berlinSpringForward() throws {
        // 2026-03-29: 02:00 CET becomes 03:00 CEST (at 01:00 UTC).
        let berlin = DayBoundary(timeZone: try Self.zone("Europe/Berlin"))
        let before = try Self.day("2026-03-28")
        let day = try Self.day("2026-03-29")
        #expect(berlin.day(of: try Self.instant("2026-03-29T01:59:00+01:00")) == before)
        #expect(berlin.day(of: try Self.instant("2026-03-29T03:00:00+02:00")) == before)
        #expect(berlin.day(of: try Self.instant("2026-03-29T03:59:00+02:00")) == before)
        #expect(berlin.day(of: try Self.instant("2026-03-29T04:00:00+02:00")) == day)
        #expect(berlin.start(of: day) == (try Self.instant("2026-03-29T04:00:00+02:00")))
        #expect(berlin.start(of: before) == (try Self.instant("2026-03-28T04:00:00+01:00")))
        // The day is 23 hours long.
        #expect(berlin.start(of: day).timeIntervalSince(berlin.start(of: before)) == 23 * 3600)
    }

    @Test func berlinFallBack() throws {
        // 2026-10-25: 03:00 CEST becomes 02:00 CET (at 01:00 UTC); 02:00–02:59 happens twice.
        let berlin = DayBoundary(timeZone: try Self.zone("Europe/Berlin"))
        let before = try Self.day("2026-10-24")
        let day = try Self.day("2026-10-25")
        #expect(berlin.day(of: try Self.instant("2026-10-25T02:30:00+02:00")) == before)
        #expect(berlin.day(of: try Self.instant("2026-10-25T02:30:00+01:00")) == before)
        #expect(berlin.day(of: try Self.instant("2026-10-25T03:59:00+01:00")) == before)
        #expect(berlin.day(of: try Self.instant("2026-10-25T04:00:00+01:00")) == day)
        #expect(berlin.start(of: day) == (try Self.instant("2026-10-25T04:00:00+01:00")))
        #expect(berlin.start(of: before) == (try Self.instant("2026-10-24T04:00:00+02:00")))
        // The day is 25 hours long.
        #expect(berlin.start(of: day).timeIntervalSince(berlin.start(of: before)) == 25 * 3600)
    }

    @Test func aSkippedStartHourStartsTheDayAtTheFirstMomentAfterIt() throws {
        // With the day starting at 02:00, which does not exist in Berlin on 2026-03-29.
        let berlin = DayBoundary(timeZone: try Self.zone("Europe/Berlin"), startHour: 2)
        let day = try Self.day("2026-03-29")
        let start = berlin.start(of: day)
        #expect(start == (try Self.instant("2026-03-29T03:00:00+02:00")))
        #expect(berlin.day(of: start) == day)
        #expect(berlin.day(of: start.addingTimeInterval(-1)) == day.adding(days: -1))
    }

    @Test func aRepeatedStartHourStartsTheDayAtItsFirstOccurrence() throws {
        let berlin = DayBoundary(timeZone: try Self.zone("Europe/Berlin"), startHour: 2)
        let day = try Self.day("2026-10-25")
        let start = berlin.start(of: day)
        #expect(start == (try Self.instant("2026-10-25T02:00:00+02:00")))
        #expect(berlin.day(of: start) == day)
        #expect(berlin.day(of: start.addingTimeInterval(-1)) == day.adding(days: -1))
        // The second 02:30 (CET) is still the same day.
        #expect(berlin.day(of: try Self.instant("2026-10-25T02:30:00+01:00")) == day)
    }

    @Test(arguments: [
        "UTC", "Europe/Berlin", "Pacific/Auckland", "America/Los_Angeles", "America/Santiago", "Asia/Kolkata",
    ])
    func startRoundTripsWithDay(_ identifier: String) throws {
        let zone = try Self.zone(identifier)
        let first = try Self.day("2026-01-01")
        for startHour in [0, 1, 2, 3, 4, 12, 23] {
            let boundary = DayBoundary(timeZone: zone, startHour: startHour)
            var previousStart: Date?
            for offset in 0..<366 {
                let day = first.adding(days: offset)
                let start = boundary.start(of: day)
                #expect(boundary.day(of: start) == day, "\(identifier) \(startHour):00 \(day)")
                #expect(
                    boundary.day(of: start.addingTimeInterval(-1)) == day.adding(days: -1),
                    "\(identifier) \(startHour):00 \(day)")
                if let previousStart {
                    let hours = start.timeIntervalSince(previousStart) / 3600
                    #expect((23...25).contains(hours), "\(identifier) \(startHour):00 \(day): \(hours) h")
                }
                previousStart = start
            }
        }
    }
}
