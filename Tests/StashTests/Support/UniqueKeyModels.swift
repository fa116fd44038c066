import Foundation
import Stash

/// A model whose unique attribute is a date: the keyed fetch compares it as the predicate's
/// walk does (to the millisecond the store keeps).
final class Launch: ManagedObject, Codable {
    @Attribute(.unique) var at: Date
    @Attribute var name: String = ""
}

/// A model with an optional unique attribute (rows may share `nil`) and a unique URL.
final class Pass: ManagedObject, Codable {
    @Attribute(.unique) var code: String?
    @Attribute(.unique) var page: URL
    @Attribute var label: String = ""
}
