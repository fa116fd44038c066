import Foundation

/// How long a failing feed is left alone: 5 minutes after the first failure, doubling with
/// each failure in a row, at most a day; longer if the server asked (`Retry-After`).
enum Backoff {
    static let first: TimeInterval = 5 * 60
    static let longest: TimeInterval = 24 * 60 * 60

    /// The next refresh of a feed that has now failed `failures` times in a row.
    static func nextRefresh(after failures: Int, retryAfter: TimeInterval? = nil, now: Date = Date()) -> Date {
        let exponent = min(max(failures - 1, 0), 20)
        let wait = min(first * pow(2, Double(exponent)), longest)
        return now.addingTimeInterval(max(wait, retryAfter ?? 0))
    }
}
