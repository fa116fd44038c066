import Foundation
import Stash

// The Stash recipe end to end: decode a REST payload straight into a context, save it to
// SQLite, fetch it back; then import a later payload and see it update in place.
//
//     swift run stash-example [store.sqlite]

let storeURL = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "stash-example.sqlite")
try? FileManager.default.removeItem(at: storeURL)

let container = try PersistentContainer(for: Article.self, storeURL: storeURL)
let decoder = JSONDecoder()
decoder.keyDecodingStrategy = .convertFromSnakeCase
decoder.dateDecodingStrategy = .iso8601

// The first fetch: decoded into a context, saved in one transaction.
let context = ManagedObjectContext(container)
decoder.userInfo[.managedObjectContext] = context
let articles = try decoder.decode([Article].self, from: SamplePayloads.firstFetch)
try context.save()
print("Imported \(articles.count) articles into \(storeURL.path)")

// The user reads one: a local change the API knows nothing about.
articles[1].read = true
try context.save()

// A later fetch, in a fresh context: article 2 is updated in place (its `read` flag kept,
// since the payload has no such key), article 5 is new. Nothing is duplicated.
let later = ManagedObjectContext(container)
decoder.userInfo[.managedObjectContext] = later
let refreshed = try decoder.decode([Article].self, from: SamplePayloads.laterFetch)
let changes = try later.saveChanges()
print(
    "A later fetch lists \(refreshed.count) articles: \(changes.inserted.count) new, \(changes.updated.count) updated; "
        + "the ones it leaves out stay as they were, and nothing is duplicated")

let stored = try ManagedObjectContext(container).fetch(
    FetchDescriptor<Article>(sortBy: [SortDescriptor(\.publishedAt, order: .reverse)]))
print("\nStored \(stored.count) articles, newest first:")
let day = Date.FormatStyle(date: .abbreviated, time: .omitted, timeZone: TimeZone(identifier: "UTC")!)
for article in stored {
    let mark = article.read ? "read" : "new "
    let tags = article.tags.isEmpty ? "" : "  [\(article.tags.joined(separator: ", "))]"
    print("  #\(article.id)  \(mark)  \(article.publishedAt.formatted(day))  \(article.title)\(tags)")
}
print("\nLook inside with: sqlite3 \(storeURL.path) 'SELECT * FROM Article'")
