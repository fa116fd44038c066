import Foundation
import Stash

// The PostgreSQL benchmark's model and the baseline's struct (`stash-bench --store postgres`).

final class Post: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String
    @Attribute var body: String
    @Attribute var score: Double
    @Attribute var read: Bool = false
    @Attribute var publishedAt: Date
}

struct PostRecord: Decodable {
    let id: Int
    let title: String
    let body: String
    let score: Double
    let read: Bool
    let publishedAt: Date
}
