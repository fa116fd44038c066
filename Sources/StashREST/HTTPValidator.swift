import Foundation
import Stash

/// Deprecated: conditional GET no longer needs a model. Stash keeps validators itself, per
/// page URL, in its own table `_stash_http_validators` (`RESTConfiguration.keepsValidators`).
///
/// Kept so that a container that still lists it (a store made before) opens and works: its
/// table is left as it was and no longer read or written, and the first fetch of a URL
/// after the upgrade is a full one. Drop it from the models when convenient; its rows stay in
/// the file until removed by hand. Not marked `@available(*, deprecated)`, so that such a
/// container builds without warnings.
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
