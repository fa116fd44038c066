/// Every error Stash throws: what went wrong, and where.
///
/// Errors name the entity, the attribute and, for decoding, the coding path as a user
/// would write it (`[3].publishedAt`). Store errors keep SQLite's result code and the SQL
/// that failed; bound values stay out of the message, since they may be private data.
///
/// ```swift
/// do { try context.save() } catch let error as StashError where error.code == .missingValue {
///     print(error.entity, error.attribute)   // "Post", "title"
/// }
/// ```
public struct StashError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added; switch with a default.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }

        /// `decoder.userInfo[.managedObjectContext]` held no context.
        public static let missingContext = Code("missing context")
        /// The JSON did not match the model: a wrong type, a missing key, a bad value.
        public static let decodingFailed = Code("decoding failed")
        /// A non-optional attribute with no default was never given a value.
        public static let missingValue = Code("missing value")
        /// A value cannot be stored, or a stored value cannot be read as the model's type.
        public static let invalidValue = Code("invalid value")
        /// The merge policy is `.fail` and an object's unique value is already taken.
        public static let uniqueConflict = Code("unique conflict")
        /// The model classes cannot be turned into a schema.
        public static let invalidModel = Code("invalid model")
        /// The entity is not one of the container's models.
        public static let unknownEntity = Code("unknown entity")
        /// The store's schema cannot be migrated to the models without losing data.
        public static let migrationFailed = Code("migration failed")
        /// The file is not a Stash store (another app's database): it was left untouched.
        public static let foreignStore = Code("foreign store")
        /// The store cannot be written (a read-only file or directory, or opened with
        /// `readOnly: true`): a save, or a migration the model needs, was refused.
        public static let readOnlyStore = Code("read-only store")
        /// SQLite refused: a constraint, a full disk, a locked or corrupt file.
        public static let storeFailed = Code("store failed")
        /// The object's row is gone: another context or process deleted it after it was
        /// loaded, so its changes have nowhere to go.
        public static let rowMissing = Code("row missing")
        /// A predicate or sort descriptor uses something the store cannot evaluate; the message
        /// names the expression.
        public static let unsupportedQuery = Code("unsupported query")
        /// Another context or process changed an attribute this context changed too, since
        /// it loaded the object, and the merge policy is `.fail`.
        public static let conflict = Code("conflict")
        /// A deleted object still has related objects through a relationship whose delete
        /// rule is `.deny`.
        public static let deleteDenied = Code("delete denied")
        /// A property read that loads from the store (a relationship, an attribute not loaded
        /// yet) failed, and read as empty; thrown by the context's next throwing call.
        public static let loadFailed = Code("load failed")
        /// A model's `validateForInsert()` or `validateForUpdate()` threw.
        public static let validationFailed = Code("validation failed")
    }

    public let code: Code
    /// A sentence that says what happened.
    public let message: String
    /// The entity (model class) involved, if any.
    public var entity: String?
    /// The attribute involved, if any.
    public var attribute: String?
    /// Where in the decoded JSON, as `[3].publishedAt`; empty when not decoding.
    public var codingPath: String = ""
    /// The store's own code, for store errors (see `StoreCode`).
    public var storeCode: StoreCode?
    /// The SQL statement that failed, for store errors.
    public var sql: String?
    /// The object a save refused (a missing value, a validation), while it is alive: what
    /// `decodeAndSave` finds among a batch's elements to name the one that failed.
    var refusedObject: ObjectIdentifier?

    package init(
        _ code: Code, _ message: String, entity: String? = nil, attribute: String? = nil,
        codingPath: String = ""
    ) {
        self.code = code
        self.message = message
        self.entity = entity
        self.attribute = attribute
        self.codingPath = codingPath
    }

    public var description: String {
        var place = [entity, attribute].compactMap { $0 }.joined(separator: ".")
        if !codingPath.isEmpty {
            place += place.isEmpty ? "at \(codingPath)" : " at \(codingPath)"
        }
        var text = "Stash \(code): " + (place.isEmpty ? message : "\(place): \(message)")
        if let storeCode { text += " (\(storeCode))" }
        if let sql { text += " in `\(sql)`" }
        return text
    }
}

/// Runs `body` and names the entity (and the attribute, if given) in a `StashError` it
/// throws, unless the error already names them: the one place errors learn where they
/// happened.
package func inPlace<Result>(_ entity: String, _ attribute: String? = nil, _ body: () throws -> Result) throws -> Result
{
    do {
        return try body()
    } catch var error as StashError {
        error.entity = error.entity ?? entity
        error.attribute = error.attribute ?? attribute
        throw error
    }
}

func inPlace<Result>(
    _ entity: EntityDescription, _ attribute: AttributeDescription? = nil, _ body: () throws -> Result
) throws -> Result {
    try inPlace(entity.name, attribute?.name, body)
}
