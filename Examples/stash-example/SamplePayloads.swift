import Foundation

/// Two responses of an imaginary articles API, written for this example. The second is
/// a later fetch: one title changed, one article is new, and `read` is never sent.
enum SamplePayloads {
    static let firstFetch = Data(
        #"""
        [
          {"id": 1, "title": "Decoding JSON straight into a store", "url": "https://example.com/articles/1",
           "summary": "One model class, no mapping layer.", "published_at": "2026-11-02T09:00:00Z",
           "tags": ["swift", "persistence"]},
          {"id": 2, "title": "Why upserts need a unique key", "url": "https://example.com/articles/2",
           "summary": null, "published_at": "2026-11-05T14:30:00Z", "tags": ["sqlite"]},
          {"id": 3, "title": "Reading a store with the sqlite3 shell", "url": "https://example.com/articles/3",
           "published_at": "2026-11-09T08:15:00Z"},
          {"id": 4, "title": "Atomic saves, explained", "url": "https://example.com/articles/4",
           "summary": "All of it, or none of it.", "published_at": "2026-11-12T17:45:00Z",
           "tags": ["sqlite", "transactions"]}
        ]
        """#.utf8)

    static let laterFetch = Data(
        #"""
        [
          {"id": 2, "title": "Why upserts need a unique key (updated)", "url": "https://example.com/articles/2",
           "published_at": "2026-11-05T14:30:00Z", "tags": ["sqlite", "upsert"]},
          {"id": 5, "title": "Schema changes without losing data", "url": "https://example.com/articles/5",
           "summary": "Add an attribute, open the store, done.", "published_at": "2026-11-20T10:00:00Z"}
        ]
        """#.utf8)
}
