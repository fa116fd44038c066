import Foundation

/// Opens a nested container where `userInfo[NestedContainerProbe.key]` says, whatever the
/// value there.
struct NestedContainerProbe: Decodable {
    /// Which nested container the probe asks of `inner.x` or `list[0]`.
    enum Shape: String, CaseIterable {
        case keyedOfKeyed, unkeyedOfKeyed, keyedOfUnkeyed, unkeyedOfUnkeyed, superOfAbsentKey, superOfKey
        case superPastTheEnd, keyedPastTheEnd, unkeyedPastTheEnd, valuePastTheEnd, nilPastTheEnd
    }

    static let key = CodingUserInfoKey(rawValue: "NestedContainerProbe.Shape")!

    init(from decoder: any Decoder) throws {
        let shape = Shape(rawValue: decoder.userInfo[Self.key] as! String)!
        let outer = try decoder.container(keyedBy: ReaderTestKey.self)
        switch shape {
        case .keyedOfKeyed, .unkeyedOfKeyed:
            let inner = try outer.nestedContainer(
                keyedBy: ReaderTestKey.self, forKey: ReaderTestKey(stringValue: "inner")!)
            let x = ReaderTestKey(stringValue: "x")!
            if shape == .keyedOfKeyed {
                _ = try inner.nestedContainer(keyedBy: ReaderTestKey.self, forKey: x)
            } else {
                _ = try inner.nestedUnkeyedContainer(forKey: x)
            }
        case .superOfAbsentKey, .superOfKey:
            let inner = try outer.nestedContainer(
                keyedBy: ReaderTestKey.self, forKey: ReaderTestKey(stringValue: "inner")!)
            let sub = try inner.superDecoder(forKey: ReaderTestKey(stringValue: shape == .superOfKey ? "x" : "y")!)
            _ = try sub.singleValueContainer().decode(String.self)
        case .superPastTheEnd, .keyedPastTheEnd, .unkeyedPastTheEnd, .valuePastTheEnd, .nilPastTheEnd:
            var list = try outer.nestedUnkeyedContainer(forKey: ReaderTestKey(stringValue: "list")!)
            _ = try list.superDecoder()
            switch shape {
            case .superPastTheEnd: _ = try list.superDecoder()
            case .keyedPastTheEnd: _ = try list.nestedContainer(keyedBy: ReaderTestKey.self)
            case .unkeyedPastTheEnd: _ = try list.nestedUnkeyedContainer()
            case .valuePastTheEnd: _ = try list.decode(Int.self)
            default: _ = try list.decodeNil()
            }
        case .keyedOfUnkeyed, .unkeyedOfUnkeyed:
            var list = try outer.nestedUnkeyedContainer(forKey: ReaderTestKey(stringValue: "list")!)
            if shape == .keyedOfUnkeyed {
                _ = try list.nestedContainer(keyedBy: ReaderTestKey.self)
            } else {
                _ = try list.nestedUnkeyedContainer()
            }
        }
    }
}
