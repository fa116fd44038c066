import Foundation

/// What StashREST keeps for one page URL for conditional GET: JSON text, by URL, in the
/// store's `_stash_http_validators` table (Stash's own records, made on first use; the app
/// declares no model for it). Written in a transaction of its own once the page's objects
/// are saved; the next fetch of the URL sends the validators, and a 304 answers the rows
/// kept here if they are still the same objects (`identity`), then goes on to `next`.
struct PageValidator: Codable, Sendable {
    var etag: String?
    var lastModified: String?
    /// The model class of the objects the answer held.
    var entity: String
    /// Their row ids, in order: what a 304 gives back.
    var rows: [Int64]
    /// A digest of those rows' ids and unique values, hexadecimal.
    var identity: String
    /// The next page's URL the answer gave, if any: where a 304 goes on to.
    var next: String?
}
