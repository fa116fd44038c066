import Foundation

/// A bookmark as the demo server's linkding-style API serves it.
public struct DemoBookmark: Sendable, Equatable {
    public var id: Int
    public var url: String
    public var title: String
    public var description: String
    public var notes: String
    public var tags: [String]
    public var dateAdded: Date

    public init(
        id: Int, url: String, title: String, description: String = "", notes: String = "", tags: [String] = [],
        dateAdded: Date
    ) {
        self.id = id
        self.url = url
        self.title = title
        self.description = description
        self.notes = notes
        self.tags = tags
        self.dateAdded = dateAdded
    }

    /// `{"id", "url", "title", "description", "notes", "tag_names", "date_added"}`.
    var json: JSONValue {
        .object([
            ("id", .number(Int64(id))), ("url", .string(url)), ("title", .string(title)),
            ("description", .string(description)), ("notes", .string(notes)),
            ("tag_names", .array(tags.map { .string($0) })), ("date_added", .date(dateAdded)),
        ])
    }
}
