/// The namespace URIs the feed readers look elements up in.
enum XMLNamespace {
    /// RSS 2.0 elements have no namespace; RSS 1.0 and 0.90 put theirs in one.
    static let rss: Set<String> = ["", "http://purl.org/rss/1.0/", "http://my.netscape.com/rdf/simple/0.9/"]
    static let atom: Set<String> = ["http://www.w3.org/2005/Atom", "http://purl.org/atom/ns#"]
    static let dublinCore: Set<String> = ["http://purl.org/dc/elements/1.1/"]
    static let dublinCoreTerms: Set<String> = ["http://purl.org/dc/terms/"]
    static let content: Set<String> = ["http://purl.org/rss/1.0/modules/content/"]
    static let rdf: Set<String> = ["http://www.w3.org/1999/02/22-rdf-syntax-ns#"]
    static let itunes: Set<String> = ["http://www.itunes.com/dtds/podcast-1.0.dtd"]
    static let xhtml: Set<String> = ["http://www.w3.org/1999/xhtml"]
}
