import Foundation
import Testing

@testable import StashREST

/// `Link` headers as servers send them (RFC 8288): GitHub's, and the variations the RFC allows.
@Suite struct LinkHeaderTests {
    let base = URL(string: "https://api.example.com/v1/items?page=1")!

    func next(_ header: String) -> String? {
        LinkHeader(header).url(for: "next", relativeTo: base)?.absoluteString
    }

    @Test func githubsHeader() {
        let header =
            #"<https://api.github.com/repositories/1/issues?page=2>; rel="next", "#
            + #"<https://api.github.com/repositories/1/issues?page=5>; rel="last""#
        #expect(next(header) == "https://api.github.com/repositories/1/issues?page=2")
        #expect(
            LinkHeader(header).url(for: "last", relativeTo: base)?.absoluteString
                == "https://api.github.com/repositories/1/issues?page=5")
    }

    @Test func variationsTheRFCAllows() {
        // Several relations in one value, any case, unquoted.
        #expect(next(#"<https://a.example/2>; rel="prev next""#) == "https://a.example/2")
        #expect(next(#"<https://a.example/2>; REL=Next"#) == "https://a.example/2")
        // A relative target resolves against the request's URL.
        #expect(next(#"</v1/items?page=2>; rel="next""#) == "https://api.example.com/v1/items?page=2")
        // Commas and semicolons inside the target or a quoted parameter are not separators.
        #expect(next(#"<https://a.example/x,y;z>; rel="next""#) == "https://a.example/x,y;z")
        #expect(
            next(
                #"<https://a.example/1>; title="page 1, rel=next; really"; rel="first", <https://a.example/2>; rel=next"#
            )
                == "https://a.example/2")
        #expect(next(#"<https://a.example/1>; title="see; rel=next""#) == nil)
        // No next: the last page.
        #expect(next(#"<https://a.example/1>; rel="first", <https://a.example/1>; rel="prev""#) == nil)
        #expect(next("") == nil)
        #expect(next("garbage") == nil)
    }
}
