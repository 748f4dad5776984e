import Foundation

/// Which ``LocalDay`` a moment belongs to: the local date in a time zone, with the day starting at
/// a chosen hour rather than at midnight (04:00 by default, as Anki does), so a review at 01:00
/// still counts for the evening before.
public struct DayBoundary: Sendable, Hashable {
    /// The zone whose wall clock decides the day; the device's current zone in an app.
    public var timeZone: TimeZone
    /// The hour (0–23) at which a new day starts.
    public var startHour: Int

    /// The default start of the day: 04:00 local.
    public static let defaultStartHour = 4

    /// - Parameter startHour: clamped to 0–23.
    public init(timeZone: TimeZone = .current, startHour: Int = DayBoundary.defaultStartHour) {
        self.timeZone = timeZone
        self.startHour = min(23, max(0, startHour))
    }

    /// The day `date` counts for.
    public func day(of date: Date) -> LocalDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour], from: date)
        guard let year = parts.year, let month = parts.month, let dayOfMonth = parts.day, let hour = parts.hour,
            let day = LocalDay(year: year, month: month, day: dayOfMonth)
        else {
            // Out of the calendar's range: fall back to UTC days, which always exist.
            return LocalDay(ordinal: Int((date.timeIntervalSince1970 / 86_400).rounded(.down)))
        }
        return hour < startHour ? day.adding(days: -1) : day
    }

    /// The moment `day` starts: its `startHour` in `timeZone`, or the first existing moment after it
    /// when a clock change skips that hour.
    public func start(of day: LocalDay) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let (year, month, dayOfMonth) = day.components
        let parts = DateComponents(year: year, month: month, day: dayOfMonth, hour: startHour)
        return calendar.date(from: parts) ?? Date(timeIntervalSince1970: Double(day.ordinal) * 86_400)
    }
}
