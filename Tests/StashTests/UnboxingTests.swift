import Foundation
import Testing

@testable import Stash

/// `unboxed` reads a value straight out of an `Any` only when the runtime keeps it inline;
/// every other value must come out through `as!` unchanged.
@Suite struct UnboxingTests {
    private final class Node {
        let name: String
        init(_ name: String) { self.name = name }
    }
    private final class Holder {}
    /// Four words: too big for an existential's buffer, so the runtime boxes it.
    private struct Wide: Equatable {
        var a = 1, b = 2, c = 3, d = 4
    }
    /// Small, but not bitwise-takable: the runtime keeps it out of the inline buffer.
    private struct WeakPair {
        weak var holder: Holder?
        var tag: Int
    }
    private enum Payload: Equatable {
        case none
        case text(String)
        case pair(Int, Int)
    }

    @Test func inlineValuesComeOutAsTheyWentIn() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let uuid = UUID()
        let url = URL(string: "https://example.com/a?b=c")!
        #expect(unboxed(42 as Any, as: Int.self) == 42)
        #expect(
            unboxed("a longer string than fits in sixteen bytes" as Any, as: String.self)
                == "a longer string than fits in sixteen bytes")
        #expect(unboxed("small" as Any, as: String.self) == "small")
        #expect(unboxed(date as Any, as: Date.self) == date)
        #expect(unboxed(uuid as Any, as: UUID.self) == uuid)
        #expect(unboxed(url as Any, as: URL.self) == url)
        #expect(unboxed(Decimal(string: "12.345")! as Any, as: Decimal.self) == Decimal(string: "12.345")!)
        #expect(unboxed(Data([1, 2, 3]) as Any, as: Data.self) == Data([1, 2, 3]))
        #expect(unboxed(true as Any, as: Bool.self))
        #expect(unboxed(Payload.text("x") as Any, as: Payload.self) == .text("x"))
        #expect(unboxed(Payload.pair(3, 4) as Any, as: Payload.self) == .pair(3, 4))
    }

    @Test func optionalsComeOutWhetherBoxedWrappedOrNot() {
        #expect(unboxed(String?.some("x") as Any, as: String?.self) == "x")
        #expect(unboxed(String?.none as Any, as: String?.self) == nil)
        // A plain `String` asked for as `String?`: not the same type, so `as!` wraps it.
        #expect(unboxed("x" as Any, as: String?.self) == "x")
        #expect(unboxed(Date?.none as Any, as: Date?.self) == nil)
    }

    @Test func valuesTheRuntimeBoxesComeOutThroughTheCast() {
        #expect(unboxed(Wide() as Any, as: Wide.self) == Wide())
        let holder = Holder()
        let pair = unboxed(WeakPair(holder: holder, tag: 7) as Any, as: WeakPair.self)
        #expect(pair.tag == 7)
        #expect(pair.holder === holder)
    }

    /// A load that forgot its retain would crash here; one retain too many would keep the
    /// node alive after its last reference is gone.
    @Test func referencesKeepTheirIdentityAndCount() {
        weak var released: Node?
        do {
            let node = Node("n")
            released = node
            let boxed: Any = node
            for _ in 0..<1_000 { _ = unboxed(boxed, as: Node.self) }
            #expect(unboxed(boxed, as: Node.self) === node)
            #expect(unboxed(boxed, as: Node.self).name == "n")
        }
        #expect(released == nil)
    }
}
