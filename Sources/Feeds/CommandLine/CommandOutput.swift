import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command writes: stdout, stderr, and whether stderr is a terminal (only then does
/// `feeds refresh` draw a progress line). Tests pass closures that collect the text.
public struct CommandOutput: Sendable {
    public var standardOutput: @Sendable (String) -> Void
    public var standardError: @Sendable (String) -> Void
    public var isTerminal: Bool

    public init(
        isTerminal: Bool, standardOutput: @escaping @Sendable (String) -> Void,
        standardError: @escaping @Sendable (String) -> Void
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.isTerminal = isTerminal
    }

    /// The process's own stdout and stderr, written unbuffered.
    public static var process: CommandOutput {
        CommandOutput(
            isTerminal: isatty(STDERR_FILENO) == 1,
            standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
            standardError: { FileHandle.standardError.write(Data($0.utf8)) })
    }
}
