import Foundation
import Stash

/// One class: the JSON mapping of the sample API's articles and the stored entity.
final class Article: ManagedObject, Decodable {
    @Attribute(.unique) var id: Int
    @Attribute var title: String
    @Attribute var url: URL
    @Attribute var summary: String?
    @Attribute var publishedAt: Date
    @Attribute var read: Bool = false
    @Attribute var tags: [String] = []
}
