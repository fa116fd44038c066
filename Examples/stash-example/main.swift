import Foundation
import Stash

final class Post: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var userId: Int
    @Attribute var title: String
    @Attribute var body: String
    @Attribute var read: Bool = false
    @Attribute var tags: [String] = []
    @Attribute var summary: String?
}

let data = try Data(contentsOf: URL(fileURLWithPath: "/work/shared/fixtures/jsonplaceholder/data.json"))
struct Envelope: Decodable { let posts: [Post] }
let url = URL(fileURLWithPath: "/tmp/smoke.sqlite")
try? FileManager.default.removeItem(at: url)
let container = try PersistentContainer(for: Post.self, storeURL: url)
let context = ManagedObjectContext(container)
let decoder = JSONDecoder()
decoder.userInfo[.managedObjectContext] = context
let posts = try decoder.decode(Envelope.self, from: data).posts
print(posts.count, posts[0].title, posts[0].read, context.hasChanges)
try context.save()
print(context.hasChanges, try context.fetchCount(FetchDescriptor<Post>()))
let again = try decoder.decode(Envelope.self, from: data).posts
print(again[0] === posts[0])
posts[1].read = true
try context.save()
let c2 = ManagedObjectContext(container)
decoder.userInfo[.managedObjectContext] = c2
_ = try decoder.decode(Envelope.self, from: data).posts
try c2.save()
let fetched = try c2.fetch(FetchDescriptor<Post>())
print(fetched.count, fetched[1].read, try c2.fetch(FetchDescriptor<Post>())[5] === fetched[5])
