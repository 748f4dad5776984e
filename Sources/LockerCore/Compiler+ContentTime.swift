import Foundation
import LockerKit

/// The content's time, which the manifest's version and expiry and the site's dates are made of:
/// never the clock.
extension Compiler {
    /// The content's date: `SOURCE_DATE_EPOCH`, else the vault's last git commit; never the clock.
    public func generatedAt() -> String? {
        contentTime().map(Self.internetDateTime)
    }

    /// The content's time in seconds since 1970, which ``generatedAt()`` writes as a date:
    /// `SOURCE_DATE_EPOCH`, else the vault's last git commit; nil when neither is known.
    public func contentTime() -> Int? {
        contentDate.value {
            environment["SOURCE_DATE_EPOCH"].flatMap { Int($0.trimmingWhitespace) } ?? LastCommit.time(of: vault)
        }
    }

    /// Why a signed build without the content's time stops: an app refuses a signed manifest
    /// without a `version` and an `expires`, and the expiry counts from the content's time, so
    /// a version given with `--bundle-version` is not enough.
    public static let untimedSigning =
        "a signed build needs the content's time, which its manifest's expiry counts from, and it is unknown: "
        + "set SOURCE_DATE_EPOCH or commit the vault to git (--bundle-version sets the version, not the time)"

    /// Why a signed build whose expiry is past what a date can say stops (an app refuses a
    /// signed manifest without one): the content's time `contentTime`, `days` later, is past
    /// 9999-12-31 (or the integers).
    public static func unexpiringSigning(contentTime: Int, days: Int) -> String {
        let time = "the content's time (\(contentTime) s since 1970, from SOURCE_DATE_EPOCH or git)"
        let fix = "set SOURCE_DATE_EPOCH to the content's time in seconds since 1970"
        return contentTime > latestExpiry
            ? "a signed build needs an expiry, and \(time) is past the year 9999: \(fix)"
            : "a signed build needs an expiry, and \(time) plus manifestExpiryDays (\(days)) is past the year "
                + "9999: lower manifestExpiryDays in locker.yml, or \(fix)"
    }

    /// The latest time an `expires` says: 9999-12-31T23:59:59Z, as RFC 3339 years have four digits.
    static let latestExpiry = 253_402_300_799

    /// The manifest's `expires` for content of time `seconds`: `days` later; nil when that is
    /// past what a date can say (RFC 3339's four-digit years, or the integers).
    static func expiry(of seconds: Int, days: Int) -> String? {
        let (span, spanOverflow) = days.multipliedReportingOverflow(by: 86_400)
        let (time, overflow) = seconds.addingReportingOverflow(span)
        return spanOverflow || overflow || time > latestExpiry ? nil : internetDateTime(time)
    }

    /// `seconds` since 1970 as an RFC 3339 date and time in UTC (`2023-11-14T22:13:20Z`), as
    /// `ISO8601DateFormatter` writes it; written by hand for the years 1600 to 9999, which
    /// spares every build the formatter's start-up (a large part of a no-change rebuild's
    /// set-up). The calendar date is worked out from the day number alone (the proleptic
    /// Gregorian calendar, days of 86,400 seconds), not by `gmtime`, which counts
    /// leap seconds under a `right/` time zone.
    static func internetDateTime(_ seconds: Int) -> String {
        // From 1600: the formatter's calendar is Julian before October 1582.
        guard (-11_676_096_000...253_402_300_799).contains(seconds) else {
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        var days = seconds / 86_400
        if seconds % 86_400 < 0 { days -= 1 }
        let time = seconds - days * 86_400
        let (year, month, day) = LocalDay(ordinal: days).components
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60))Z"
    }
}

/// A compiler's content time, worked out at its first use and kept.
final class ContentDate: @unchecked Sendable {
    private let lock = NSLock()
    private var date: Int??

    func value(_ compute: () -> Int?) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if let date { return date }
        let computed = compute()
        date = .some(computed)
        return computed
    }
}
