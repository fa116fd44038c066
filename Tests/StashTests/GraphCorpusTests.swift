import Foundation
import Testing

@testable import Stash

/// jsonplaceholder's whole database as one graph: every child names its parent by id
/// (`userId`, `postId`, `albumId`).
enum PlaceholderGraph {
    final class User: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var name: String
        @Attribute var email: String
        @Relationship(deleteRule: .cascade, inverse: \Post.user) var posts: [Post]
        @Relationship(inverse: \Album.user) var albums: [Album]
        @Relationship(inverse: \Todo.user) var todos: [Todo]
    }

    final class Post: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Attribute var body: String
        @Relationship var user: User?
        @Relationship(deleteRule: .cascade, inverse: \Comment.post) var comments: [Comment]
    }

    final class Comment: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var email: String
        @Relationship var post: Post?
    }

    final class Album: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Relationship var user: User?
        @Relationship(deleteRule: .deny, inverse: \Photo.album) var photos: [Photo]
    }

    final class Photo: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var title: String
        @Relationship var album: Album?
    }

    final class Todo: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var completed: Bool
        @Relationship var user: User?
    }

    static func container(at url: URL) throws -> PersistentContainer {
        try PersistentContainer(
            for: Comment.self, Photo.self, Todo.self, Post.self, Album.self, User.self, storeURL: url)
    }

    /// Decodes one of the database's arrays into `context`.
    static func decode(_ table: String, from data: Data, into context: ManagedObjectContext) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let rows = try JSONSerialization.data(withJSONObject: try #require(object[table]))
        let decoder = recipeDecoder(context)
        switch table {
        case "users": _ = try decoder.decode([User].self, from: rows)
        case "posts": _ = try decoder.decode([Post].self, from: rows)
        case "comments": _ = try decoder.decode([Comment].self, from: rows)
        case "albums": _ = try decoder.decode([Album].self, from: rows)
        case "photos": _ = try decoder.decode([Photo].self, from: rows)
        default: _ = try decoder.decode([Todo].self, from: rows)
        }
    }
}

@Suite(.enabled(if: Fixtures.available, "needs ../shared/fixtures beside the checkout"))
struct GraphCorpusTests {
    static let tables = ["users", "posts", "comments", "albums", "photos", "todos"]

    @Test(arguments: [tables, tables.reversed(), ["comments", "users", "photos", "posts", "todos", "albums"]])
    func jsonPlaceholderLinksInAnyOrder(order: [String]) throws {
        let data = try Fixtures.data("jsonplaceholder/data.json")
        let directory = try TemporaryDirectory()
        let container = try PlaceholderGraph.container(at: directory.file())
        let context = ManagedObjectContext(container)
        for table in order { try PlaceholderGraph.decode(table, from: data, into: context) }
        try context.save()
        let shell = { (sql: String) in try sqliteShell(directory.file(), sql) }
        #expect(try shell("SELECT count(*) FROM User") == "10\n")
        #expect(try shell("SELECT count(*) FROM Photo WHERE album IS NOT NULL") == "5000\n")
        #expect(try shell("SELECT count(*) FROM Comment WHERE post IS NOT NULL") == "500\n")
        #expect(try shell("PRAGMA foreign_key_check") == "")
        #expect(
            try shell(
                "SELECT u.name FROM Comment c JOIN Post p ON c.post = p._pk JOIN User u ON p.user = u._pk WHERE c.id = 1"
            )
                == "Leanne Graham\n")

        let fresh = ManagedObjectContext(container)
        let comment = try #require(
            try fresh.fetch(FetchDescriptor<PlaceholderGraph.Comment>(predicate: #Predicate { $0.id == 1 })).first)
        #expect(comment.post?.user?.name == "Leanne Graham")
        #expect(comment.post?.user?.posts.count == 10)
        #expect(comment.post?.comments.map(\.id) == [1, 2, 3, 4, 5])

        // The same database again changes nothing.
        let watcher = try PlaceholderGraph.container(at: directory.file())
        let token = try watcher.store.changeToken()
        let again = ManagedObjectContext(container)
        for table in Self.tables { try PlaceholderGraph.decode(table, from: data, into: again) }
        try again.save()
        #expect(try watcher.store.changeToken() == token)
    }

    @Test func deleteRulesOnTheWholeDatabase() throws {
        let data = try Fixtures.data("jsonplaceholder/data.json")
        let directory = try TemporaryDirectory()
        let container = try PlaceholderGraph.container(at: directory.file())
        let context = ManagedObjectContext(container)
        for table in Self.tables { try PlaceholderGraph.decode(table, from: data, into: context) }
        try context.save()
        let shell = { (sql: String) in try sqliteShell(directory.file(), sql) }

        // .deny: an album with photos stays, and nothing is written.
        let album = try #require(
            try context.fetch(FetchDescriptor<PlaceholderGraph.Album>(predicate: #Predicate { $0.id == 11 })).first)
        context.delete(album)
        #expect(throws: StashError.self) { try context.save() }
        context.rollback()
        #expect(try shell("SELECT count(*) FROM Album") == "100\n")

        // .cascade from a user: their posts and those posts' comments; .nullify: their albums
        // and todos stay, without a user.
        let user = try #require(
            try context.fetch(FetchDescriptor<PlaceholderGraph.User>(predicate: #Predicate { $0.id == 1 })).first)
        context.delete(user)
        try context.save()
        #expect(try shell("SELECT count(*) FROM Post") == "90\n")
        #expect(try shell("SELECT count(*) FROM Comment") == "450\n")
        #expect(try shell("SELECT count(*) FROM Album WHERE user IS NULL") == "10\n")
        #expect(try shell("SELECT count(*) FROM Todo WHERE user IS NULL") == "20\n")
        #expect(try shell("SELECT count(*) FROM Photo") == "5000\n")
        #expect(try shell("PRAGMA foreign_key_check") == "")
    }
}
