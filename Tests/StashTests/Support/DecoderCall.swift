import Foundation
import Testing

@testable import Stash

/// One way of reading `v`, `list` or `snake_key` of `{"v": …, "list": […, 1], "snake_key": …}`,
/// answering what it read as text (floating-point values by their bits).
struct DecoderCall: Sendable, CustomTestStringConvertible {
    let name: String
    /// Reads a dictionary of values that may fail: under the default key strategy JSONDecoder
    /// reads it through `Dictionary.init(from:)`, member by member in its keyed container's
    /// hash order, so of two bad members the one its error names changes from run to run.
    /// Such a call is made only on objects of one member.
    var readsMembersInHashOrder = false
    let run: @Sendable (any Decoder) throws -> String

    static let key = CodingUserInfoKey(rawValue: "DecoderCall")!
    var testDescription: String { name }

    static let all: [DecoderCall] =
        calls(Int.self) + calls(Int8.self) + calls(UInt8.self) + calls(Int64.self) + calls(UInt64.self)
        + calls(Double.self, { String($0.bitPattern) }) + calls(Float.self, { String($0.bitPattern) })
        + calls(Bool.self) + calls(String.self)
        + calls(Date.self, { String($0.timeIntervalSinceReferenceDate.bitPattern) }) + calls(URL.self)
        + calls(Data.self) + calls(Decimal.self) + calls([Int].self)
        + calls([String: Int].self, { "\($0.sorted { $0.key < $1.key })" })
        + calls(Int16.self) + calls(UInt32.self) + calls(UInt.self) + calls(Int?.self) + calls(String?.self)
        + calls([Int?].self) + calls(Set<Int>.self, { "\($0.sorted())" }) + calls(UUID.self)
        + calls(OwnValuesRecord.Colour.self)
        + calls(OwnValuesRecord.Level.self) + calls(OwnValuesRecord.Point.self)
        + calls([String: OwnValuesRecord.Point].self, { "\($0.sorted { $0.key < $1.key })" }).map {
            var call = $0
            call.readsMembersInHashOrder = true
            return call
        } + calls([URL].self)
        + containerCalls

    /// Each way of reading a `T`: keyed (present, absent, if present, through a converted
    /// snake_case key), unkeyed (a read, failed or not, and where it leaves the index, then
    /// if present), and as a single value (of `v`, and of an absent key's super decoder).
    static func calls<T: Decodable & SendableMetatype>(
        _ type: T.Type, _ show: @escaping @Sendable (T) -> String = { "\($0)" }
    )
        -> [DecoderCall]
    {
        let name = "\(T.self)"
        return [
            DecoderCall(name: "keyed \(name)") { try show(keyed($0).decode(T.self, forKey: .v)) },
            DecoderCall(name: "keyed absent \(name)") { try show(keyed($0).decode(T.self, forKey: .absent)) },
            DecoderCall(name: "keyed if present \(name)") {
                try keyed($0).decodeIfPresent(T.self, forKey: .v).map(show) ?? "nil"
            },
            DecoderCall(name: "keyed absent if present \(name)") {
                try keyed($0).decodeIfPresent(T.self, forKey: .absent).map(show) ?? "nil"
            },
            DecoderCall(name: "keyed snake key \(name)") {
                let container = try keyed($0)
                let converted = container.contains(.snakeKey) ? ReaderCallKey.snakeKey : .snakeRaw
                return try show(container.decode(T.self, forKey: converted))
            },
            DecoderCall(name: "unkeyed \(name)") {
                var list = try keyed($0).nestedUnkeyedContainer(forKey: .list)
                let first: String
                do { first = try show(list.decode(T.self)) } catch { first = readerErrorText(error) }
                let index = list.currentIndex
                let second = try list.decodeIfPresent(T.self).map(show) ?? "nil"
                return "\(first) \(index) \(second) \(list.currentIndex) \(list.isAtEnd)"
            },
            DecoderCall(name: "single \(name)") {
                try show(keyed($0).superDecoder(forKey: .v).singleValueContainer().decode(T.self))
            },
            DecoderCall(name: "single absent \(name)") {
                try show(keyed($0).superDecoder(forKey: .absent).singleValueContainer().decode(T.self))
            },
        ]
    }

    /// The containers' own questions: keys, counts, nulls.
    static let containerCalls: [DecoderCall] = [
        DecoderCall(name: "keys") { decoder in
            let container = try keyed(decoder)
            let keys = container.allKeys.map(\.stringValue).sorted()
            return "\(keys) \(container.contains(.v)) \(container.contains(.absent)) \(container.codingPath.count)"
        },
        DecoderCall(name: "nil for key") { try "\(keyed($0).decodeNil(forKey: .v))" },
        DecoderCall(name: "canonically equal key") { decoder in
            let container = try keyed(decoder)
            return try "\(container.contains(.café)) \(container.decodeIfPresent(String.self, forKey: .café) ?? "nil")"
        },
        DecoderCall(name: "look-alike key") { decoder in
            let container = try keyed(decoder)
            return try
                "\(container.contains(.fullWidthV)) \(container.decodeIfPresent(Int.self, forKey: .fullWidthV) ?? -1)"
        },
        DecoderCall(name: "single nil") {
            try "\(keyed($0).superDecoder(forKey: .v).singleValueContainer().decodeNil())"
        },
        DecoderCall(name: "nil for absent key") { try "\(keyed($0).decodeNil(forKey: .absent))" },
        DecoderCall(name: "unkeyed nils") { decoder in
            var list = try keyed(decoder).nestedUnkeyedContainer(forKey: .list)
            var seen: [String] = ["\(list.count ?? -1)"]
            while !list.isAtEnd {
                if try list.decodeNil() {
                    seen.append("null")
                } else {
                    _ = try list.superDecoder()
                    seen.append("value")
                }
            }
            return seen.joined(separator: " ")
        },
        DecoderCall(name: "nested keys") { decoder in
            let nested = try keyed(decoder).nestedContainer(keyedBy: ReaderCallKey.self, forKey: .v)
            return "\(nested.allKeys.map(\.stringValue).sorted()) \(nested.codingPath.map(\.stringValue))"
        },
        DecoderCall(name: "nested list") { decoder in
            var nested = try keyed(decoder).nestedUnkeyedContainer(forKey: .v)
            return "\(nested.count ?? -1) \(try nested.decodeIfPresent(Int.self) ?? -1) \(nested.currentIndex)"
        },
        DecoderCall(name: "if present past the end") { decoder in
            var list = try keyed(decoder).nestedUnkeyedContainer(forKey: .list)
            _ = try list.superDecoder()
            _ = try list.superDecoder()
            let scalar = try list.decodeIfPresent(Int.self)
            let generic = try list.decodeIfPresent(OwnValuesRecord.Point.self)
            return "\(scalar.map(String.init) ?? "nil") \(generic.map(\.description) ?? "nil") \(list.currentIndex)"
        },
        DecoderCall(name: "super") { decoder in
            // The key type has no "super" case: the decoder finds the key by name, here absent.
            let value = try keyed(decoder).superDecoder()
            return "\(try value.singleValueContainer().decodeNil()) \(value.codingPath.map(\.stringValue))"
        },
        DecoderCall(name: "super of v") { decoder in
            // Present when `v` is `{"super": 5}`.
            let value = try keyed(decoder).nestedContainer(keyedBy: ReaderCallKey.self, forKey: .v).superDecoder()
            let single = try value.singleValueContainer()
            return single.decodeNil() ? "null" : "\(try single.decode(Int.self))"
        },
    ]

    private static func keyed(_ decoder: any Decoder) throws -> KeyedDecodingContainer<ReaderCallKey> {
        try decoder.container(keyedBy: ReaderCallKey.self)
    }
}
