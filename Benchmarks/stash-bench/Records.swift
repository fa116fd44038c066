import Foundation
import TestProcesses

/// The baseline's model: a plain struct with the same fields as `Article`, decoded by
/// the synthesized `Decodable` (the same keys and date strategy as the Stash run).
struct ArticleRecord: Decodable {
    let id: Int
    let title: String
    let subtitle: String?
    let body: String
    let url: URL
    let publishedAt: Date
    let score: Double
    let read: Bool
    let authorName: String
    let views: Int
}

/// A digest of every field of every article, so a fetch reads each attribute (nothing can
/// be skipped lazily) and both runs can be checked against what was generated.
struct Checksum: Equatable, CustomStringConvertible {
    var count = 0
    var ids = 0
    var textBytes = 0
    var urlBytes = 0
    var milliseconds: Int64 = 0
    var scoreHundredths = 0
    var readCount = 0
    var subtitleCount = 0
    var views = 0

    mutating func add(
        id: Int, title: String, subtitle: String?, body: String, url: URL, publishedAt: Date, score: Double,
        read: Bool, authorName: String, views: Int
    ) {
        count += 1
        ids &+= id
        textBytes &+= title.utf8.count &+ body.utf8.count &+ authorName.utf8.count
        if let subtitle {
            subtitleCount += 1
            textBytes &+= subtitle.utf8.count
        }
        urlBytes &+= url.absoluteString.utf8.count
        milliseconds &+= Timestamp.milliseconds(of: publishedAt)
        scoreHundredths &+= Int((score * 100).rounded())
        if read { readCount += 1 }
        self.views &+= views
    }

    var description: String {
        "count \(count), ids \(ids), text \(textBytes) B, urls \(urlBytes) B, subtitles \(subtitleCount), "
            + "read \(readCount), views \(views), ms \(milliseconds), score \(scoreHundredths)"
    }
}

/// The REST payload both runs import: a JSON array of articles, camelCase keys, dates in
/// ISO 8601 with milliseconds, `subtitle` sometimes null and sometimes absent.
struct Payload {
    let data: Data
    let count: Int
    /// What a fetch of the imported rows must add up to.
    let expected: Checksum
    /// Where each record's JSON object starts in `data`.
    let recordOffsets: [Int]

    /// The records as pages of `size`, each a JSON array of its own.
    func pages(of size: Int) -> [Data] {
        stride(from: 0, to: count, by: size).map { first in
            let last = min(first + size, count)
            let start = recordOffsets[first]
            // Up to the comma before the next page's first record, or the closing bracket.
            let end = last < count ? recordOffsets[last] - 1 : data.count - 1
            return Data("[".utf8) + data[start..<end] + Data("]".utf8)
        }
    }

    /// Generates `count` articles deterministically from `seed`, about 470 bytes each, with
    /// ids from `firstID` in steps of 7.
    static func generate(count: Int, seed: UInt64 = 0x5747_4153_4845_4E43, firstID: Int = 1_000_000) -> Payload {
        var random = SplitMix64(seed: seed)
        var expected = Checksum()
        var json = "["
        json.reserveCapacity(count * 500)
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        // 2015-01-01T00:00:00Z to 2025-01-01T00:00:00Z.
        let start: Int64 = 1_420_070_400_000
        let span: Int64 = 315_619_200_000
        for index in 0..<count {
            let id = firstID + index * 7
            let title = sentence(words: Int.random(in: 4...8, using: &random), using: &random, capitalized: true)
            let subtitleRoll = Int.random(in: 0..<10, using: &random)
            let subtitle: String? =
                subtitleRoll < 6 ? sentence(words: Int.random(in: 5...9, using: &random), using: &random) : nil
            var body = sentence(words: Int.random(in: 22...32, using: &random), using: &random, capitalized: true)
            if Int.random(in: 0..<10, using: &random) == 0 {
                body += " As one reader put it, \"\(sentence(words: 4, using: &random))\"."
            }
            let slug = sentence(words: 4, using: &random).replacingOccurrences(of: " ", with: "-")
            let milliseconds = start + Int64.random(in: 0..<span, using: &random)
            let url = "https://news.example.com/\(1970 + milliseconds / 31_556_952_000)/\(slug)-\(id)?ref=feed"
            let score = Double(Int.random(in: 0..<1_000_000, using: &random)) / 100
            let read = Bool.random(using: &random)
            let authorName =
                "\(firstNames.randomElement(using: &random)!) \(lastNames.randomElement(using: &random)!)"
            let views = Int.random(in: 0..<5_000_000, using: &random)

            if index > 0 { json += "," }
            offsets.append(json.utf8.count)
            json += "{\"id\":\(id),\"title\":\(quoted(title)),"
            if let subtitle {
                json += "\"subtitle\":\(quoted(subtitle)),"
            } else if subtitleRoll < 8 {
                json += "\"subtitle\":null,"
            }
            json += "\"body\":\(quoted(body)),\"url\":\(quoted(url)),"
            json += "\"publishedAt\":\"\(Timestamp.string(milliseconds: milliseconds))\","
            json += "\"score\":\(score),\"read\":\(read),\"authorName\":\(quoted(authorName)),\"views\":\(views)}"

            expected.add(
                id: id, title: title, subtitle: subtitle, body: body, url: URL(string: url)!,
                publishedAt: Timestamp.date(milliseconds: milliseconds), score: score, read: read,
                authorName: authorName, views: views)
        }
        json += "]"
        return Payload(data: Data(json.utf8), count: count, expected: expected, recordOffsets: offsets)
    }

    private static func sentence(words: Int, using random: inout SplitMix64, capitalized: Bool = false) -> String {
        var text = ""
        for index in 0..<words {
            if index > 0 { text += " " }
            let word = vocabulary.randomElement(using: &random)!
            text += index == 0 && capitalized ? word.prefix(1).uppercased() + word.dropFirst() : word
        }
        return text
    }

    /// A JSON string literal; the generator's text needs only `"` and `\` escaped.
    private static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text.unicodeScalars {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default: result.unicodeScalars.append(character)
            }
        }
        return result + "\""
    }

    /// Mostly ASCII, with a few accented words so the decoder sees multi-byte UTF-8.
    private static let vocabulary = [
        "swift", "server", "release", "update", "performance", "database", "network", "design", "feature",
        "open", "source", "community", "platform", "linux", "memory", "safety", "concurrency", "actor", "task",
        "query", "index", "storage", "cache", "request", "response", "latency", "throughput", "model", "schema",
        "migration", "story", "report", "analysis", "week", "today", "new", "fast", "simple", "modern", "robust",
        "the", "a", "of", "and", "with", "for", "in", "on", "to", "how", "why", "what", "we", "our", "their",
        "café", "naïve", "résumé", "Zürich", "São", "Paulo", "garçon", "déjà", "vu",
    ]
    private static let firstNames = [
        "Ada", "Grace", "Linus", "Ken", "Barbara", "Edsger", "Margaret", "Donald", "Frances", "John", "Radia",
        "Chris", "Léa", "Jürgen", "Søren", "Ana",
    ]
    private static let lastNames = [
        "Lovelace", "Hopper", "Torvalds", "Thompson", "Liskov", "Dijkstra", "Hamilton", "Knuth", "Allen",
        "Backus", "Perlman", "Lattner", "Müller", "Kierkegaard", "Peña",
    ]
}
