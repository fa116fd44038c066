import Foundation
import Stash

/// The validators of one URL's last answer, kept in the store so that the next fetch asks
/// "changed since?" (`If-None-Match`, `If-Modified-Since`) and a 304 costs no decoding.
/// Add it to the container to turn conditional GET on:
///
/// ```swift
/// let container = try PersistentContainer(for: Post.self, HTTPValidator.self, storeURL: url)
/// ```
///
/// Kept only once the import it came with is saved, in the same transaction.
public final class HTTPValidator: ManagedObject {
    @Attribute(.unique) public var url: String
    @Attribute public var etag: String?
    @Attribute public var lastModified: String?
    /// The model class of the objects the answer held.
    @Attribute public var entity: String = ""
    /// Their row ids, in order, 8 bytes each (little-endian): what a 304 gives back.
    @Attribute public var rows = Data()

    /// `rows` as row ids.
    var rowIDs: [Int64] {
        get {
            stride(from: 0, to: rows.count - rows.count % 8, by: 8).map { offset in
                rows[rows.startIndex + offset..<rows.startIndex + offset + 8].reversed().reduce(Int64(0)) {
                    $0 << 8 | Int64($1)
                }
            }
        }
        set {
            var data = Data(capacity: newValue.count * 8)
            for rowID in newValue { withUnsafeBytes(of: rowID.littleEndian) { data.append(contentsOf: $0) } }
            rows = data
        }
    }
}
