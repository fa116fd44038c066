import Foundation

/// One request at a time per host, and hosts that asked to be left alone (`Retry-After`)
/// left alone: a feed reader's manners, which a site with many feeds notices.
actor HostGate {
    private var busy: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    private var blockedUntil: [String: Date] = [:]

    /// Waits until no other request to `host` is under way, then holds it until `leave`.
    func enter(_ host: String) async {
        guard busy.contains(host) else {
            busy.insert(host)
            return
        }
        await withCheckedContinuation { waiting[host, default: []].append($0) }
    }

    /// Lets the next request to `host` go (the host stays held for it).
    func leave(_ host: String) {
        if var queue = waiting[host], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[host] = queue.isEmpty ? nil : queue
            next.resume()
        } else {
            busy.remove(host)
        }
    }

    /// `host` asked to wait until `date`: requests to it before then are not sent.
    func block(_ host: String, until date: Date) {
        blockedUntil[host] = max(date, blockedUntil[host] ?? date)
    }

    /// When `host` may be asked again, if it asked to wait and that time is still ahead.
    func blocked(_ host: String, now: Date = Date()) -> Date? {
        guard let until = blockedUntil[host], until > now else { return nil }
        return until
    }
}
