import Foundation

/// `--since`'s value: an ISO 8601 date (`2026-11-05`, midnight UTC) or date-time
/// (`2026-11-05T14:30`, `2026-11-05T14:30:00Z`, `2026-11-05T14:30:00.5+01:00`; UTC when no
/// zone is given). Written by hand because Foundation's styles insist on a zone.
public enum DateArgument {
    public static func parse(_ text: String) -> Date? {
        let chars = Array(text.utf8)
        var position = 0

        func number(_ digits: Int) -> Int? {
            guard position + digits <= chars.count else { return nil }
            var value = 0
            for byte in chars[position..<position + digits] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            position += digits
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            guard position < chars.count, chars[position] == byte else { return false }
            position += 1
            return true
        }

        guard let year = number(4), skip(45), let month = number(2), skip(45), let day = number(2) else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        var fraction = 0.0
        var offset = 0
        if position < chars.count {
            guard skip(84) || skip(116) || skip(32), let h = number(2), skip(58), let m = number(2) else { return nil }
            hour = h
            minute = m
            if skip(58) {
                guard let s = number(2) else { return nil }
                second = s
                if skip(46) || skip(44) {
                    let start = position
                    while position < chars.count, chars[position] >= 48, chars[position] <= 57 { position += 1 }
                    guard position > start else { return nil }
                    fraction = Double("0." + String(decoding: chars[start..<position], as: UTF8.self)) ?? 0
                }
            }
            if skip(90) || skip(122) {
                offset = 0
            } else if position < chars.count {
                let sign: Int
                if skip(43) {
                    sign = 1
                } else if skip(45) {
                    sign = -1
                } else {
                    return nil
                }
                guard let zoneHours = number(2) else { return nil }
                _ = skip(58)
                let zoneMinutes = number(2) ?? 0
                guard zoneHours <= 23, zoneMinutes <= 59 else { return nil }
                offset = sign * (zoneHours * 3600 + zoneMinutes * 60)
            }
        }
        guard position == chars.count else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60 else {
            return nil
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day
        else { return nil }
        return date.addingTimeInterval(fraction - Double(offset))
    }
}
