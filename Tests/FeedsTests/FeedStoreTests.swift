import Foundation
import Stash
import Testing

@testable import Feeds

@Suite struct FeedStoreTests {
    @Test func theStoreIsFoundAsTheOptionTheEnvironmentAndXDGSay() {
        let home = ["HOME": "/home/ada"]
        #expect(FeedStore.location(option: "/tmp/a.sqlite", environment: home).path == "/tmp/a.sqlite")
        #expect(
            FeedStore.location(option: nil, environment: home.merging(["FEEDS_STORE": "/tmp/b.sqlite"]) { $1 }).path
                == "/tmp/b.sqlite")
        #expect(
            FeedStore.location(option: nil, environment: home.merging(["XDG_DATA_HOME": "/x"]) { $1 }).path
                == "/x/feeds/feeds.sqlite")
        #expect(FeedStore.location(option: nil, environment: home).path == "/home/ada/.local/share/feeds/feeds.sqlite")
        // A relative XDG_DATA_HOME is invalid by the spec and ignored.
        #expect(
            FeedStore.location(option: nil, environment: home.merging(["XDG_DATA_HOME": "x"]) { $1 }).path
                == "/home/ada/.local/share/feeds/feeds.sqlite")
    }

    @Test func aFeedsEntryIsUniquePerFeedAndIdentity() throws {
        let container = try FeedStore.container(at: nil)
        let context = ManagedObjectContext(container)
        let feed = Feed(context: context)
        feed.url = "https://example.com/feed.xml"
        let entry = Entry(context: context)
        entry.feed = feed
        entry.identity = "1"
        entry.read = true
        try context.save()
        let again = Entry(context: context)
        again.feed = feed
        again.identity = "1"
        again.title = "Hello"
        try context.save()
        let entries = try context.fetch(FetchDescriptor<Entry>())
        #expect(entries.count == 1)
        #expect(entries.first?.read == true)
        #expect(entries.first?.title == "Hello")
    }
}
