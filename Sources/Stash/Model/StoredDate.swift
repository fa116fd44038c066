import Foundation

/// Dates as the store keeps them: ISO 8601 in UTC to the millisecond,
/// `2024-05-01T09:30:00.250Z`. Written and read by hand, not by a formatter: this runs
/// once per date per row, and a formatter costs microseconds.
enum StoredDate {
    /// The milliseconds since 1970 a stored date can have: years 1 to 9999.
    static let range: ClosedRange<Int64> =
        daysFromCivil(year: 1, month: 1, day: 1) * 86_400_000...daysFromCivil(year: 10_000, month: 1, day: 1)
        * 86_400_000 - 1

    /// The milliseconds since 1970 the store keeps for `date`, rounded; `nil` outside the
    /// years 1 to 9999.
    static func milliseconds(of date: Date) -> Int64? {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard let total = Int64(exactly: milliseconds), range.contains(total) else { return nil }
        return total
    }

    /// `date` as the store gives it back, rounded to the millisecond: what `string(from:)`
    /// then `date(from:)` make, without the text; `nil` outside the years 1 to 9999.
    static func rounded(_ date: Date) -> Date? {
        milliseconds(of: date).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    static func string(from date: Date) throws -> String {
        guard let total = milliseconds(of: date) else {
            throw StashError(
                .invalidValue,
                "the date \(date.timeIntervalSince1970) (seconds since 1970) is outside the years 1 to 9999")
        }
        let (days, millisecondOfDay) = floorDivide(total, 86_400_000)
        let (year, month, day) = civilDate(fromDays: days)
        let second = millisecondOfDay / 1000
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var position = 0
            func put(_ value: Int64, _ digits: Int, _ separator: Unicode.Scalar) {
                var value = value
                for offset in stride(from: digits - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                buffer[position + digits] = UInt8(ascii: separator)
                position += digits + 1
            }
            put(year, 4, "-")
            put(month, 2, "-")
            put(day, 2, "T")
            put(second / 3600, 2, ":")
            put(second / 60 % 60, 2, ":")
            put(second % 60, 2, ".")
            put(millisecondOfDay % 1000, 3, "Z")
            return position
        }
    }

    /// Reads `YYYY-MM-DD[T ]HH:MM[:SS[.fff]][Z|±HH:MM]`: the stored form, and what people
    /// and SQLite's own date functions write. A missing zone is UTC.
    static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(fromUTF8: $0) }
    }

    /// The same, from UTF-8 bytes: what a row's text column holds, read without a String.
    static func date(fromUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var scanner = DigitScanner(bytes)
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var milliseconds = daysFromCivil(year: year, month: month, day: day) * 86_400_000
        if scanner.skip("T") || scanner.skip("t") || scanner.skip(" ") {
            guard let hour = scanner.number(digits: 2), scanner.skip(":"), let minute = scanner.number(digits: 2),
                hour < 24, minute < 60
            else { return nil }
            var second: Int64 = 0
            var fraction: Int64 = 0
            if scanner.skip(":") {
                guard let value = scanner.number(digits: 2), value < 61 else { return nil }
                second = value
                if scanner.skip(".") {
                    var scale: Int64 = 100
                    var digits = 0
                    while let digit = scanner.digit() {
                        fraction += digit * scale
                        scale /= 10
                        digits += 1
                    }
                    guard digits > 0 else { return nil }
                }
            }
            milliseconds += ((hour * 60 + minute) * 60 + second) * 1000 + fraction
            if scanner.skip("Z") || scanner.skip("z") {
            } else if let sign = scanner.sign() {
                guard let offsetHour = scanner.number(digits: 2) else { return nil }
                _ = scanner.skip(":")
                let offsetMinute = scanner.number(digits: 2) ?? 0
                milliseconds -= sign * (offsetHour * 60 + offsetMinute) * 60_000
            }
        }
        guard scanner.isAtEnd else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    // MARK: Calendar arithmetic (proleptic Gregorian, days since 1970-01-01)

    private static func civilDate(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = floorDivide(marchYear, 400).quotient
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
        return (quotient, value - quotient * divisor)
    }
}

/// Reads fixed-width numbers and single characters off UTF-8 bytes.
private struct DigitScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    mutating func digit() -> Int64? {
        guard position < bytes.count, (48...57).contains(bytes[position]) else { return nil }
        defer { position += 1 }
        return Int64(bytes[position] - 48)
    }

    mutating func number(digits: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<digits {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(character.value) else { return false }
        position += 1
        return true
    }

    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
