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
        try testContainer(
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

@Suite(.enabled(if: Fixtures.available, "needs ../shared/fixtures beside the checkout"), .bothStores)
struct GraphCorpusTests {
    static let tables = ["users", "posts", "comments", "albums", "photos", "todos"]

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        ), arguments: [tables, tables.reversed(), ["comments", "users", "photos", "posts", "todos", "albums"]])
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

    @Test(
        .sqliteOnly(
            "reads SQLite's catalog or plans (sqlite_master, PRAGMA, .dump, EXPLAIN QUERY PLAN) through the sqlite3 shell"
        )) func deleteRulesOnTheWholeDatabase() throws
    {
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

/// GitHub's issues with their nested users, labels and assignees; a repository with its owner.
enum GitHubGraph {
    final class User: ManagedObject, Decodable {
        // Logins, not ids: the recorded fixtures number users and organizations alike from 1000.
        @Attribute(.unique) var login: String
        @Attribute var id: Int
    }

    final class Label: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var name: String
    }

    final class Issue: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var number: Int
        @Attribute var title: String
        @Relationship var user: User?
        @Relationship var assignee: User?
        @Relationship var assignees: [User]
        @Relationship var labels: [Label]
    }

    final class Repository: ManagedObject, Decodable {
        @Attribute(.unique) var id: Int
        @Attribute var fullName: String
        @Relationship var owner: User?
    }
}

/// Stripe's expandable fields: `customer` is an id in one object and, expanded, the
/// customer object itself in another; both name the one customer.
enum StripeGraph {
    final class Customer: ManagedObject, Decodable {
        @Attribute(.unique) var id: String
        @Attribute var email: String?
    }

    final class Invoice: ManagedObject, Decodable {
        @Attribute(.unique) var id: String
        @Attribute var amountDue: Int
        @Relationship var customer: Customer?
    }

    final class BalanceTransaction: ManagedObject, Decodable {
        @Attribute(.unique) var id: String
        @Attribute var amount: Int
        @Relationship var customer: Customer?
    }
}

@Suite(.enabled(if: Fixtures.available, "needs ../shared/fixtures beside the checkout"), .bothStores)
struct GraphServiceCorpusTests {
    @Test func gitHubUsersAreOneRowWhereverTheyAppear() throws {
        let container = try testContainer(
            for: GitHubGraph.Issue.self, GitHubGraph.User.self, GitHubGraph.Label.self, GitHubGraph.Repository.self,
            inMemory: true)
        let context = ManagedObjectContext(container)
        let decoder = recipeDecoder(context)
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        var issues: [GitHubGraph.Issue] = []
        for page in 0..<5 {
            issues += try decoder.decode(
                [GitHubGraph.Issue].self, from: Fixtures.data("github/bodies/paginate-issues.\(page).GET.200.json"))
        }
        let repository = try decoder.decode(
            GitHubGraph.Repository.self, from: Fixtures.data("github/bodies/get-repository.0.GET.200.json"))
        _ = try decoder.decode([GitHubGraph.Label].self, from: Fixtures.data("github/bodies/labels.0.GET.200.json"))
        try context.save()

        #expect(issues.count == 13)
        #expect(issues.allSatisfy { $0.user === issues[0].user })
        #expect(issues[0].user?.login == "octokit-fixture-user-a")
        #expect(issues.allSatisfy { $0.labels.isEmpty && $0.assignees.isEmpty && $0.assignee == nil })
        #expect(repository.owner?.login == "octokit-fixture-org")
        // user-a and the organization: one row each, however many places name them.
        let fresh = ManagedObjectContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<GitHubGraph.User>()) == 2)
        #expect(try fresh.fetchCount(FetchDescriptor<GitHubGraph.Label>()) == 9)
        let byUserA = try fresh.fetchCount(
            FetchDescriptor<GitHubGraph.Issue>(predicate: #Predicate { $0.user?.login == "octokit-fixture-user-a" }))
        #expect(byUserA == 13)

        // Another recording numbers its issues from 1000 again: its own store.
        let search = ManagedObjectContext(
            try testContainer(
                for: GitHubGraph.Issue.self, GitHubGraph.User.self, GitHubGraph.Label.self, inMemory: true))
        let searchDecoder = recipeDecoder(search)
        searchDecoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Search: Decodable { let items: [GitHubGraph.Issue] }
        let found = try searchDecoder.decode(
            Search.self, from: Fixtures.data("github/bodies/search-issues.0.GET.200.json"))
        #expect(found.items.map { $0.user?.login } == ["octokit-fixture-user-b", "octokit-fixture-user-a"])
        try search.save()
        #expect(try search.fetchCount(FetchDescriptor<GitHubGraph.User>()) == 2)
    }

    @Test func stripeExpandableFieldsNameOneCustomer() throws {
        let data = try Fixtures.data("stripe/fixtures3.json")
        let resources = try #require(
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["resources"] as? [String: [String: Any]])
        let customer = try #require(resources["customer"])
        var invoice = try #require(resources["invoice"])
        let transaction = try #require(resources["customer_balance_transaction"])
        #expect(invoice["customer"] as? String == customer["id"] as? String)

        let container = try testContainer(
            for: StripeGraph.Invoice.self, StripeGraph.BalanceTransaction.self, StripeGraph.Customer.self,
            inMemory: true)
        let context = ManagedObjectContext(container)
        let decoder = recipeDecoder(context)
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        // The invoice names its customer by id before the customer is known.
        let byID = try decoder.decode(StripeGraph.Invoice.self, from: JSONSerialization.data(withJSONObject: invoice))
        let balance = try decoder.decode(
            StripeGraph.BalanceTransaction.self, from: JSONSerialization.data(withJSONObject: transaction))
        // The same invoice with `customer` expanded: the object itself.
        invoice["customer"] = customer
        let expanded = try decoder.decode(
            StripeGraph.Invoice.self, from: JSONSerialization.data(withJSONObject: invoice))
        #expect(expanded === byID)
        #expect(byID.customer === balance.customer)
        #expect(byID.customer?.id == "cus_QXg1o8vcGmoR32")
        try context.save()
        #expect(try ManagedObjectContext(container).fetchCount(FetchDescriptor<StripeGraph.Customer>()) == 1)
    }
}
