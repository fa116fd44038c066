import Foundation

/// `feeds demo` (being built).
public enum DemoRun {
    public static func run(store: URL?, output: CommandOutput) async -> Int32 {
        output.standardError("feeds: demo is being built\n")
        return 1
    }
}
