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

    package var objectID: ObjectID { ObjectID(entityName: entityName, rowID: rowID) }
}
