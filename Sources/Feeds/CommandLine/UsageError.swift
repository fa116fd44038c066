/// A command line `feeds` cannot run: printed on stderr with the command's usage line, exit 2.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the option or argument: `unknown option --bogus`.
    public var message: String
    /// The command it was about, when one was recognised (its usage line is printed).
    public var command: CommandSpec?

    public init(_ message: String, command: CommandSpec? = nil) {
        self.message = message
        self.command = command
    }

    public var description: String { message }
}
