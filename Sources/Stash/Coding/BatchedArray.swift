/// The top-level array of a `decodeAndSave`: each element is decoded into the import's
/// context and dropped, and every `batchSize` of them are written (see `BatchedSave`). Its
/// errors and coding paths are those of `[Element]`.
struct BatchedArray<Element: ManagedObject & Decodable>: ReaderDecodable {
    static var readerModelTypes: [ManagedObject.Type] { [Element.self] }

    init(from decoder: any Decoder) throws {
        guard let context = decoder.userInfo[.managedObjectContext] as? ManagedObjectContext,
            let batches = context.entering({ context.decoding.batches })
        else {
            preconditionFailure("BatchedArray is decoded only by decodeAndSave, which sets its batches")
        }
        var elements = try decoder.unkeyedContainer()
        while !elements.isAtEnd {
            // Not kept in a local: the batch holds it until written, and lets go of it before
            // the context looks for objects that have gone.
            if batches.countDecoded(try elements.decode(Element.self)) { try batches.writeBatch(of: context) }
        }
    }
}
