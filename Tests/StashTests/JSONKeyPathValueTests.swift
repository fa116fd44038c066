import Foundation
import Testing

@testable import Stash

/// StashREST's pagination reads a page's next link or cursor at a key path of its body on the
/// reader's tape (`JSONKeyPathValue`) instead of parsing the body again with
/// `JSONSerialization`: the answers must be the ones it gave.
@Suite struct JSONKeyPathValueTests {
    /// What pagination did before: `JSONSerialization`, through objects, `NSNull` as nil.
    private func serialized(_ keyPath: String, _ json: String) -> Any? {
        guard var value = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        else { return nil }
        for key in keyPath.split(separator: ".") {
            guard let object = value as? [String: Any], let next = object[String(key)] else { return nil }
            value = next
        }
        return value is NSNull ? nil : value
    }

    /// Both as a cursor is made of them (`"\(value)"`), and as a next URL (a String or not).
    private func check(_ keyPath: String, _ json: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let tape = JSONKeyPathValue.value(at: keyPath, in: Data(json.utf8))
        let old = serialized(keyPath, json)
        #expect(tape.map { "\($0)" } == old.map { "\($0)" }, "\(keyPath) in \(json)", sourceLocation: sourceLocation)
        #expect((tape as? String) == (old as? String), sourceLocation: sourceLocation)
    }

    @Test func linksAndCursorsReadAsJSONSerializationReadThem() {
        let page =
            #"{"items": [{"id": 1, "next": "no"}], "next": "https://api.example.com/items?page=2", "#
            + #""meta": {"cursor": "abc==", "count": 120, "ratio": 0.5, "whole": 3.0, "more": true, "none": null}}"#
        check("next", page)
        check("meta.cursor", page)
        check("meta.count", page)
        check("meta.ratio", page)
        check("meta.whole", page)
        check("meta.none", page)
        check("meta.missing", page)
        check("missing.cursor", page)
        check("items.next", page)
        check("next", #"{"next": "https:\/\/api.example.com\/items?after=\u00e9t\u00e9&x=\"q\""}"#)
        check("n\u{e9}xt", #"{"n\u00e9xt": "escaped key", "next": "plain"}"#)
        check("next", #"{"next": "first", "next": "last"}"#)
        check("next", #"  {"next" : "spaces" }  "#)
        check("cursor", #"{"cursor": -42}"#)
        check("cursor", #"{"cursor": 12345678901234}"#)
        check("cursor", #"{"cursor": 1e3}"#)
        check("next", #"{"next": "🧑‍💻 page"}"#)
        check("next", #"{"meta": {"next": "inner", "list": [{"next": "deep"}]}, "next": "outer"}"#)
        check("next", "{\"n\u{435}xt\": \"cyrillic e\"}")
        check("n\u{e9}xt", "{\"ne\u{301}xt\": \"decomposed key\"}")
        check("cursor", #"{"cursor": 18446744073709551616}"#)
        check("cursor", #"{"cursor": 9223372036854775807}"#)
        check("next", #"{"next": "x"} trailing"#)
        check("next", "[1, 2]")
        check("next", #""just a string""#)
    }

    /// What pagination takes as the end: `null`, a missing key, a value that is no link or
    /// cursor, a body that is not JSON.
    @Test func theEndIsNil() {
        #expect(JSONKeyPathValue.value(at: "next", in: Data(#"{"next": null}"#.utf8)) == nil)
        #expect(JSONKeyPathValue.value(at: "next", in: Data(#"{"items": []}"#.utf8)) == nil)
        #expect(JSONKeyPathValue.value(at: "next", in: Data(#"{"next": {"href": "x"}}"#.utf8)) == nil)
        #expect(JSONKeyPathValue.value(at: "next", in: Data(#"{"next": "x""#.utf8)) == nil)
        #expect(JSONKeyPathValue.value(at: "next", in: Data()) == nil)
    }
}
