/// Runs `UPDATE "Post" SET <changed columns> WHERE "_pk" = ?` for object after object,
/// keeping the prepared statement while consecutive objects changed the same attributes.
struct RowUpdater {
    let entity: EntityDescription
    private var slots = SlotSet()
    private var attributes: [AttributeDescription] = []
    private var statement: SQLiteStatement?

    init(entity: EntityDescription) { self.entity = entity }

    mutating func update(
        _ object: ManagedObject, rowID: Int64, changing changedSlots: SlotSet, in context: ManagedObjectContext,
        _ connection: SQLiteConnection
    ) throws {
        if statement == nil || changedSlots != slots {
            statement?.reset()
            slots = changedSlots
            let changed = entity.attributes.filter { slots.contains($0.slot) }
            attributes = changed
            guard !changed.isEmpty else {
                statement = nil
                return
            }
            let sql = context.container.store.updateSQL(for: entity, slots) { entity.sql.update(changed) }
            statement = try connection.statement(sql)
        }
        guard let statement else { return }
        statement.rewind()
        for (offset, attribute) in attributes.enumerated() {
            try context.bind(attribute, of: object, to: statement, at: Int32(offset + 1))
        }
        try statement.bind(rowID, at: Int32(attributes.count + 1))
        while try statement.step() {}
        guard connection.changes == 1 else {
            throw StashError(
                .rowMissing, "the row \(rowID) was deleted since this object was loaded; nothing was saved",
                entity: entity.name)
        }
    }

    func finish() {
        statement?.reset()
    }
}
