import Foundation

extension ChildProcess {
    /// An executable of this package built beside the running tests (`stash-worker`), or an
    /// error that says to build it.
    public static func sibling(named name: String) throws -> URL {
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let sibling = running.deletingLastPathComponent().appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: sibling.path) else {
            throw CocoaError(
                .fileNoSuchFile,
                userInfo: [NSLocalizedDescriptionKey: "no \(name) beside the tests at \(sibling.path): swift build"])
        }
        return sibling
    }
}
