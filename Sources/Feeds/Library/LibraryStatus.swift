import Foundation

/// What `feeds status` shows: the bookmark changes waiting to be pushed, and the ones the
/// API refused (with its message), which the next push sends again.
public struct LibraryStatus: Sendable, Equatable {
    /// One change the API refused.
    public struct Refusal: Sendable, Equatable {
        /// The bookmark's URL, when it is still in the store.
        public var url: String?
        public var method: String
        public var message: String

        public init(url: String?, method: String, message: String) {
            self.url = url
            self.method = method
            self.message = message
        }
    }

    public var waiting: Int
    public var refused: [Refusal]
    /// The bookmarks API remembered from the last import or push, if any.
    public var api: String?

    public init(waiting: Int, refused: [Refusal], api: String?) {
        self.waiting = waiting
        self.refused = refused
        self.api = api
    }
}
