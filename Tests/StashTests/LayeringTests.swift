import Foundation
import Testing

/// The layers of DESIGN.md hold in the source tree: SQLite stays in its folder.
@Suite struct LayeringTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// Every Swift file under `Sources/`, as a path relative to it and its text.
    static func swiftFiles() throws -> [(path: String, text: String)] {
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var files: [(String, String)] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let path = String(url.path.dropFirst(sources.path.count + 1))
            files.append((path, try String(contentsOf: url, encoding: .utf8)))
        }
        return files
    }

    @Test func onlyTheSQLiteFolderImportsCSQLite() throws {
        let files = try Self.swiftFiles()
        #expect(files.count > 20)
        let importers = files.filter { $0.text.contains("import CSQLite") }.map(\.path)
        #expect(!importers.isEmpty)
        #expect(importers.allSatisfy { $0.hasPrefix("Stash/SQLite/") }, "CSQLite imported by \(importers)")
    }

    @Test func onlyStashPostgresImportsLibPQ() throws {
        let importers = try Self.swiftFiles().filter { $0.text.contains("import CLibPQ") }.map(\.path)
        #expect(!importers.isEmpty)
        #expect(importers.allSatisfy { $0.hasPrefix("StashPostgres/") }, "CLibPQ imported by \(importers)")
    }

    @Test func onlyTheSQLiteFolderSpeaksSQL() throws {
        let statements = ["SELECT ", "INSERT INTO", "UPDATE \"", "DELETE FROM", "CREATE TABLE", "PRAGMA "]
        let speakers = try Self.swiftFiles().filter { file in
            !file.path.hasPrefix("Stash/SQLite/") && file.path.hasPrefix("Stash/")
                && file.text.split(separator: "\n").contains { line in
                    // Doc comments may show the SQL a call leads to; code may not build it.
                    !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
                        && statements.contains { line.contains($0) }
                }
        }
        #expect(speakers.isEmpty, "SQL outside Sources/Stash/SQLite: \(speakers.map(\.path))")
    }
}
