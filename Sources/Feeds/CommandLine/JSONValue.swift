import Foundation

/// A JSON value with its object keys in the order given, so `--json` prints keys in the
/// order issue 16 lists them, and `null` is written rather than dropped (as `Encodable`
/// with `nil` optionals would).
public enum JSONValue: Sendable, Equatable {
    case string(String)
    case number(Int64)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// `.string`, or `.null` for `nil`.
    public static func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    /// ISO 8601 in UTC (`2026-11-05T14:30:00Z`), or `.null` for `nil`.
    public static func date(_ value: Date?) -> JSONValue {
        value.map { .string($0.formatted(.iso8601)) } ?? .null
    }

    /// Two-space indented, one value a line; `[]` and `{}` when empty.
    public func rendered(indent: Int = 0) -> String {
        var text = ""
        write(to: &text, indent: indent)
        return text
    }

    private func write(to text: inout String, indent: Int) {
        switch self {
        case .string(let value): JSONValue.quote(value, into: &text)
        case .number(let value): text += String(value)
        case .bool(let value): text += value ? "true" : "false"
        case .null: text += "null"
        case .array(let values):
            guard !values.isEmpty else {
                text += "[]"
                return
            }
            let inner = String(repeating: " ", count: indent + 2)
            text += "[\n"
            for (index, value) in values.enumerated() {
                text += inner
                value.write(to: &text, indent: indent + 2)
                text += index == values.count - 1 ? "\n" : ",\n"
            }
            text += String(repeating: " ", count: indent) + "]"
        case .object(let members):
            guard !members.isEmpty else {
                text += "{}"
                return
            }
            let inner = String(repeating: " ", count: indent + 2)
            text += "{\n"
            for (index, (key, value)) in members.enumerated() {
                text += inner
                JSONValue.quote(key, into: &text)
                text += ": "
                value.write(to: &text, indent: indent + 2)
                text += index == members.count - 1 ? "\n" : ",\n"
            }
            text += String(repeating: " ", count: indent) + "}"
        }
    }

    private static func quote(_ value: String, into text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            // Every control character (C0, DEL, C1) escaped: JSON printed to a terminal
            // carries no escape sequence a feed planted.
            case _
            where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                || scalar.value == 0x2029:
                text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
