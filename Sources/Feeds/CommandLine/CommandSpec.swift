/// One command of `feeds` as the command table declares it: the parser, the usage line and
/// the help text are all read from this, so they cannot disagree.
public struct CommandSpec: Sendable, Equatable {
    /// How many values a positional takes.
    public enum Arity: Sendable, Equatable {
        case one
        case optional
        case oneOrMore
    }

    /// What a value must look like; checked by the parser, so a bad value is a usage error.
    public enum ValueKind: Sendable, Equatable {
        case text
        /// A positive whole number.
        case count
        /// An entry id: a whole number.
        case id
        /// An ISO 8601 date or date-time (`DateArgument`).
        case date
    }

    public struct Positional: Sendable, Equatable {
        /// As the usage line shows it: `URL`, `ID`.
        public var name: String
        public var arity: Arity
        public var kind: ValueKind
        public var help: String

        public init(_ name: String, _ arity: Arity = .one, kind: ValueKind = .text, help: String) {
            self.name = name
            self.arity = arity
            self.kind = kind
            self.help = help
        }
    }

    public struct Option: Sendable, Equatable {
        /// Without the dashes: `tag` for `--tag`.
        public var name: String
        /// `nil` for a flag; else what the usage line calls the value (`T`, `URL`).
        public var valueName: String?
        /// May be given more than once (`--tag a --tag b`).
        public var repeatable: Bool
        public var kind: ValueKind
        public var help: String

        public init(
            _ name: String, value valueName: String? = nil, repeatable: Bool = false, kind: ValueKind = .text,
            help: String
        ) {
            self.name = name
            self.valueName = valueName
            self.repeatable = repeatable
            self.kind = kind
            self.help = help
        }

        public var isFlag: Bool { valueName == nil }
    }

    public var id: CommandID
    /// One or two words: `["list"]`, `["bookmark", "add"]`.
    public var words: [String]
    /// One line, for the command list of `feeds --help`.
    public var summary: String
    /// More text for `feeds help COMMAND`, or `""`.
    public var details: String
    public var positionals: [Positional]
    public var options: [Option]
    /// An option that stands in for the positionals: `feeds read --feed URL` instead of
    /// `feeds read ID...`. Given, the positionals must be absent; absent, they are required.
    public var alternative: String?

    public init(
        _ id: CommandID, _ words: [String], summary: String, details: String = "", positionals: [Positional] = [],
        options: [Option] = [], alternative: String? = nil
    ) {
        self.id = id
        self.words = words
        self.summary = summary
        self.details = details
        self.positionals = positionals
        self.options = options
        self.alternative = alternative
    }

    /// `bookmark add`.
    public var name: String { words.joined(separator: " ") }

    public func option(named name: String) -> Option? {
        options.first { $0.name == name }
    }
}

/// Which handler runs a command; the table maps words to these.
public enum CommandID: String, Sendable, Equatable, CaseIterable {
    case add
    case remove
    case list
    case refresh
    case entries
    case show
    case read
    case unread
    case star
    case unstar
    case delete
    case search
    case bookmarkAdd
    case bookmarkRemove
    case bookmarkTag
    case bookmarks
    case bookmarksImport
    case bookmarksPush
    case status
    case opmlImport
    case opmlExport
    case demo
    case help
}
