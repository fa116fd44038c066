import Feeds
import Foundation

// Parsing, the handlers and the formatting live in Feeds/CommandLine, where tests reach them.
let status = await FeedsCommand.run(
    Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment, output: .process)
exit(status)
