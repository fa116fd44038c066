import Foundation
import Stash
import Testing

@testable import Feeds

@Suite struct CommandLineParserTests {
    private func run(_ arguments: [String]) throws -> ParsedCommand {
        guard case .run(let command) = try CommandLineParser.parse(arguments) else {
            Issue.record("\(arguments) asked for help")
            throw UsageError("help")
        }
        return command
    }

    private func usageError(_ arguments: [String]) -> UsageError? {
        do {
            _ = try CommandLineParser.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyCommandTakesItsArguments() throws {
        let url = "https://example.com/feed.xml"
        #expect(try run(["add", url]).positionals == [url])
        #expect(try run(["add", url]).id == .add)
        #expect(try run(["remove", url]).id == .remove)
        #expect(try run(["list", "--json"]).flags == ["json"])
        #expect(try run(["refresh"]).positionals == [])
        #expect(try run(["refresh", url, "--json"]).positionals == [url])
        let entries = try run([
            "entries", "--unread", "--starred", "--feed", url, "--since", "2026-11-05", "--limit", "5", "--json",
        ])
        #expect(entries.flags == ["unread", "starred", "json"])
        #expect(entries.value("feed") == url)
        #expect(entries.value("since") == "2026-11-05")
        #expect(entries.value("limit") == "5")
        #expect(try run(["show", "42"]).ids == [42])
        #expect(try run(["read", "1", "2", "3"]).ids == [1, 2, 3])
        #expect(try run(["read", "--feed", url]).value("feed") == url)
        #expect(try run(["unread", "7"]).id == .unread)
        #expect(try run(["star", "7", "8"]).ids == [7, 8])
        #expect(try run(["unstar", "8"]).id == .unstar)
        #expect(try run(["delete", "9", "10"]).ids == [9, 10])
        #expect(try run(["search", "sourdough bread", "--json"]).positionals == ["sourdough bread"])
        let bookmark = try run(["bookmark", "add", url, "--tag", "Swift", "--tag=linux", "--note", "read later"])
        #expect(bookmark.id == .bookmarkAdd)
        #expect(bookmark.values("tag") == ["Swift", "linux"])
        #expect(bookmark.value("note") == "read later")
        #expect(try run(["bookmark", "remove", url]).id == .bookmarkRemove)
        #expect(try run(["bookmarks", "--tag", "swift", "--json"]).value("tag") == "swift")
        let imported = try run(["bookmarks", "import", url, "--token", "secret"])
        #expect(imported.id == .bookmarksImport)
        #expect(imported.value("token") == "secret")
        #expect(try run(["opml", "import", "subs.opml"]).positionals == ["subs.opml"])
        #expect(try run(["opml", "export"]).id == .opmlExport)
        #expect(try run(["demo"]).id == .demo)
    }

    @Test func theStoreMayComeBeforeOrAfterTheCommand() throws {
        #expect(try run(["--store", "/tmp/a.sqlite", "list"]).store == "/tmp/a.sqlite")
        #expect(try run(["list", "--store", "/tmp/b.sqlite"]).store == "/tmp/b.sqlite")
        #expect(try run(["--store=/tmp/c.sqlite", "bookmark", "add", "https://a.example"]).store == "/tmp/c.sqlite")
        #expect(try run(["bookmark", "add", "https://a.example", "--store=/tmp/d.sqlite"]).store == "/tmp/d.sqlite")
        #expect(try run(["list"]).store == nil)
        #expect(usageError(["list", "--store"])?.message == "--store needs a value (PATH)")
        #expect(usageError(["--store=", "list"])?.message == "--store needs a value (PATH)")
        #expect(usageError(["--store", "a", "list", "--store", "b"])?.message == "--store given more than once")
    }

    @Test func aDoubleDashEndsTheOptions() throws {
        let command = try run(["search", "--", "--json"])
        #expect(command.positionals == ["--json"])
        #expect(command.flags.isEmpty)
    }

    @Test func mistakesAreUsageErrorsNamingTheProblem() {
        let unknown = usageError(["list", "--bogus"])
        #expect(unknown?.message == "unknown option --bogus")
        #expect(unknown?.command?.id == .list)
        #expect(usageError(["add"])?.message == "missing argument URL")
        #expect(usageError(["add", "a", "b"])?.message == "unexpected argument 'b'")
        #expect(usageError(["show", "x1"])?.message == "ID must be an entry id (a whole number), not 'x1'")
        #expect(usageError(["read"])?.message == "missing argument ID (or --feed URL)")
        #expect(usageError(["read", "1", "--feed", "u"])?.message == "unexpected argument '1' with --feed")
        #expect(usageError(["entries", "--limit"])?.message == "--limit needs a value (N)")
        #expect(
            usageError(["entries", "--limit", "ten"])?.message == "--limit must be a positive whole number, not 'ten'")
        #expect(usageError(["entries", "--since", "yesterday"])?.command?.id == .entries)
        #expect(usageError(["entries", "--feed", "a", "--feed", "b"])?.message == "--feed given more than once")
        #expect(usageError(["list", "--json=yes"])?.message == "--json takes no value")
        #expect(usageError(["bogus"])?.message == "unknown command 'bogus'")
        #expect(usageError(["bookmark"])?.message == "'bookmark' needs one of: add, remove, tag")
        #expect(
            usageError(["opml", "print"])?.message
                == "unknown command 'opml print' (try 'opml import' or 'opml export')")
        #expect(usageError([])?.message == "no command given")
        #expect(usageError(["--json", "list"])?.message == "unknown option --json (options come after the command)")
        #expect(usageError(["list", "-x"])?.message == "unknown option -x")
    }

    @Test func aUsageErrorExitsWithTwoAndPrintsTheUsageLineOnStderr() async {
        let collected = CollectedOutput()
        let status = await FeedsCommand.run(["list", "--bogus"], environment: [:], output: collected.output)
        #expect(status == 2)
        #expect(collected.standardOutput == "")
        #expect(
            collected.standardError
                == "feeds: unknown option --bogus\nUsage: feeds list [--json] [--store PATH]\nRun 'feeds help list' for more.\n"
        )
    }

    @Test func helpIsGeneratedForEveryCommandFromTheTable() async throws {
        for spec in CommandTable.commands {
            #expect(try CommandLineParser.parse(spec.words + ["--help"]) == .help(spec))
            #expect(try CommandLineParser.parse(["help"] + spec.words) == .help(spec))
            #expect(try CommandLineParser.parse(["--store", "x"] + spec.words + ["-h"]) == .help(spec))
            let text = HelpText.command(spec)
            #expect(text.hasPrefix("Usage: feeds \(spec.name)"))
            #expect(text.contains(spec.summary))
            for option in spec.options { #expect(text.contains("--\(option.name)")) }
            for positional in spec.positionals { #expect(text.contains(positional.name)) }
            #expect(HelpText.overview().contains("  \(spec.name) "))

            let collected = CollectedOutput()
            #expect(await FeedsCommand.run(["help"] + spec.words, environment: [:], output: collected.output) == 0)
            #expect(collected.standardOutput == text)
        }
        #expect(try CommandLineParser.parse(["--help"]) == .help(nil))
        #expect(try CommandLineParser.parse(["help"]) == .help(nil))
        #expect(
            HelpText.usage(CommandTable.command(.bookmarkAdd))
                == "Usage: feeds bookmark add URL [--tag T]... [--note TEXT] [--store PATH]")
        #expect(HelpText.usage(CommandTable.command(.read)) == "Usage: feeds read (ID... | --feed URL) [--store PATH]")
        #expect(HelpText.usage(CommandTable.command(.refresh)) == "Usage: feeds refresh [URL] [--json] [--store PATH]")
    }

    @Test func everyCommandIDHasOneTableEntry() {
        for id in CommandID.allCases {
            #expect(CommandTable.commands.filter { $0.id == id }.count == 1, "\(id)")
        }
        #expect(Set(CommandTable.commands.map(\.words)).count == CommandTable.commands.count)
    }

    @Test func sinceTakesADateOrADateTimeInUTCUnlessAZoneIsGiven() {
        func iso(_ text: String) -> String? { DateArgument.parse(text).map { $0.formatted(.iso8601) } }
        #expect(iso("2026-11-05") == "2026-11-05T00:00:00Z")
        #expect(iso("2026-11-05T14:30") == "2026-11-05T14:30:00Z")
        #expect(iso("2026-11-05T14:30:15") == "2026-11-05T14:30:15Z")
        #expect(iso("2026-11-05T14:30:15Z") == "2026-11-05T14:30:15Z")
        #expect(iso("2026-11-05T14:30:15+02:00") == "2026-11-05T12:30:15Z")
        #expect(iso("2026-11-05T14:30:15-0130") == "2026-11-05T16:00:15Z")
        #expect(iso("2026-11-05 14:30:15.5Z") == "2026-11-05T14:30:15Z")
        #expect(iso("2026-02-30") == nil)
        #expect(iso("2026-13-01") == nil)
        #expect(iso("2026-11-05T25:00") == nil)
        #expect(iso("yesterday") == nil)
        #expect(iso("2026-11-05T14:30:15Zjunk") == nil)
    }
}

/// Collects what a command writes, for tests.
final class CollectedOutput: Sendable {
    private let text = Locked<(out: String, err: String)>(("", ""))

    var standardOutput: String { text.withLock { $0.out } }
    var standardError: String { text.withLock { $0.err } }

    var output: CommandOutput {
        CommandOutput(
            isTerminal: false,
            standardOutput: { line in self.text.withLock { $0.out += line } },
            standardError: { line in self.text.withLock { $0.err += line } })
    }
}
