import Foundation

/// One change waiting in the outbox (`_stash_outbox`) to be sent to the API: what StashREST's
/// `push` reads, sends and removes once the server has acknowledged it.
package struct OutboxOperation: Sendable, Hashable {
    package enum Method: String, Sendable {
        case post = "POST"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    /// Its place in the outbox: operations are sent in this order (a parent's `POST` before
    /// its children's, as they were saved).
    package let sequence: Int64
    package let entityName: String
    /// The row the operation is about (gone, for a `DELETE`).
    package let rowID: Int64
    /// The object's first unique value as stored, which names it on the API.
    package let key: String
    package let method: Method
    /// For a `PATCH`, the names of the attributes to send.
    package let attributes: [String]
    /// Made once when the operation is recorded and kept until it is acknowledged, so that
    /// a resend (after a timeout or a crash) is the same request to the server.
    package let idempotencyKey: String
    /// How many times a push has sent it: once sent, later edits no longer merge into it.
    package let attempts: Int
    /// The server's message when it refused the operation (a 4xx other than a conflict).
    package let failure: String?
    /// How many later edits were merged into it.
    package let merged: Int
    /// The body as first sent: a resend sends the same bytes, whatever the row holds since.
    package let body: Data?
    /// For a `DELETE`, the unique value as stored (see `deleteObjectsNamed(by:)`).
    let storedKey: StoredValue

    package var objectID: ObjectID { ObjectID(entityName: entityName, rowID: rowID) }
}

/// A push sending an operation: counted, its body kept for any resend, and (after a conflict
/// resolved in the device's favour, which the server did not apply) a new idempotency key.
package struct OutboxAttempt: Sendable {
    package let sequence: Int64
    package let body: Data?
    package let idempotencyKey: String?
    /// The operation's `merged` count as the push read it: when an edit merged into it since
    /// (so the body may miss that edit), the attempt is not recorded. `nil`: not checked.
    package let merged: Int?

    package init(sequence: Int64, body: Data?, idempotencyKey: String? = nil, merged: Int? = nil) {
        self.sequence = sequence
        self.body = body
        self.idempotencyKey = idempotencyKey
        self.merged = merged
    }
}
