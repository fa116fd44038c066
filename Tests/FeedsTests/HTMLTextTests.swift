import Testing

@testable import Feeds

/// HTML reduced to its words: what search indexes and titles show.
@Suite struct HTMLTextTests {
    @Test func tagsGoAndWordsOnlyInAttributesAreAbsent() {
        let text = HTMLText.plainText(
            #"<p class="secretclass" title="hiddentitle">Visible <a href="https://hiddenhost.example/">link</a><img alt="hiddenalt" src="x.png"></p>"#
        )
        #expect(text == "Visible link")
        for hidden in ["secretclass", "hiddentitle", "hiddenhost", "hiddenalt", "href", "img"] {
            #expect(!text.contains(hidden))
        }
    }

    @Test func scriptAndStyleContentsAreDropped() {
        #expect(HTMLText.plainText("a<script>var hiddenscript = 1;</script> b<style>.hiddenstyle{}</style>") == "a b")
        #expect(HTMLText.plainText("<noscript>x</noscript><template>y</template>z") == "z")
    }

    @Test func entitiesAreDecodedAndWhitespaceCollapsed() {
        #expect(HTMLText.plainText("  Caf&eacute;&nbsp;&amp;\n\n\t&#8220;bar&#x201D;  ") == "Café & “bar”")
        #expect(HTMLText.plainText("one<br>two<p>three</p>four") == "one two three four")
        #expect(HTMLText.plainText("a < b and c > d") == "a < b and c > d")
        #expect(HTMLText.plainText("") == "")
        #expect(HTMLText.plainText("<b></b>") == "")
    }

    @Test func inlineTagsDoNotSplitWords() {
        #expect(HTMLText.plainText("un<b>break</b>able") == "unbreakable")
    }

    @Test func theTokenizerReadsWhatBrowsersRead() {
        let tokens = HTMLTokenizer.tokens(#"<A HREF=x Title='t'>&lt;<!-- c --></a><br/>"#)
        #expect(
            tokens == [
                .start(name: "a", attributes: [("href", "x"), ("title", "t")], selfClosing: false), .text("<"),
                .ignorable, .end(name: "a"), .start(name: "br", attributes: [], selfClosing: true),
            ])
        #expect(HTMLEntities.decode("&#106&#97;&#X41;&amp&lt;") == "jaA&amp<")
        #expect(HTMLEntities.decode("&#0;&#xD800;&#99999999;") == "&#0;&#xD800;&#99999999;")
    }
}
