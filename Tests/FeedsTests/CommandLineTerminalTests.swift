import Testing

@testable import Feeds

/// What reaches a terminal from a feed: one line where one line is meant, no control
/// characters, and JSON that escapes every control character.
@Suite struct CommandLineTerminalTests {
    @Test func oneLineJoinsLinesWithOneSpace() {
        #expect(FeedsText.oneLine("plain") == "plain")
        #expect(FeedsText.oneLine("a\nb") == "a b")
        #expect(FeedsText.oneLine("a  \r\n  b\u{2028}c\u{85}d") == "a b c d")
        #expect(FeedsText.oneLine("\nlead and trail\n") == "lead and trail")
        #expect(FeedsText.oneLine("    last error: x") == "    last error: x")
    }

    @Test func terminalSafeKeepsNewlineAndTabOnly() {
        #expect(FeedsText.terminalSafe("a\tb\nc") == "a\tb\nc")
        #expect(FeedsText.terminalSafe("Eve\u{1B}[2J\u{1B}]0;owned\u{07}\r\u{7F}\u{9B}2J!") == "Eve[2J]0;owned2J!")
        #expect(FeedsText.terminalSafe("café 🦊") == "café 🦊")
    }

    @Test func jsonEscapesDELAndC1AsWellAsC0() {
        #expect(JSONValue.string("a\u{1B}b\u{7F}c\u{9B}d").rendered() == #""a\u001bb\u007fc\u009bd""#)
        #expect(JSONValue.string("é\u{A0}").rendered() == "\"é\u{A0}\"")
    }
}
