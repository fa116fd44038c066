import Foundation
import Stash
import Testing

// Models of real public APIs, decoded from payloads nobody here wrote.

final class Placeholder {
    final class User: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var name: String
        @Attribute var username: String
        @Attribute var email: String
        @Attribute var address: Address
        @Attribute var phone: String
        @Attribute var website: String
        @Attribute var company: Company
    }

    struct Address: Codable, Equatable {
        struct Geo: Codable, Equatable {
            var lat: String
            var lng: String
        }
        var street, suite, city, zipcode: String
        var geo: Geo
    }

    struct Company: Codable, Equatable {
        var name, catchPhrase, bs: String
    }

    final class Comment: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var postId: Int
        @Attribute var name: String
        @Attribute var email: String
        @Attribute var body: String
    }

    final class Photo: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var albumId: Int
        @Attribute var title: String
        @Attribute var url: URL
        @Attribute var thumbnailUrl: URL
    }

    final class Todo: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var userId: Int
        @Attribute var title: String
        @Attribute var completed: Bool
    }

    struct Database: Decodable {
        let posts: [Post]
        let users: [User]
        let comments: [Comment]
        let photos: [Photo]
        let todos: [Todo]
    }
}

final class GitHubIssue: ManagedObject, Decodable {
    struct User: Codable, Equatable {
        var login: String
        var id: Int
        var avatarUrl: URL
    }
    struct Label: Codable, Equatable {
        var id: Int
        var name: String
        var color: String
    }
    enum State: String, Codable {
        case open, closed
    }

    @Attribute(.unique) var id: Int
    @Attribute var number: Int
    @Attribute var title: String
    @Attribute var state: State
    @Attribute var locked: Bool
    @Attribute var comments: Int
    @Attribute var htmlUrl: URL
    @Attribute var user: User
    @Attribute var labels: [Label] = []
    @Attribute var body: String?
    @Attribute var createdAt: Date
    @Attribute var closedAt: Date?
}

final class HackerNewsItem: ManagedObject, Decodable {
    enum Kind: String, Codable {
        case story, comment, job, poll, pollopt
    }
    @Attribute(.unique) var id: Int
    @Attribute var type: Kind
    @Attribute var by: String?
    @Attribute var time: Date
    @Attribute var title: String?
    @Attribute var text: String?
    @Attribute var url: String?
    @Attribute var score: Int?
    @Attribute var parent: Int?
    @Attribute var kids: [Int] = []
    @Attribute var parts: [Int]?
}

/// The real-world corpus: enabled where `../shared/fixtures` sits beside the checkout.
@Suite(.enabled(if: Fixtures.available, "needs ../shared/fixtures beside the checkout"), .bothStores)
struct FixtureCorpusTests {
    @Test func jsonPlaceholderDatabaseImportsAndReopensIntact() throws {
        let data = try Fixtures.data("jsonplaceholder/data.json")
        let directory = try TemporaryDirectory()
        let types: [ManagedObject.Type] = [
            Post.self, Placeholder.User.self, Placeholder.Comment.self, Placeholder.Photo.self, Placeholder.Todo.self,
        ]
        do {
            let container = try testContainer(
                for: Post.self, Placeholder.User.self, Placeholder.Comment.self, Placeholder.Photo.self,
                Placeholder.Todo.self, storeURL: directory.file())
            #expect(container.entityNames == types.map { String(describing: $0) })
            let context = ManagedObjectContext(container)
            let database = try recipeDecoder(context).decode(Placeholder.Database.self, from: data)
            #expect(database.posts.count == 100 && database.photos.count == 5000)
            try context.save()
        }

        // Compare every stored value with the payload as plain JSON: first from another
        // process (the sqlite3 shell), then through a fresh container.
        let plain = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [[String: Any]]])
        let payloadPosts = plain["posts"] ?? []
        let shellRows = try sqliteShell(
            directory.file(),
            "SELECT id || char(31) || userId || char(31) || title || char(31) || body FROM Post ORDER BY id")
        let expectedRows = payloadPosts.map { post in
            ["id", "userId", "title", "body"].map { "\(post[$0]!)" }.joined(separator: "\u{1F}")
        }
        #expect(shellRows == expectedRows.joined(separator: "\n") + "\n")
        let container = try testContainer(
            for: Post.self, Placeholder.User.self, Placeholder.Comment.self, Placeholder.Photo.self,
            Placeholder.Todo.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        let posts = try context.fetch(FetchDescriptor<Post>())
        #expect(posts.count == plain["posts"]?.count)
        for (post, expected) in zip(posts, plain["posts"] ?? []) {
            #expect(post.id == expected["id"] as? Int)
            #expect(post.userId == expected["userId"] as? Int)
            #expect(post.title == expected["title"] as? String)
            #expect(post.body == expected["body"] as? String)
        }
        let users = try context.fetch(FetchDescriptor<Placeholder.User>())
        #expect(users.count == 10)
        let leanne = try #require(users.first)
        #expect(leanne.address.geo == Placeholder.Address.Geo(lat: "-37.3159", lng: "81.1496"))
        #expect(leanne.company.name == "Romaguera-Crona")
        let photos = try context.fetch(FetchDescriptor<Placeholder.Photo>())
        #expect(photos.count == 5000)
        #expect(photos.last?.url.absoluteString == plain["photos"]?.last?["url"] as? String)
        #expect(try context.fetchCount(FetchDescriptor<Placeholder.Comment>()) == 500)
        let todos = try context.fetch(FetchDescriptor<Placeholder.Todo>())
        #expect(
            todos.filter(\.completed).count == (plain["todos"] ?? []).filter { $0["completed"] as? Bool == true }.count)

        // Importing again changes no row count.
        _ = try recipeDecoder(context).decode(Placeholder.Database.self, from: data)
        try context.save()
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Photo") == "5000\n")
        #expect(try sqliteShell(directory.file(), "SELECT count(*) FROM Post") == "100\n")
    }

    @Test func gitHubIssuesAcrossPagesUpsert() throws {
        let context = ManagedObjectContext(try testContainer(for: GitHubIssue.self, inMemory: true))
        let decoder = recipeDecoder(context)
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        for page in 0..<5 {
            let data = try Fixtures.data("github/bodies/paginate-issues.\(page).GET.200.json")
            _ = try decoder.decode([GitHubIssue].self, from: data)
        }
        try context.save()
        let issues = try context.fetch(FetchDescriptor<GitHubIssue>(sortBy: [SortDescriptor(\.number)]))
        #expect(issues.map(\.number) == Array(1...13))
        #expect(issues.allSatisfy { $0.state == .open && $0.body == nil && $0.closedAt == nil })
        #expect(issues[0].createdAt == Date(timeIntervalSince1970: 1_507_651_200))
        #expect(issues[0].user.login == "octokit-fixture-user-a")

        let again = try decoder.decode(
            [GitHubIssue].self, from: try Fixtures.data("github/bodies/paginate-issues.0.GET.200.json"))
        #expect(again.allSatisfy { issue in issues.contains { $0 === issue } })
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<GitHubIssue>()) == 13)
    }

    @Test func hackerNewsItemsOfEveryKind() throws {
        let context = ManagedObjectContext(try testContainer(for: HackerNewsItem.self, inMemory: true))
        let decoder = recipeDecoder(context)
        decoder.dateDecodingStrategy = .secondsSince1970
        let files = [
            "hn-item-121003-ask-story", "hn-item-126809-poll", "hn-item-160705-pollopt", "hn-item-192327-job",
            "hn-item-2921983-comment", "hn-item-8863-story",
        ]
        for file in files {
            _ = try decoder.decode(HackerNewsItem.self, from: try Fixtures.data("hackernews/\(file).json"))
        }
        try context.save()
        let items = try ManagedObjectContext(context.container).fetch(
            FetchDescriptor<HackerNewsItem>(sortBy: [SortDescriptor(\.id)]))
        #expect(items.map(\.id) == [8863, 121003, 126809, 160705, 192327, 2_921_983])
        let story = items[0]
        #expect(story.type == .story && story.by == "dhouston" && story.score == 111)
        #expect(story.time == Date(timeIntervalSince1970: 1_175_714_200))
        #expect(story.kids.count == 33 && story.kids.first == 8952)
        #expect(items[2].type == .poll && items[2].parts?.isEmpty == false)
        #expect(items[3].parent == nil && items[5].parent != nil && items[5].type == .comment)
        #expect(items[4].type == .job && items[4].text?.isEmpty == false)
    }

    @Test func jsonTestSuiteRejectionsNeverCrashOrSave() throws {
        let context = ManagedObjectContext(try testContainer(for: Note.self, inMemory: true))
        let files = try FileManager.default.contentsOfDirectory(
            atPath: Fixtures.directory.appendingPathComponent("json-test-suite").path)
        for file in files where file.hasPrefix("n_") || file.hasPrefix("i_") {
            let data = try Fixtures.data("json-test-suite/\(file)")
            // Not arrays of notes: every one must fail as a clear error, none may crash.
            #expect(throws: (any Error).self, "\(file)") {
                _ = try recipeDecoder(context).decode([Note].self, from: data)
            }
        }
        #expect(!context.hasChanges)
    }
}
