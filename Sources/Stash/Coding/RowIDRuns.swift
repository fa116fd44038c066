/// Row ids as they are kept in JSON records (StashREST's page validators): runs of
/// consecutive ids written `first-last`, others alone, comma-separated (`"1-100000"`, or
/// `"3,5-9"`), so that the records of a 100,000-row page are not 100,000 numbers twice
/// (JSONEncoder took about 0.1 s for them). Records written before, with arrays, are not
/// read (StashREST discards them: their model digest is missing).
package struct RowIDRuns: Codable, Sendable, Equatable {
    package var rowIDs: [Int64]

    package init(_ rowIDs: [Int64]) { self.rowIDs = rowIDs }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = Self.parse(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a list of row id runs: \(text)")
        }
        rowIDs = parsed
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// The runs as text, in the order the ids are in (a run only where each id is one more
    /// than the one before).
    package var text: String {
        var parts: [String] = []
        var index = rowIDs.startIndex
        while index < rowIDs.endIndex {
            var end = index
            while end + 1 < rowIDs.endIndex, rowIDs[end] < .max, rowIDs[end + 1] == rowIDs[end] + 1 { end += 1 }
            parts.append(end == index ? String(rowIDs[index]) : "\(rowIDs[index])-\(rowIDs[end])")
            index = end + 1
        }
        return parts.joined(separator: ",")
    }

    /// At most this many ids in all: a record holds one page's rows, and a damaged one must
    /// not ask for memory without end.
    static let limit = 50_000_000

    private static func parse(_ text: String) -> [Int64]? {
        guard !text.isEmpty else { return [] }
        var rowIDs: [Int64] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            // A negative first id has a leading "-": the separator is the one after it.
            let separator = part.dropFirst().firstIndex(of: "-")
            guard let separator else {
                guard let single = Int64(part), rowIDs.count < limit else { return nil }
                rowIDs.append(single)
                continue
            }
            guard let first = Int64(part[..<separator]), let last = Int64(part[part.index(after: separator)...]),
                first <= last
            else { return nil }
            let (span, overflow) = last.subtractingReportingOverflow(first)
            guard !overflow, span < limit - rowIDs.count else { return nil }
            rowIDs.append(contentsOf: first...last)
        }
        return rowIDs
    }
}
