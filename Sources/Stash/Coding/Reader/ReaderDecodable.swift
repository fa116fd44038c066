import Foundation

/// A type `ManagedObjectContext.decode(_:from:using:)` may read with the byte-level reader
/// (`TapeDecoder`) instead of JSONDecoder: a model, an array of models, or an envelope that
/// holds them (StashREST's `Enveloped`). It names the models it holds; the reader is taken
/// only when each of them, and each model reachable through their relationships, uses
/// Stash's default decoding (see `ReaderEligibility`).
package protocol ReaderDecodable: Decodable {
    /// The model types a value of this type decodes.
    static var readerModelTypes: [ManagedObject.Type] { get }
}

extension Array: ReaderDecodable where Element: ManagedObject & Decodable {
    package static var readerModelTypes: [ManagedObject.Type] { [Element.self] }
}
