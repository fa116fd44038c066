import Foundation

/// The one form `.iso8601` dates nearly always take, `2026-11-05T14:30:00Z`, read without a
/// formatter. Anything else (`nil`) goes to `Date.ISO8601FormatStyle`, as JSONDecoder's
/// `.iso8601` does; only dates that style reads the same way are taken here (a second of
/// 60, or a 31st of November, is left to it).
enum ISO8601Reading {
    static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
                bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                bytes[19] == UInt8(ascii: "Z")
            else { return nil }
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for offset in start..<start + count {
                    let digit = Int(bytes[offset]) - 48
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2), second < 60,
                let seconds = LenientDateParser.seconds(
                    year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: 0)
            else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
    }
}
