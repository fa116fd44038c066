import Foundation

/// An OPML subscription list: a title and a tree of outlines (feeds inside folders).
///
/// For example:
///
///     let document = try OPMLDocument.parse(data)
///     for feed in document.feeds { print(feed.folderPath, feed.url) }   // ["Tech"] https://…
///     let xml = OPMLDocument(title: "feeds", feeds: document.feeds).xml()  // the same tree
public struct OPMLDocument: Sendable, Equatable {
    public var title: String
    public var outlines: [OPMLOutline]

    public init(title: String = "", outlines: [OPMLOutline] = []) {
        self.title = title
        self.outlines = outlines
    }

    /// The tree the folder paths describe: folders in the order first named, feeds in order.
    public init(title: String = "", feeds: [OPMLFeed]) {
        self.title = title
        outlines = []
        for feed in feeds {
            let outline = OPMLOutline(title: feed.title, xmlURL: feed.url, htmlURL: feed.siteURL)
            OPMLDocument.insert(outline, at: feed.folderPath[...], into: &outlines)
        }
    }

    private static func insert(_ outline: OPMLOutline, at path: ArraySlice<String>, into outlines: inout [OPMLOutline])
    {
        guard let folder = path.first else {
            outlines.append(outline)
            return
        }
        if let index = outlines.firstIndex(where: { !$0.isFeed && $0.title == folder }) {
            insert(outline, at: path.dropFirst(), into: &outlines[index].children)
        } else {
            var created = OPMLOutline.folder(folder, [])
            insert(outline, at: path.dropFirst(), into: &created.children)
            outlines.append(created)
        }
    }

    /// Every feed, depth first in document order, with the titles of the folders above it.
    public var feeds: [OPMLFeed] {
        var feeds: [OPMLFeed] = []
        func walk(_ outlines: [OPMLOutline], _ path: [String]) {
            for outline in outlines {
                if let url = outline.xmlURL {
                    feeds.append(OPMLFeed(folderPath: path, url: url, title: outline.title, siteURL: outline.htmlURL))
                }
                walk(outline.children, path + [outline.title])
            }
        }
        walk(outlines, [])
        return feeds
    }

    /// Every folder's path (a folder is an outline without `xmlUrl`), parents first.
    public var folders: [[String]] {
        var folders: [[String]] = []
        func walk(_ outlines: [OPMLOutline], _ path: [String]) {
            for outline in outlines where !outline.isFeed {
                folders.append(path + [outline.title])
                walk(outline.children, path + [outline.title])
            }
        }
        walk(outlines, [])
        return folders
    }

    /// Reads OPML 1.0 or 2.0. Throws `OPMLError` for anything that is not a whole OPML
    /// document (broken XML, another root, no `<body>`, cut off); entity declarations are
    /// refused, so nothing is expanded or fetched.
    public static func parse(_ data: Data) throws -> OPMLDocument {
        try OPMLReader.read(data)
    }

    /// OPML 2.0, two-space indented, attributes escaped; folders carry `text` and `title`,
    /// feeds `type="rss"`, `text`, `title`, `xmlUrl` and `htmlUrl` when known.
    public func xml() -> String {
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<opml version=\"2.0\">",
            "  <head>",
            "    <title>\(OPMLDocument.escape(title))</title>",
            "  </head>",
            "  <body>",
        ]
        func write(_ outlines: [OPMLOutline], indent: String) {
            for outline in outlines {
                let title = OPMLDocument.escape(outline.title)
                var attributes = "text=\"\(title)\" title=\"\(title)\""
                if let url = outline.xmlURL {
                    attributes = "type=\"rss\" " + attributes + " xmlUrl=\"\(OPMLDocument.escape(url))\""
                }
                if let site = outline.htmlURL { attributes += " htmlUrl=\"\(OPMLDocument.escape(site))\"" }
                if outline.children.isEmpty {
                    lines.append("\(indent)<outline \(attributes)/>")
                } else {
                    lines.append("\(indent)<outline \(attributes)>")
                    write(outline.children, indent: indent + "  ")
                    lines.append("\(indent)</outline>")
                }
            }
        }
        write(outlines, indent: "    ")
        lines += ["  </body>", "</opml>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Escapes for text and attribute values; line breaks and tabs as character references
    /// (an attribute would otherwise read them back as spaces); other control characters,
    /// which XML 1.0 cannot carry, dropped.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "\n": escaped += "&#10;"
            case "\r": escaped += "&#13;"
            case "\t": escaped += "&#9;"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: continue
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
