import Foundation
import TestProcesses

/// Seeded JSON payloads for `GeneratedRecord`, written by hand byte by byte: good and bad
/// values of every kind, keys in any order (snake_case, escaped, duplicated, unknown),
/// nulls, escapes and surrogate pairs, deep nesting, and now and then a broken document.
struct ReaderPayloadGenerator {
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    private mutating func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    private mutating func pick(_ options: [String]) -> String { options[below(options.count)] }

    /// Whether values are all good ones (the rows are compared) or bad ones come too (the
    /// errors are).
    private var clean = false

    /// One payload: an array of records for the configuration named (`ReaderConfigurations`);
    /// a `clean` one has only values the model takes and no broken document.
    mutating func payload(config: String, clean: Bool = false) -> Data {
        self.clean = clean
        let snake = config.hasPrefix("snake")
        var records: [String] = []
        for _ in 0..<(1 + below(6)) { records.append(record(snake: snake, config: config)) }
        var text = "[" + records.joined(separator: pick([",", ", ", ",\n  "])) + (chance(3) ? ",]" : "]")
        if chance(4) { text = pick([" ", "\n", "\t"]) + text + pick(["", " ", "\r\n"]) }
        if !clean, chance(4) {
            // A broken document: cut short, or a stray byte.
            let bytes = Array(text.utf8)
            let cut = below(max(bytes.count, 1))
            return chance(50)
                ? Data(bytes[0..<cut])
                : Data(bytes[0..<cut] + Array(pick(["}", "x", "\"", ":", "01"]).utf8) + bytes[cut...])
        }
        return Data(text.utf8)
    }

    private mutating func record(snake: Bool, config: String) -> String {
        var members: [String] = []
        func key(_ camel: String, _ snakeForm: String) -> String { snake && chance(60) ? snakeForm : camel }
        if clean || !chance(3) { members.append(member("id", clean || chance(95) ? "\(below(12))" : badValue())) }
        if clean || !chance(8) { members.append(member("name", clean || chance(90) ? stringValue() : badValue())) }
        if chance(70) {
            members.append(
                member(
                    "count",
                    clean
                        ? pick([
                            "0", "-0", "7", "1.0", "1e2", "1E+2", "2.5e1", "9223372036854775807",
                            "-9223372036854775808", "null",
                        ]) : integerValue()))
        }
        if chance(60) { members.append(member("ratio", clean || chance(85) ? doubleValue() : badValue())) }
        if chance(50) {
            members.append(member("flag", clean || chance(85) ? pick(["true", "false", "null"]) : badValue()))
        }
        if chance(60) { members.append(member("when", dateValue(config))) }
        if chance(40) {
            members.append(
                member(
                    "link",
                    clean || chance(85)
                        ? pick(["\"https://example.com/a?b=c\"", "\"/relative\"", "null"] + (clean ? [] : ["\"\""]))
                        : badValue()))
        }
        if chance(40) {
            members.append(
                member(
                    "tags",
                    clean || chance(80)
                        ? "[" + (0..<below(4)).map { _ in stringValue() }.joined(separator: ",") + "]" : badValue()))
        }
        if chance(40) {
            members.append(
                member(
                    "small",
                    pick(
                        clean
                            ? ["127", "-128", "0", "1.0", "null"]
                            : ["127", "-128", "128", "-129", "0", "1.0", "null", "\"1\""])))
        }
        if chance(40) {
            members.append(
                member(
                    "big",
                    pick(
                        clean
                            ? ["9223372036854775807", "0", "1e18", "9007199254740993", "null"]
                            : [
                                "18446744073709551615", "18446744073709551616", "-1", "9007199254740993", "1e19",
                                "1.8446744073709552e19", "0", "null",
                            ])))
        }
        if chance(40) {
            members.append(
                member(
                    "price",
                    pick(
                        clean
                            ? ["1.25", "0", "-3.5e2", "12345678901234567890.123", "null"]
                            : ["1.25", "0", "-3.5e2", "12345678901234567890.123", "null", "\"1\"", "1e400"])))
        }
        if chance(30) {
            members.append(
                member(
                    "blob",
                    pick(
                        clean
                            ? ["\"aGVsbG8=\"", "null", "\"\""]
                            : ["\"aGVsbG8=\"", "\"aGVsbG8\"", "\"!!\"", "null", "[1,2,3]", "\"\""])))
        }
        if chance(40) {
            members.append(
                member(
                    "level",
                    pick(
                        clean
                            ? ["1.5", "3.4e38", "0.0", "-0", "null"]
                            : ["1.5", "3.4e38", "3.5e38", "1e-50", "0.0", "-0", "null", "1e-400"])))
        }
        if chance(40) {
            members.append(member(key("note_text", "note_text"), clean || chance(85) ? stringValue() : badValue()))
        }
        if chance(30) {
            members.append(
                member(
                    "meta",
                    pick(
                        clean
                            ? ["{\"rank\": 3}", "{\"rank\": null}", "{}", "null"]
                            : ["{\"rank\": 3}", "{\"rank\": null}", "{}", "null", "4", "{\"rank\": \"x\"}"])))
        }
        if chance(20) { members.append(member("meta_data", "{\"rank\": 1}")) }
        // Unknown keys, with anything in them.
        for _ in 0..<below(3) {
            members.append(member(pick(["extra", "other_key", "x", "é", "\\u0041"]), junk(depth: 0)))
        }
        if chance(10) { members.append(member("deep", deep(clean || below(2) == 0 ? 510 : 520))) }
        if chance(10), let first = members.first { members.append(first) }  // a duplicate key
        if chance(10) { members.append(member("n\\u0061me", stringValue())) }  // an escaped key
        for index in members.indices.reversed() where index > 0 {
            members.swapAt(index, below(index + 1))
        }
        return "{" + members.joined(separator: pick([",", " , ", ",\n"])) + (chance(3) && !members.isEmpty ? ",}" : "}")
    }

    private func member(_ key: String, _ value: String) -> String { "\"\(key)\":\(value)" }

    private mutating func stringValue() -> String {
        let pieces = [
            "plain", "with space", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "é", "\\ud83d\\ude00", "😀", "\\t",
            "\\b\\f\\r",
            "\\u0000", "Straße", "e\\u0301", "",
        ]
        var text = ""
        for _ in 0..<below(4) { text += pick(pieces) }
        if !clean, chance(4) { text += pick(["\\ud800", "\\udc00", "\\q", "\\u12G4", "\u{01}", "\\ud800\\u0041"]) }
        return "\"\(text)\""
    }

    private mutating func integerValue() -> String {
        pick([
            "0", "-0", "7", "-12", "1.0", "1.5", "1e2", "1E+2", "2.5e1", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "1e400", "null", "\"3\"", "true", "01", "1.", "-", "+1",
            "9007199254740993.0", "1e-400", "[]", "{}",
        ])
    }

    private mutating func doubleValue() -> String {
        if clean {
            return pick(["0.5", "-1.25e-3", "1e308", "2", "-0.0", "4.9e-324", "0e10", "123456789012345678901234567890"])
        }
        return pick([
            "0.5", "-1.25e-3", "1e308", "1e309", "2", "-0.0", "4.9e-324", "1e-400", "0e10", "\"NaN\"", "null",
            "123456789012345678901234567890",
        ])
    }

    private mutating func dateValue(_ config: String) -> String {
        if clean {
            switch config {
            case "iso8601":
                return pick([
                    "\"2026-11-05T14:30:00Z\"", "\"2026-11-05T14:30:00+01:00\"", "\"1970-01-01T00:00:00Z\"", "null",
                ])
            case "snake+lenient":
                return pick(["\"2026-11-05T14:30:00Z\"", "\"Tue, 05 Nov 2026 14:30:00 GMT\"", "\"2026-11-05\"", "null"])
            default: return pick(["1700000000", "1700000000.5", "-1", "null", "0"])
            }
        }
        switch config {
        case "iso8601":
            return pick([
                "\"2026-11-05T14:30:00Z\"", "\"2026-11-05T14:30:00+01:00\"", "\"2026-11-05T14:30:00.250Z\"",
                "\"2026-02-30T00:00:00Z\"",
                "\"2026-11-05T24:00:00Z\"", "\"2026-11-05T14:30:60Z\"", "\"2026-11-05\"", "\"nonsense\"", "1700000000",
                "null",
                "\"2026-11-05t14:30:00z\"", "\"0001-01-01T00:00:00Z\"",
            ])
        case "snake+lenient":
            return pick([
                "\"2026-11-05T14:30:00Z\"", "\"Tue, 05 Nov 2026 14:30:00 GMT\"", "\"2026-11-05\"", "\"never\"", "12",
                "null",
            ])
        default:
            return pick(["1700000000", "1700000000.5", "-1", "1e20", "1e400", "\"1700000000\"", "null", "0"])
        }
    }

    private mutating func badValue() -> String {
        pick(["null", "\"text\"", "12", "1.5", "true", "[1]", "{\"a\":1}", "1e400", "-", "\"\\ud800\""])
    }

    private mutating func junk(depth: Int) -> String {
        guard depth < 4 else { return "1" }
        switch below(8) {
        case 0: return "[" + (0..<below(3)).map { _ in junk(depth: depth + 1) }.joined(separator: ",") + "]"
        case 1: return "{\"k\":" + junk(depth: depth + 1) + ",\"k\":2}"
        case 2: return stringValue()
        case 3: return pick(["01", "1.", "-", "1e", "--1", "1.2.3"])  // taken by the scan, never decoded
        case 4: return pick(["true", "false", "null"])
        case 5: return "\"\\q\\uZZZZ\u{01}\""  // the same
        default: return integerValue()
        }
    }

    private func deep(_ levels: Int) -> String {
        String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
    }
}
