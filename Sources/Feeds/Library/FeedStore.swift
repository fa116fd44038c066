import Foundation
import Stash

/// Where a feeds store lives and how it is opened.
public enum FeedStore {
    /// A container for the feeds models at `url` (made, with its folder, when missing), or
    /// in memory when `url` is `nil`.
    public static func container(at url: URL?) throws -> PersistentContainer {
        guard let url else {
            return try PersistentContainer(
                for: Feed.self, Entry.self, Bookmark.self, Tag.self, Folder.self, Setting.self, inMemory: true)
        }
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        return try PersistentContainer(
            for: Feed.self, Entry.self, Bookmark.self, Tag.self, Folder.self, Setting.self, storeURL: url)
    }

    /// `--store PATH`, else `FEEDS_STORE`, else `$XDG_DATA_HOME/feeds/feeds.sqlite`, else
    /// `~/.local/share/feeds/feeds.sqlite`.
    public static func location(option: String?, environment: [String: String]) -> URL {
        if let option, !option.isEmpty { return URL(fileURLWithPath: option) }
        if let path = environment["FEEDS_STORE"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let data: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            data = URL(fileURLWithPath: xdg)
        } else {
            let home =
                environment["HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            data = home.appendingPathComponent(".local/share")
        }
        return data.appendingPathComponent("feeds/feeds.sqlite")
    }
}
