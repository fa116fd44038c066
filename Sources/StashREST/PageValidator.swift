import Foundation
import Stash

/// What StashREST keeps for one page URL for conditional GET: JSON text, by URL, in the
/// store's `_stash_http_validators` table (Stash's own records, made on first use; the app
/// declares no model for it). Written in a transaction of its own once the page's objects
/// are saved; the next fetch of the URL sends the validators, and a 304, or the same body
/// again (`body`), answers the rows kept here if they are still the same objects
/// (`identity`) holding what the answer gave them (`values`), then goes on to `next`.
struct PageValidator: Codable, Sendable {
    var etag: String?
    var lastModified: String?
    /// The model class of the objects the answer held.
    var entity: String
    /// Their row ids, in order: what a 304 gives back.
    var rows: RowIDRuns
    /// A digest of those rows' ids and unique values, hexadecimal.
    var identity: String
    /// The next page's URL the answer gave, if any: where a 304 goes on to.
    var next: String?
    /// The rows the answer decoded (nested ones too), by entity, with the columns it set.
    /// `nil` in a record kept before Stash kept it: such a page is asked again in full once.
    var covered: [ValueCoverage]?
    /// A digest of what those columns held once the answer was saved, hexadecimal: a local
    /// change to any of them since (a placeholder title saved over the server's) means the
    /// next full answer would set it again, so a 304 cannot stand for it.
    var values: String?
    /// The answer's `BodyFingerprint`, hexadecimal: the same answer again, with the same
    /// validators or none, stands for the rows as a 304 would.
    var body: String?
    /// The model of `entities` the answer was decoded with (`PersistentContainer
    /// .modelDigest(of:)`): under another, the record stands for nothing. A record kept before
    /// Stash kept it (or `parent` and `items`) is not read: its URL is fetched in full once.
    var model: String?

    /// The parent whose children the answer's objects were decoded as (`ImportParent.key`),
    /// `nil` for a plain list: the record stands only for a fetch with the same parent.
    var parent: String?

    /// Where the answer's objects were in the body (`ImportSession.itemsKey`): the record
    /// stands only for a fetch that looks in the same place.
    var items: String?

    /// The entities the answer was decoded into: the page's, and those of nested objects.
    var entities: Set<String> { Set((covered ?? []).map(\.entity) + [entity]) }
}
