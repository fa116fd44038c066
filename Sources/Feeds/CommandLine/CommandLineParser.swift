/// What a command line asks for: a command to run, or help.
public enum CommandLineRequest: Sendable, Equatable {
    case run(ParsedCommand)
    /// `feeds --help` and `feeds help` (`nil`: the overview), `feeds help COMMAND` and
    /// `feeds COMMAND --help`.
    case help(CommandSpec?)
}

/// Turns `feeds`' arguments into a `CommandLineRequest` using `CommandTable`; anything the
/// table does not allow is a `UsageError` naming the problem.
///
/// For example:
///
///     feeds --store /tmp/f.sqlite bookmark add https://a.example --tag Swift --tag=linux
///     // .run(bookmark add, positionals ["https://a.example"], options ["tag": ["Swift", "linux"]],
///     //      store "/tmp/f.sqlite")
public enum CommandLineParser {
    public static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineRequest {
        var rest: [String] = []
        var store: String?
        var wantsHelp = false
        var index = 0
        var afterDashes = false
        // Global options first: they may stand anywhere before `--`.
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if afterDashes {
                rest.append(argument)
            } else if argument == "--" {
                afterDashes = true
                rest.append(argument)
            } else if argument == "--help" || argument == "-h" {
                wantsHelp = true
            } else if argument == "--store" || argument.hasPrefix("--store=") {
                let value: String
                if argument == "--store" {
                    guard index < arguments.count else { throw UsageError("--store needs a value (PATH)") }
                    value = arguments[index]
                    index += 1
                } else {
                    value = String(argument.dropFirst("--store=".count))
                }
                guard !value.isEmpty else { throw UsageError("--store needs a value (PATH)") }
                guard store == nil else { throw UsageError("--store given more than once") }
                store = value
            } else {
                rest.append(argument)
            }
        }

        guard let first = rest.first, first != "--" else {
            if wantsHelp { return .help(nil) }
            throw UsageError("no command given")
        }
        if first.hasPrefix("-") {
            throw UsageError("unknown option \(first) (options come after the command)")
        }
        if first == "help" {
            let words = rest.dropFirst().filter { !$0.hasPrefix("-") }
            if words.isEmpty { return .help(wantsHelp ? CommandTable.command(.help) : nil) }
            guard let spec = CommandTable.command(Array(words)) else {
                throw UsageError(
                    "unknown command '\(words.joined(separator: " "))'", command: CommandTable.command(.help))
            }
            return .help(spec)
        }

        let spec = try command(at: rest)
        if wantsHelp { return .help(spec) }
        var parsed = try options(Array(rest.dropFirst(spec.words.count)), of: spec)
        parsed.store = store
        return .run(parsed)
    }

    /// The longest table entry the leading words spell.
    private static func command(at words: [String]) throws(UsageError) -> CommandSpec {
        if words.count >= 2, let spec = CommandTable.command(Array(words.prefix(2))) { return spec }
        if let spec = CommandTable.command([words[0]]) { return spec }
        let subcommands = CommandTable.subcommands(of: words[0])
        if !subcommands.isEmpty {
            if words.count >= 2, !words[1].hasPrefix("-") {
                throw UsageError(
                    "unknown command '\(words[0]) \(words[1])' (try \(subcommands.map { "'\(words[0]) \($0)'" }.joined(separator: " or ")))"
                )
            }
            throw UsageError("'\(words[0])' needs one of: \(subcommands.joined(separator: ", "))")
        }
        throw UsageError("unknown command '\(words[0])'")
    }

    /// Options, flags and positionals of one command.
    private static func options(_ arguments: [String], of spec: CommandSpec) throws(UsageError) -> ParsedCommand {
        var parsed = ParsedCommand(spec: spec)
        var index = 0
        var afterDashes = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if afterDashes || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                afterDashes = true
                continue
            }
            guard argument.hasPrefix("--") else {
                // `feeds search -x`: say how to pass text that begins with `-`.
                let hint =
                    spec.positionals.contains { $0.kind == .text }
                    ? " (put -- before an argument that begins with -: feeds \(spec.name) -- \(argument))" : ""
                throw UsageError("unknown option \(argument)\(hint)", command: spec)
            }
            let body = argument.dropFirst(2)
            let name: String
            var inline: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inline = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let option = spec.option(named: name) else {
                throw UsageError("unknown option --\(name)", command: spec)
            }
            if option.isFlag {
                guard inline == nil else { throw UsageError("--\(name) takes no value", command: spec) }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < arguments.count else {
                    throw UsageError("--\(name) needs a value (\(option.valueName ?? "VALUE"))", command: spec)
                }
                value = arguments[index]
                index += 1
            }
            try check(value, as: option.kind, naming: "--\(name)", in: spec)
            if !option.repeatable, parsed.options[name] != nil {
                throw UsageError("--\(name) given more than once", command: spec)
            }
            parsed.options[name, default: []].append(value)
        }
        try checkPositionals(parsed, of: spec)
        return parsed
    }

    private static func checkPositionals(_ parsed: ParsedCommand, of spec: CommandSpec) throws(UsageError) {
        var given = parsed.positionals[...]
        if let alternative = spec.alternative, parsed.options[alternative] != nil {
            if let extra = given.first {
                throw UsageError("unexpected argument '\(extra)' with --\(alternative)", command: spec)
            }
            return
        }
        for positional in spec.positionals {
            switch positional.arity {
            case .one:
                guard let value = given.popFirst() else {
                    let or = spec.alternative.map { " (or --\($0))" } ?? ""
                    throw UsageError("missing argument \(positional.name)\(or)", command: spec)
                }
                try check(value, as: positional.kind, naming: positional.name, in: spec)
            case .optional:
                if let value = given.popFirst() {
                    try check(value, as: positional.kind, naming: positional.name, in: spec)
                }
            case .oneOrMore:
                guard !given.isEmpty else {
                    let or = spec.alternative.map { " (or --\($0) \(spec.option(named: $0)?.valueName ?? ""))" } ?? ""
                    throw UsageError("missing argument \(positional.name)\(or)", command: spec)
                }
                for value in given {
                    try check(value, as: positional.kind, naming: positional.name, in: spec)
                }
                given.removeAll()
            }
        }
        if let extra = given.first {
            throw UsageError("unexpected argument '\(extra)'", command: spec)
        }
    }

    private static func check(
        _ value: String, as kind: CommandSpec.ValueKind, naming name: String, in spec: CommandSpec
    ) throws(UsageError) {
        switch kind {
        case .text:
            return
        case .count:
            guard let number = Int(value), number > 0 else {
                throw UsageError("\(name) must be a positive whole number, not '\(value)'", command: spec)
            }
        case .id:
            guard Int64(value) != nil else {
                throw UsageError("\(name) must be an entry id (a whole number), not '\(value)'", command: spec)
            }
        case .date:
            guard DateArgument.parse(value) != nil else {
                throw UsageError(
                    "\(name) must be an ISO 8601 date or date-time (2026-11-05, 2026-11-05T14:30:00Z), not '\(value)'",
                    command: spec)
            }
        }
    }
}
