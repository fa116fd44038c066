import Foundation

/// Runs one `feeds` command line: parses it, opens the store, calls `FeedLibrary` and prints
/// the answer. `main.swift` is only a call to `run`.
public enum FeedsCommand {
    public static let success: Int32 = 0
    /// Something asked for failed (a feed, an id, a file); the error is on stderr.
    public static let failure: Int32 = 1
    public static let usageError: Int32 = 2

    public static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) async -> Int32 {
        let request: CommandLineRequest
        do {
            request = try CommandLineParser.parse(arguments)
        } catch {
            output.standardError(HelpText.error(error))
            return usageError
        }
        switch request {
        case .help(nil):
            output.standardOutput(HelpText.overview())
            return success
        case .help(let spec?):
            output.standardOutput(HelpText.command(spec))
            return success
        case .run(let command):
            return await run(command, environment: environment, output: output)
        }
    }

    /// A parsed command: the store opened (but for `demo` and `help`), then its handler.
    public static func run(_ command: ParsedCommand, environment: [String: String], output: CommandOutput) async
        -> Int32
    {
        switch command.id {
        case .help:
            let words = command.positionals.flatMap { $0.split(separator: " ").map(String.init) }
            output.standardOutput(CommandTable.command(words).map(HelpText.command) ?? HelpText.overview())
            return success
        case .demo:
            let store = command.store.map { URL(fileURLWithPath: $0) }
            return await DemoRun.run(store: store, output: output)
        default:
            break
        }
        let location = FeedStore.location(option: command.store, environment: environment)
        let library: FeedLibrary
        do {
            library = try FeedLibrary(storeURL: location)
        } catch {
            output.standardError("feeds: cannot open the store at \(location.path): \(error)\n")
            return failure
        }
        let handler = CommandHandler(library: library, command: command, output: output)
        do {
            return try await handler.run()
        } catch {
            output.standardError("feeds: \(FeedsText.terminalSafe(handler.describe(error)))\n")
            return failure
        }
    }
}
