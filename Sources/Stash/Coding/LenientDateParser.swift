import Foundation

/// Reads dates as feeds and APIs really send them, by hand (no `DateFormatter`, nothing
/// made per call): RFC 3339 and the ISO 8601 forms around it, and the RFC 822 family of mail
/// and RSS.
///
/// - RFC 3339 / ISO 8601: `2026-11-05T14:30:00Z`, with fractional seconds (`.5`, `,5`, up to
///   nanoseconds), a space or `t` for the `T`, `z`, offsets `+01:00`, `+0100`, `+01`, no
///   seconds (`2026-11-05T14:30Z`), or the date alone (`2026-11-05`, midnight).
/// - RFC 822 / 1123 / 2822 and RFC 850: `Tue, 05 Nov 2026 14:30:00 GMT`, the day name
///   optional (and not checked against the date: feeds get it wrong), one-digit days, full
///   month names, `-` between day, month and year, two-digit years (00–49 are 2000–2049,
///   50–99 are 1950–1999, as RFC 2822 says), no seconds, numeric offsets (`+0100`, `-05:00`)
///   and the named zones UT, UTC, GMT, Z, EST, EDT, CST, CDT, MST, MDT, PST, PDT, AKST, AKDT,
///   HST, WET, WEST, BST, CET, CEST, EET, EEST, MSK, JST, AEST, AEDT; an offset after a zero
///   zone's name (`GMT-01:01`, `UTC+0200`, as some feeds write it) is that offset (`GMT+1`,
///   one digit, is not read); a one-digit hour (`6:05:00`); `Sept`; a trailing comment
///   (`+0100 (CET)`).
///
/// A date with no zone at all (`2026-11-05T14:30:00`, `2026-11-05`) is read as UTC: the
/// sender's zone is unknown, and UTC is what such an API almost always means. Anything else
/// (an ambiguous zone such as IST, a 31st of November, text after the date) is `nil`, never
/// a guess: through `JSONDecoder.DateDecodingStrategy.lenient` it is a decoding error that
/// quotes the text.
public struct LenientDateParser: Sendable {
    public init() {}

    /// The date `text` names, or `nil` if it is none of the forms above.
    public func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes in
            var scanner = Scanner(bytes: bytes)
            scanner.skipSpaces()
            let date = scanner.peekDigits() >= 4 ? scanner.iso() : scanner.rfc822()
            scanner.skipSpaces()
            guard scanner.atEnd else { return nil }
            return date
        }
    }

    /// The seconds from 1970 of a civil date and time in UTC, or `nil` if a field is out of
    /// range (a 31st of November, hour 25).
    static func seconds(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offset: Int
    ) -> Int? {
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), (0...23).contains(hour),
            (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        // Days from 1970-01-01 (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3_600 + minute * 60 + second - offset
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Named zones and their offsets from UTC, in seconds: the RFC 822 ones and those feeds
    /// commonly send. Ambiguous abbreviations (IST, CST of China) are left out.
    static let zones: [String: Int] = [
        "UT": 0, "UTC": 0, "GMT": 0, "Z": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6,
        "PST": -8, "PDT": -7, "AKST": -9, "AKDT": -8, "HST": -10, "WET": 0, "WEST": 1, "BST": 1, "CET": 1,
        "CEST": 2, "EET": 2, "EEST": 3, "MSK": 3, "JST": 9, "AEST": 10, "AEDT": 11,
    ].mapValues { $0 * 3_600 }

    /// Month names, by their first three letters, lowercased.
    static let months: [String: Int] = [
        "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10,
        "nov": 11, "dec": 12,
    ]

    static let fullMonths = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december",
    ]

    static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    static let fullDayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
}

/// A cursor over the UTF-8 bytes of one date.
private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    var atEnd: Bool { position == bytes.count }

    func peek(_ offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    mutating func skip(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    mutating func skipSpaces() {
        while peek() == UInt8(ascii: " ") || peek() == UInt8(ascii: "\t") { position += 1 }
    }

    /// How many digits come next.
    func peekDigits() -> Int {
        var count = 0
        while let byte = peek(count), isDigit(byte) { count += 1 }
        return count
    }

    /// A number of exactly `count` digits (or, with `upTo`, `count` to `upTo`).
    mutating func number(_ count: Int, upTo most: Int? = nil) -> Int? {
        let available = peekDigits()
        guard available >= count, available <= (most ?? count) else { return nil }
        var value = 0
        for _ in 0..<available {
            value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        return value
    }

    /// Letters, lowercased.
    mutating func word() -> String {
        var word = ""
        while let byte = peek(), isLetter(byte) {
            word.unicodeScalars.append(Unicode.Scalar(byte | 0x20))
            position += 1
        }
        return word
    }

    // MARK: RFC 3339 / ISO 8601

    /// `YYYY-MM-DD`, then an optional time and zone.
    mutating func iso() -> Date? {
        guard let year = number(4), skip(UInt8(ascii: "-")), let month = number(2), skip(UInt8(ascii: "-")),
            let day = number(2)
        else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        var nanoseconds = 0
        var offset = 0
        let separator = peek()
        if separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t")
            || (separator == UInt8(ascii: " ") && peekDigits(after: 1) == 2)
        {
            position += 1
            guard let time = time() else { return nil }
            (hour, minute, second, nanoseconds) = time
            if let zone = isoZone() { offset = zone } else { return nil }
        }
        return date(year, month, day, hour, minute, second, nanoseconds, offset)
    }

    func peekDigits(after offset: Int) -> Int {
        var count = 0
        while let byte = peek(offset + count), isDigit(byte) { count += 1 }
        return count
    }

    /// `HH:MM`, then `:SS` and a fraction if there.
    mutating func time(oneDigitHour: Bool = false) -> (Int, Int, Int, Int)? {
        guard let hour = oneDigitHour ? number(1, upTo: 2) : number(2), skip(UInt8(ascii: ":")),
            let minute = number(2)
        else { return nil }
        var second = 0
        var nanoseconds = 0
        if skip(UInt8(ascii: ":")) {
            guard let seconds = number(2) else { return nil }
            second = seconds
            if peek() == UInt8(ascii: ".") || peek() == UInt8(ascii: ",") {
                position += 1
                let digits = peekDigits()
                guard digits > 0 else { return nil }
                var scale = 100_000_000
                for index in 0..<digits {
                    if index < 9 { nanoseconds += Int(bytes[position] - UInt8(ascii: "0")) * scale }
                    scale /= 10
                    position += 1
                }
            }
        }
        return (hour, minute, second, nanoseconds)
    }

    /// `Z`, `+HH:MM`, `+HHMM`, `+HH`, a named zone after a space, or nothing (UTC).
    mutating func isoZone() -> Int? {
        if skip(UInt8(ascii: "Z")) || skip(UInt8(ascii: "z")) { return 0 }
        if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { return numericZone() }
        let start = position
        skipSpaces()
        if atEnd { return 0 }
        if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { return numericZone() }
        if let byte = peek(), isLetter(byte) {
            return LenientDateParser.zones[word().uppercased()]
        }
        position = start
        return 0
    }

    /// `+HH:MM`, `+HHMM` or `+HH`, in seconds east of UTC.
    mutating func numericZone() -> Int? {
        let sign = skip(UInt8(ascii: "-")) ? -1 : (skip(UInt8(ascii: "+")) ? 1 : 0)
        guard sign != 0 else { return nil }
        let digits = peekDigits()
        let hours: Int
        var minutes = 0
        if digits == 4 {
            guard let both = number(4) else { return nil }
            hours = both / 100
            minutes = both % 100
        } else {
            guard digits == 2, let whole = number(2) else { return nil }
            hours = whole
            if skip(UInt8(ascii: ":")) {
                guard let part = number(2) else { return nil }
                minutes = part
            }
        }
        guard hours <= 23, minutes <= 59 else { return nil }
        return sign * (hours * 3_600 + minutes * 60)
    }

    // MARK: RFC 822 / 1123 / 2822 / 850

    /// `[Day,] DD Mon YYYY HH:MM[:SS] [zone]`, or with `-` between day, month and year.
    mutating func rfc822() -> Date? {
        if let byte = peek(), isLetter(byte) {
            let name = word()
            guard LenientDateParser.dayNames.contains(name) || LenientDateParser.fullDayNames.contains(name) else {
                return nil
            }
            _ = skip(UInt8(ascii: ","))
            skipSpaces()
        }
        guard let day = number(1, upTo: 2) else { return nil }
        let dashed = skip(UInt8(ascii: "-"))
        if !dashed { skipSpaces() }
        let monthName = word()
        guard
            let month = LenientDateParser.months[String(monthName.prefix(3))],
            monthName.count == 3 || LenientDateParser.fullMonths[month - 1] == monthName || monthName == "sept"
        else { return nil }
        if dashed {
            guard skip(UInt8(ascii: "-")) else { return nil }
        } else {
            skipSpaces()
        }
        let digits = peekDigits()
        guard digits == 2 || digits == 4, var year = number(digits) else { return nil }
        if digits == 2 { year += year < 50 ? 2000 : 1900 }
        var hour = 0
        var minute = 0
        var second = 0
        var nanoseconds = 0
        var offset = 0
        skipSpaces()
        if peekDigits() == 2 || (peekDigits() == 1 && peek(1) == UInt8(ascii: ":")) {
            guard let time = time(oneDigitHour: true) else { return nil }
            (hour, minute, second, nanoseconds) = time
            skipSpaces()
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") {
                guard let zone = numericZone() else { return nil }
                offset = zone
            } else if let byte = peek(), isLetter(byte) {
                let name = word().uppercased()
                guard let zone = LenientDateParser.zones[name] else { return nil }
                offset = zone
                // `GMT-01:01`, `UTC+0200`: an offset written after a zero zone's name.
                if zone == 0, peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") {
                    guard let extra = numericZone() else { return nil }
                    offset = extra
                }
            }
        }
        // A trailing RFC 2822 comment, as mail-born feeds write it: `+0100 (CET)`.
        skipSpaces()
        if skip(UInt8(ascii: "(")) {
            while let byte = peek(), byte != UInt8(ascii: ")") { position += 1 }
            guard skip(UInt8(ascii: ")")) else { return nil }
        }
        return date(year, month, day, hour, minute, second, nanoseconds, offset)
    }

    func date(
        _ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int, _ nanoseconds: Int,
        _ offset: Int
    ) -> Date? {
        guard
            let seconds = LenientDateParser.seconds(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
        else { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }
}

private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

private func isLetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
}

extension JSONDecoder.DateDecodingStrategy {
    /// Dates as `LenientDateParser` reads them: RFC 3339 and its variants, RFC 822 / 1123
    /// with named zones, date-only, no zone read as UTC. A string it cannot read is a
    /// `DecodingError` that quotes it, never 1970 or now.
    public static var lenient: JSONDecoder.DateDecodingStrategy {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = LenientDateParser().date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "expected a date (RFC 3339, ISO 8601, RFC 822 or RFC 1123), found \"\(text)\"")
            }
            return date
        }
    }
}
