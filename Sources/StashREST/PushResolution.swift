import Foundation

/// How a conflict ends.
public enum PushResolution: Sendable, Equatable {
    /// The server's version is read back into the row; the local edit is left in
    /// `PushReport.conflicts`.
    case serverWins
    /// The local edit is sent again without `If-Match`, overwriting the server's version.
    case localWins
}
