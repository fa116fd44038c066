import Foundation
import Testing

@testable import Feeds

/// The allow list against the attacks feed content carries.
@Suite struct HTMLSanitizerTests {
    static let base = URL(string: "https://example.com/blog/post")!

    func clean(_ html: String, base: URL? = Self.base) -> String {
        HTMLSanitizer.sanitize(html, baseURL: base)
    }

    @Test func scriptsAndStylesGoWithTheirContent() {
        #expect(clean("a<script>alert('x')</script>b") == "ab")
        #expect(clean("a<SCRIPT type=text/javascript>if (a < b) { document.write('<p>') }</SCRIPT>b") == "ab")
        #expect(clean("a<style>p { color: red }</style>b") == "ab")
        #expect(clean("a<script>never closed <p>gone") == "a")
        #expect(clean("<script/>kept") == "kept")
    }

    @Test func framesObjectsFormsSVGAndMathGoWithTheirContent() {
        #expect(clean(#"x<iframe src="https://evil.example/">inside</iframe>y"#) == "xy")
        #expect(clean(#"<object data="x.swf"><embed src="x.swf">fallback</object>z"#) == "z")
        #expect(clean(#"<form action="/steal"><input name="p">Password</form>ok"#) == "ok")
        #expect(
            clean(#"<svg><svg><script>x()</script></svg><a xlink:href="javascript:x()">t</a></svg>after"#) == "after")
        #expect(clean("<math><mi>x</mi></math>m") == "m")
    }

    @Test func eventHandlersAndStylesAreDropped() {
        #expect(
            clean(#"<img src="a.png" onerror="alert(1)" style="x" alt="A">"#)
                == #"<img src="https://example.com/blog/a.png" alt="A" />"#)
        #expect(clean(#"<p ONCLICK='x()' onmouseover=y()>t</p>"#) == "<p>t</p>")
        #expect(clean(#"<div style="background:url(javascript:x)">d</div>"#) == "<div>d</div>")
    }

    @Test(arguments: [
        #"<a href="javascript:alert(1)">x</a>"#,
        #"<a href="JaVaScRiPt:alert(1)">x</a>"#,
        "<a href=\"java\tscript:alert(1)\">x</a>",
        "<a href=\"java\nscript:alert(1)\">x</a>",
        #"<a href="  javascript:alert(1)">x</a>"#,
        #"<a href="&#106;avascript:alert(1)">x</a>"#,
        #"<a href="&#x6A;avascript:alert(1)">x</a>"#,
        #"<a href="&#106&#97&#118&#97&#115&#99&#114&#105&#112&#116&#58alert(1)">x</a>"#,
        #"<a href="jav&#x09;ascript:alert(1)">x</a>"#,
        #"<a href="javascript&colon;alert(1)">x</a>"#,
        #"<a href="vbscript:msgbox(1)">x</a>"#,
        #"<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>"#,
        "<a href=javascript:alert(1)>x</a>",
        #"<a href='javascript:alert(1)'>x</a>"#,
    ])
    func dangerousURLsAreRemoved(html: String) {
        let output = clean(html)
        #expect(output == "<a>x</a>", "\(html) gave \(output)")
    }

    @Test func safeURLsStayAndRelativeOnesResolve() {
        #expect(
            clean(#"<a href="/about" title="About">a</a>"#)
                == #"<a href="https://example.com/about" title="About">a</a>"#)
        #expect(clean(#"<a href="other">a</a>"#) == #"<a href="https://example.com/blog/other">a</a>"#)
        #expect(clean(#"<a href="mailto:jo@example.com">m</a>"#) == #"<a href="mailto:jo@example.com">m</a>"#)
        #expect(clean(##"<a href="#top">t</a>"##) == ##"<a href="https://example.com/blog/post#top">t</a>"##)
        #expect(clean(#"<a href="/x">no base</a>"#, base: nil) == #"<a href="/x">no base</a>"#)
        #expect(clean(#"<img src="data:image/png;base64,iVBO">"#) == #"<img src="data:image/png;base64,iVBO" />"#)
        #expect(clean(#"<img src="data:image/svg+xml,<svg onload=x()>">"#) == "<img />")
        #expect(
            clean(#"<a href="?q=1&amp;r=2">q</a>"#) == #"<a href="https://example.com/blog/post?q=1&amp;r=2">q</a>"#)
    }

    @Test func unquotedAndOddAttributes() {
        #expect(clean("<a href=/x title=hello>a</a>") == #"<a href="https://example.com/x" title="hello">a</a>"#)
        #expect(
            clean(#"<img src=x.png alt="say "hi"">"#) == #"<img src="https://example.com/blog/x.png" alt="say " />"#)
        #expect(
            clean(#"<abbr title='a "quote" & <tag>'>A</abbr>"#)
                == #"<abbr title="a &quot;quote&quot; &amp; &lt;tag&gt;">A</abbr>"#)
        #expect(clean(#"<a href="/a" href="javascript:x()">dup</a>"#) == #"<a href="https://example.com/a">dup</a>"#)
    }

    @Test func theOutputIsWellFormed() {
        #expect(clean("<p>one<p>two") == "<p>one</p><p>two</p>")
        #expect(clean("<b><i>x</b> y</i>") == "<b><i>x</i></b> y")
        #expect(clean("<ul><li>a<li>b</ul>") == "<ul><li>a</li><li>b</li></ul>")
        #expect(clean("</div>stray</p>") == "stray")
        #expect(clean("a < b && c > d") == "a &lt; b &amp;&amp; c &gt; d")
        #expect(clean("<br><hr/>") == "<br /><hr />")
        #expect(clean("<div><span>open") == "<div><span>open</span></div>")
        #expect(clean("x<!-- <script>alert(1)</script> -->y") == "xy")
        #expect(clean("<custom-tag>text</custom-tag><blink>b</blink>") == "textb")
        #expect(clean("caf&eacute; &amp; &lt;tag&gt; &unknown;") == "café &amp; &lt;tag&gt; &amp;unknown;")
    }

    @Test func theAllowListKeepsStructure() {
        let html = """
            <h2>T</h2><blockquote cite="/q"><p>Q</p></blockquote><pre><code>x</code></pre>\
            <table><thead><tr><th colspan="2">h</th></tr></thead><tbody><tr><td>d</td></tr></tbody></table>\
            <figure><img src="/i.png" width="10" height="20"><figcaption>c</figcaption></figure><time datetime="2026-11-05">d</time>
            """
        let expected = """
            <h2>T</h2><blockquote cite="https://example.com/q"><p>Q</p></blockquote><pre><code>x</code></pre>\
            <table><thead><tr><th colspan="2">h</th></tr></thead><tbody><tr><td>d</td></tr></tbody></table>\
            <figure><img src="https://example.com/i.png" width="10" height="20" /><figcaption>c</figcaption></figure><time datetime="2026-11-05">d</time>
            """
        #expect(clean(html) == expected)
    }
}
