import Testing

@testable import Feeds

/// `XMLRecovery`'s repairs, on the text it hands `XMLParser`.
@Suite struct ParsingRecoveryTests {
    @Test func referencesAreRepairedOutsideCDATAAndComments() {
        let (document, root) = XMLRecovery.prepare(
            #"<?xml version="1.0" encoding="ISO-8859-1"?><rss a="x&y"><!-- & --><![CDATA[a & b &nbsp;]]>&nbsp;&bogus;&#0;&#233;&amp;&lt;</rss>"#
        )
        #expect(root == "rss")
        #expect(
            document
                == #"<?xml version="1.0" encoding="UTF-8"?><rss a="x&amp;y"><!-- & --><![CDATA[a & b &nbsp;]]>&#160;&amp;bogus;&#233;&amp;&lt;</rss>"#
        )
    }

    @Test func theDoctypeGoesWithItsSubsetAndLinesAreKept() {
        let (document, root) = XMLRecovery.prepare(
            "\n<?xml version=\"1.0\"?>\n<!DOCTYPE rdf:RDF [ <!ENTITY a \"]>\">\n<!-- ] > --> ]>\n<rdf:RDF>&a;</rdf:RDF>"
        )
        #expect(root == "rdf:RDF")
        #expect(document == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n\n\n<rdf:RDF>&amp;a;</rdf:RDF>")
    }

    @Test func onlyTheRootsOwnCutEndTagIsRepaired() {
        #expect(XMLRecovery.prepare("<feed></feed").document.hasSuffix("<feed></feed>"))
        #expect(XMLRecovery.prepare("<feed></fee").document.hasSuffix("<feed></fee"))
        #expect(XMLRecovery.prepare("<feed><entry></entry").document.hasSuffix("<entry></entry"))
    }
}
