/// What a store knows of an entity: its name and its columns, as plain values.
///
/// The model layer makes one per entity (`EntityDescription.schema`); a store makes its
/// tables, statements and migrations from it and never sees a model class.
package struct EntitySchema: Sendable {
    /// The fields, in one box: every store query holds its entity's schema, and each copy of
    /// a query retained and released five references where it now does one (stash-bench's
    /// look-ups, callgrind). Set only while a schema is built, so a setter makes a new box.
    private final class Fields: Sendable {
        let name: String
        let columns: [ColumnSchema]
        let compoundIndexes: [[Int]]
        let uniqueCompounds: [[Int]]
        let positionColumns: [String]

        init(
            name: String, columns: [ColumnSchema], compoundIndexes: [[Int]], uniqueCompounds: [[Int]],
            positionColumns: [String]
        ) {
            self.name = name
            self.columns = columns
            self.compoundIndexes = compoundIndexes
            self.uniqueCompounds = uniqueCompounds
            self.positionColumns = positionColumns
        }

        /// `fields` with one list replaced.
        convenience init(
            changing fields: Fields, compoundIndexes: [[Int]]? = nil, uniqueCompounds: [[Int]]? = nil,
            positionColumns: [String]? = nil
        ) {
            self.init(
                name: fields.name, columns: fields.columns,
                compoundIndexes: compoundIndexes ?? fields.compoundIndexes,
                uniqueCompounds: uniqueCompounds ?? fields.uniqueCompounds,
                positionColumns: positionColumns ?? fields.positionColumns)
        }
    }

    private var fields: Fields

    package init(
        name: String, columns: [ColumnSchema], compoundIndexes: [[Int]] = [], uniqueCompounds: [[Int]] = [],
        positionColumns: [String] = []
    ) {
        fields = Fields(
            name: name, columns: columns, compoundIndexes: compoundIndexes, uniqueCompounds: uniqueCompounds,
            positionColumns: positionColumns)
    }

    /// The entity's name, which is also its table's.
    package var name: String { fields.name }
    /// The attribute columns, in the entity's attribute order. A store adds its own row id.
    package var columns: [ColumnSchema] { fields.columns }

    /// Positions in `columns` of the unique ones.
    package var uniqueColumns: [Int] { columns.indices.filter { columns[$0].isUnique } }
    /// Indexes over several columns (positions in `columns`, in index order), as the model
    /// declares them (`IndexedModel.indexes`).
    package var compoundIndexes: [[Int]] {
        get { fields.compoundIndexes }
        set { fields = Fields(changing: fields, compoundIndexes: newValue) }
    }
    /// Unique indexes over several columns: composite unique constraints.
    package var uniqueCompounds: [[Int]] {
        get { fields.uniqueCompounds }
        set { fields = Fields(changing: fields, uniqueCompounds: newValue) }
    }
    /// For each to-one relationship whose inverse is an ordered to-many list, the column
    /// that keeps the object's place in that list: `post_position` beside `post`. Not an
    /// attribute: written by `PositionWrite`s and read only to order a list.
    package var positionColumns: [String] {
        get { fields.positionColumns }
        set { fields = Fields(changing: fields, positionColumns: newValue) }
    }

    /// Every index the store keeps: one per unique or `.indexed` column, then the compound ones.
    package var indexes: [IndexSchema] {
        columns.indices.filter { columns[$0].isUnique || columns[$0].isIndexed }
            .map { IndexSchema(columns: [$0], isUnique: columns[$0].isUnique) }
            + uniqueCompounds.map { IndexSchema(columns: $0, isUnique: true) }
            + compoundIndexes.map { IndexSchema(columns: $0, isUnique: false) }
    }

    /// Positions in `columns` of the `.searchable` ones: what the full-text index holds.
    package var searchableColumns: [Int] { columns.indices.filter { columns[$0].isSearchable } }

    package func column(named name: String) -> ColumnSchema? {
        columns.first { $0.name == name }
    }
}

/// An index: its columns (positions in the entity's columns), in order.
package struct IndexSchema: Sendable, Equatable {
    package let columns: [Int]
    package let isUnique: Bool
}

/// One attribute column.
package struct ColumnSchema: Sendable {
    /// The Swift property name, which is also the column's.
    package let name: String
    package let type: StoredType
    /// `true` for optional attributes: the column takes NULL.
    package let isOptional: Bool
    /// No two rows share a value (NULLs aside); the store keeps a unique index.
    package let isUnique: Bool
    /// The store keeps an index for queries that filter or sort on the column.
    package let isIndexed: Bool
    /// The value that fills the column for existing rows when a migration adds it.
    package let defaultValue: StoredValue?
    /// For a default made anew for each object (`= UUID()`), what makes one: a migration
    /// that adds the column gives each existing row its own.
    package var defaultMaker: DefaultMaker?
    /// The column's name in an earlier version of the model: a migration renames it.
    package var originalName: String?
    /// For a to-one relationship, the table whose `_pk` the column holds.
    package var references: String?
    /// With `references`: the row goes when the row it references does (a join table's).
    package var cascades = false
    /// `@Attribute(.searchable)`: the store keeps the column in the entity's full-text index.
    package var isSearchable = false

    /// A migration can fill the column for existing rows: with NULL or with the default.
    package var hasDefault: Bool { isOptional || defaultValue != nil }

    /// A list position column (`EntitySchema.positionColumns`): an optional integer.
    package static func listPosition(_ name: String) -> ColumnSchema {
        ColumnSchema(
            name: name, type: .integer, isOptional: true, isUnique: false, isIndexed: false, defaultValue: nil)
    }
}

/// Makes a fresh default value for a column, as a new object of the model would have it.
package struct DefaultMaker: Sendable {
    package let make: @Sendable () throws -> StoredValue
}
