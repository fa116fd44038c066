import Foundation

/// `feeds --help`, `feeds help COMMAND` and usage lines, generated from `CommandTable`.
public enum HelpText {
    /// `Usage: feeds read (ID... | --feed URL) [--store PATH]`.
    public static func usage(_ spec: CommandSpec) -> String {
        var parts = ["feeds"] + spec.words
        var positionals = spec.positionals.map { positional -> String in
            switch positional.arity {
            case .one: positional.name
            case .optional: "[\(positional.name)]"
            case .oneOrMore: "\(positional.name)..."
            }
        }
        var options = spec.options
        if let alternative = spec.alternative, let option = spec.option(named: alternative) {
            positionals = ["(\(positionals.joined(separator: " ")) | \(flagText(option)))"]
            options.removeAll { $0.name == alternative }
        }
        parts += positionals
        for option in options {
            parts.append("[\(flagText(option))]\(option.repeatable ? "..." : "")")
        }
        parts.append("[\(flagText(CommandTable.store))]")
        return "Usage: " + parts.joined(separator: " ")
    }

    /// The whole help of one command: usage, what it does, its arguments and options.
    public static func command(_ spec: CommandSpec) -> String {
        var lines = [usage(spec), "", spec.summary]
        if !spec.details.isEmpty { lines.append(spec.details) }
        if !spec.positionals.isEmpty {
            lines += ["", "Arguments:"]
            lines += table(spec.positionals.map { ($0.name, $0.help) })
        }
        lines += ["", "Options:"]
        let options = spec.options + [CommandTable.store, CommandSpec.Option("help", help: "Show this help.")]
        lines += table(options.map { (flagText($0), $0.help) })
        return lines.joined(separator: "\n") + "\n"
    }

    /// `feeds --help`: every command of the table with its summary.
    public static func overview() -> String {
        var lines = [
            "feeds: a bookmarks and RSS / Atom / JSON Feed manager.",
            "",
            "Usage: feeds COMMAND [ARGUMENTS] [OPTIONS] [--store PATH]",
            "",
            "Commands:",
        ]
        lines += table(CommandTable.commands.map { ($0.name, $0.summary) })
        lines += [
            "",
            "Options for every command:",
        ]
        lines += table([
            (flagText(CommandTable.store), CommandTable.store.help), ("--help", "Show help (feeds help COMMAND)."),
        ])
        lines += ["", "Exit status: 0 success, 1 something asked for failed, 2 usage error."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// What a usage error prints on stderr.
    public static func error(_ error: UsageError) -> String {
        var lines = ["feeds: \(error.message)"]
        if let spec = error.command {
            lines.append(usage(spec))
            lines.append("Run 'feeds help \(spec.name)' for more.")
        } else {
            lines.append("Usage: feeds COMMAND [ARGUMENTS] [OPTIONS] [--store PATH]")
            lines.append("Run 'feeds --help' for the commands.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func flagText(_ option: CommandSpec.Option) -> String {
        option.valueName.map { "--\(option.name) \($0)" } ?? "--\(option.name)"
    }

    private static func table(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { "  " + $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }
    }
}
