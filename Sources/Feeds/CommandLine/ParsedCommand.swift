import Foundation

/// A command line as the parser understood it: which command, its values checked against
/// the table. Handlers read it and never see raw arguments.
public struct ParsedCommand: Sendable, Equatable {
    public var spec: CommandSpec
    public var positionals: [String]
    /// Options with values, by name, in the order given.
    public var options: [String: [String]]
    /// Flags given, by name.
    public var flags: Set<String>
    /// `--store PATH`, wherever it was given.
    public var store: String?

    public init(
        spec: CommandSpec, positionals: [String] = [], options: [String: [String]] = [:], flags: Set<String> = [],
        store: String? = nil
    ) {
        self.spec = spec
        self.positionals = positionals
        self.options = options
        self.flags = flags
        self.store = store
    }

    public var id: CommandID { spec.id }

    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The last value of `--name`, or `nil`.
    public func value(_ name: String) -> String? { options[name]?.last }

    /// Every value of a repeatable option, in order.
    public func values(_ name: String) -> [String] { options[name] ?? [] }

    /// The positionals as entry ids (the parser has checked they are whole numbers).
    public var ids: [Int64] { positionals.compactMap { Int64($0) } }
}
