import Foundation

/// Where `../shared/fixtures` is, if this checkout has it beside it (read in place, never
/// copied into the repository).
enum FeedFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures")

    static var available: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("README.md").path)
    }

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(path))
    }

    /// The files of a fixtures folder, sorted.
    static func files(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(folder).path).sorted()
    }
}

/// The instant an RFC 3339 UTC string names, for expectations written as the feed writes them.
func instant(_ text: String) -> Date {
    let parts = text.split(whereSeparator: { "-T:Z".contains($0) }).map { Int($0)! }
    var components = DateComponents()
    (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
    (components.hour, components.minute, components.second) = (parts[3], parts[4], parts[5])
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: components)!
}
