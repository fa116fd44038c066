/// The schema of one model class: its table, its attributes and the SQL to store them.
///
/// Built once per class, the first time the class is used, by reflecting over a blank
/// instance (`Mirror` runs here and nowhere else). The SQL text of every statement the
/// store runs for the entity is made here too, so saving a row only binds values.
final class EntityDescription: @unchecked Sendable {
    /// The class name, which is also the table name.
    let name: String
    let type: ManagedObject.Type
    /// Attributes in declaration order, superclass first.
    let attributes: [AttributeDescription]
    /// Maps a relative slot to its index in `attributes`.
    let attributeIndexBySlot: [Int]
    /// How many slots a built object has (attributes and, later, relationships).
    let slotCount: Int
    let uniqueAttributes: [AttributeDescription]
    /// The others, in order: what decoding walks after the unique values.
    let nonUniqueAttributes: [AttributeDescription]
    let sql: EntitySQL

    init(type: ManagedObject.Type) throws {
        let name = String(describing: type)
        let blank = type.init()

        var children: [Mirror.Child] = []
        var mirror: Mirror? = Mirror(reflecting: blank)
        while let current = mirror {
            children.insert(contentsOf: current.children, at: 0)
            mirror = current.superclassMirror
        }
        let wrappers = children.compactMap { child -> (String, any AttributeWrapper)? in
            guard let label = child.label, let wrapper = child.value as? any AttributeWrapper else { return nil }
            return (String(label.dropFirst()), wrapper)
        }
        let base = blank.values.count - wrappers.count
        guard base >= 0 else {
            throw StashError(.invalidModel, "its attribute wrappers did not all initialize", entity: name)
        }
        var attributes: [AttributeDescription] = []
        var indexBySlot = [Int](repeating: -1, count: wrappers.count)
        for (attributeName, wrapper) in wrappers {
            let slot = wrapper.slot - base
            let codec: any AttributeCodec
            do {
                codec = try wrapper.makeCodec()
            } catch var error as StashError {
                error.entity = name
                error.attribute = attributeName
                throw error
            }
            indexBySlot[slot] = attributes.count
            attributes.append(
                AttributeDescription(
                    name: attributeName, slot: slot, options: wrapper.options,
                    defaultValue: blank.values[wrapper.slot], codec: codec))
        }
        if attributes.contains(where: { $0.name == "_pk" }) {
            throw StashError(.invalidModel, "`_pk` is the name of Stash's own key column", entity: name)
        }
        self.name = name
        self.type = type
        self.attributes = attributes
        self.attributeIndexBySlot = indexBySlot
        self.slotCount = wrappers.count
        self.uniqueAttributes = attributes.filter(\.isUnique)
        self.nonUniqueAttributes = attributes.filter { !$0.isUnique }
        self.sql = EntitySQL(table: name, attributes: attributes)
    }

    func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }
}
