/// A UTC time of day and date from seconds since 1970, worked out by hand: the generator
/// writes a million dates, and Calendar or a date format style costs microseconds each.
struct CivilTime {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    /// 0 is Sunday.
    var weekday: Int

    init(secondsSince1970 seconds: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        hour = rest / 3600
        minute = rest % 3600 / 60
        second = rest % 60
        weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday
        // Howard Hinnant's civil_from_days.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Thu, 01 Jan 2026 00:00:00 +0000`, as RSS dates are written.
    var rfc822: String {
        "\(Self.weekdays[weekday]), \(Self.two(day)) \(Self.months[month - 1]) \(year) "
            + "\(Self.two(hour)):\(Self.two(minute)):\(Self.two(second)) +0000"
    }

    /// `2026-01-01T00:00:00Z`, as Atom and JSON Feed dates are written.
    var iso8601: String {
        "\(year)-\(Self.two(month))-\(Self.two(day))T\(Self.two(hour)):\(Self.two(minute)):\(Self.two(second))Z"
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
