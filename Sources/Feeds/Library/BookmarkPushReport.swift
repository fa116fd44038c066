import Foundation

/// What `feeds bookmarks push` did: the changes the API took, the conflicts it settled (the
/// server's version kept), and the changes it refused or could not be reached for, which wait
/// for the next push.
public struct BookmarkPushReport: Sendable, Equatable {
    /// One change that did not go through, or a conflict, with the server's message.
    public struct Problem: Sendable, Equatable {
        /// The bookmark's URL, when it is still in the store (a deletion's row is gone).
        public var url: String?
        public var method: String
        /// The HTTP status, `nil` when the server could not be reached.
        public var status: Int?
        public var message: String

        public init(url: String?, method: String, status: Int?, message: String) {
            self.url = url
            self.method = method
            self.status = status
            self.message = message
        }
    }

    /// The API's bookmarks endpoint pushed to.
    public var api: String
    public var sent: Int
    public var conflicts: [Problem]
    public var failed: [Problem]
    /// Changes still waiting after the push.
    public var waiting: Int

    public init(api: String, sent: Int, conflicts: [Problem], failed: [Problem], waiting: Int) {
        self.api = api
        self.sent = sent
        self.conflicts = conflicts
        self.failed = failed
        self.waiting = waiting
    }
}
