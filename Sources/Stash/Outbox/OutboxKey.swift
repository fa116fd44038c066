/// A server-set key (`RemoteModel.remoteKey`) that a `POST`'s answer gave an object: its
/// later operations, recorded before it was known, name the object with it from then on.
package struct OutboxKey: Sendable, Hashable {
    package let entityName: String
    package let rowID: Int64
    package let value: String

    package init(entityName: String, rowID: Int64, value: String) {
        self.entityName = entityName
        self.rowID = rowID
        self.value = value
    }
}
