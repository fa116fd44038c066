import Foundation

/// ISO 8601 timestamps in the store's form, `2024-05-01T09:30:00.250Z`, read and written by
/// hand.
///
/// Both runs decode dates with `jsonDateStrategy`, so they pay the same JSON cost and the
/// comparison measures only what happens around the decoder. The formatter is the
/// baseline's own: it must not borrow Stash's (which is internal anyway).
enum Timestamp {
    /// The decoder configuration both runs share: default keys (the payload is camelCase)
    /// and dates parsed by `milliseconds(in:)`.
    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            var text = try container.decode(String.self)
            let milliseconds = text.withUTF8 { Timestamp.milliseconds(in: $0) }
            guard let milliseconds else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "not an ISO 8601 timestamp: \(text)")
            }
            return Timestamp.date(milliseconds: milliseconds)
        }
        return decoder
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// Milliseconds since 1970, rounded as the store rounds them.
    static func milliseconds(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    // MARK: Parsing

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)` from UTF-8 bytes; `nil` if malformed.
    /// Works on bytes so the baseline can parse straight out of `sqlite3_column_text`.
    static func milliseconds(in bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var cursor = Cursor(bytes: bytes)
        guard let year = cursor.number(4), cursor.skip(UInt8(ascii: "-")),
            let month = cursor.number(2), cursor.skip(UInt8(ascii: "-")),
            let day = cursor.number(2), cursor.skip(UInt8(ascii: "T")),
            let hour = cursor.number(2), cursor.skip(UInt8(ascii: ":")),
            let minute = cursor.number(2), cursor.skip(UInt8(ascii: ":")),
            let second = cursor.number(2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction: Int64 = 0
        if cursor.skip(UInt8(ascii: ".")) {
            var scale: Int64 = 100
            var digits = 0
            while let digit = cursor.digit() {
                fraction += digit * scale
                scale /= 10
                digits += 1
            }
            guard digits > 0 else { return nil }
        }
        var offsetMinutes: Int64 = 0
        if !cursor.skip(UInt8(ascii: "Z")) {
            let sign: Int64
            if cursor.skip(UInt8(ascii: "+")) {
                sign = 1
            } else if cursor.skip(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let offsetHour = cursor.number(2), cursor.skip(UInt8(ascii: ":")),
                let offsetMinute = cursor.number(2)
            else { return nil }
            offsetMinutes = sign * (offsetHour * 60 + offsetMinute)
        }
        guard cursor.isAtEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let secondOfDay = (hour * 60 + minute - offsetMinutes) * 60 + second
        return (days * 86_400 + secondOfDay) * 1000 + fraction
    }

    // MARK: Formatting

    /// The length of the stored form.
    static let length = 24

    /// Writes the stored form of `milliseconds` into `buffer` (at least `length` bytes).
    /// No allocation: the baseline binds the buffer directly.
    static func format(milliseconds: Int64, into buffer: UnsafeMutablePointer<UInt8>) {
        let days = floorDivide(milliseconds, 86_400_000)
        let millisecondOfDay = milliseconds - days * 86_400_000
        let (year, month, day) = civilDate(fromDays: days)
        precondition((0...9999).contains(year), "year \(year) does not fit the stored form")
        let second = millisecondOfDay / 1000
        put(year, digits: 4, at: 0, in: buffer)
        buffer[4] = UInt8(ascii: "-")
        put(month, digits: 2, at: 5, in: buffer)
        buffer[7] = UInt8(ascii: "-")
        put(day, digits: 2, at: 8, in: buffer)
        buffer[10] = UInt8(ascii: "T")
        put(second / 3600, digits: 2, at: 11, in: buffer)
        buffer[13] = UInt8(ascii: ":")
        put(second / 60 % 60, digits: 2, at: 14, in: buffer)
        buffer[16] = UInt8(ascii: ":")
        put(second % 60, digits: 2, at: 17, in: buffer)
        buffer[19] = UInt8(ascii: ".")
        put(millisecondOfDay % 1000, digits: 3, at: 20, in: buffer)
        buffer[23] = UInt8(ascii: "Z")
    }

    /// The stored form as a `String`, for the generator.
    static func string(milliseconds: Int64) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            format(milliseconds: milliseconds, into: buffer.baseAddress!)
            return length
        }
    }

    private static func put(_ value: Int64, digits: Int, at start: Int, in buffer: UnsafeMutablePointer<UInt8>) {
        var value = value
        for index in stride(from: start + digits - 1, through: start, by: -1) {
            buffer[index] = UInt8(truncatingIfNeeded: 48 + value % 10)
            value /= 10
        }
    }

    // MARK: Calendar arithmetic (proleptic Gregorian, days since 1970-01-01; H. Hinnant's algorithms)

    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = floorDivide(marchYear, 400)
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : (value - divisor + 1) / divisor
    }
}

/// Reads digits and single bytes off a UTF-8 buffer.
private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    var isAtEnd: Bool { position == bytes.count }

    mutating func digit() -> Int64? {
        guard position < bytes.count else { return nil }
        let byte = bytes[position]
        guard byte >= 48, byte <= 57 else { return nil }
        position += 1
        return Int64(byte - 48)
    }

    mutating func number(_ digits: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<digits {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func skip(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }
}
