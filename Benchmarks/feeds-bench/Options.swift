import Foundation

/// Command-line options; the defaults are the scale issue 16 asks for (1,000 feeds,
/// 500,000 entries, 50 changed).
struct Options {
    var feeds = 1000
    var entries = 500
    var changed = 50
    var hosts = 8
    /// How long the first `feeds()` may take before the step is given up.
    var listDeadline = 60.0
    /// Where the store goes; a temporary folder, deleted after, when not given.
    var store: String?

    static let usage = """
        usage: feeds-bench [--feeds N] [--entries M] [--changed C] [--hosts H] [--store PATH]
                           [--list-deadline S]
          --feeds N     feeds subscribed to (default 1000)
          --entries M   entries in each feed's document (default 500)
          --changed C   feeds that publish 5 new entries before the second refresh (default 50)
          --hosts H     loopback hosts the feeds are spread over, 1 to 8 (default 8); with more
                        than 1, the refreshes are measured again with every feed on one host
          --store PATH  the store file (kept); default a temporary folder, deleted after
          --list-deadline S  seconds the first feeds() may take before step 6 is reported as not
                        finished (default 60)
        CI's smoke run: feeds-bench --feeds 40 --entries 50 --changed 5
        """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--feeds", "--entries", "--changed", "--hosts":
                guard let text = remaining.popFirst(), let value = Int(text), value > 0 else {
                    fail("\(argument) needs a positive whole number")
                }
                switch argument {
                case "--feeds": options.feeds = value
                case "--entries": options.entries = value
                case "--changed": options.changed = value
                default: options.hosts = value
                }
            case "--list-deadline":
                guard let text = remaining.popFirst(), let value = Double(text), value > 0 else {
                    fail("--list-deadline needs a positive number of seconds")
                }
                options.listDeadline = value
            case "--store":
                guard let path = remaining.popFirst(), !path.isEmpty else { fail("--store needs a path") }
                options.store = path
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                fail("unknown argument \(argument)")
            }
        }
        guard options.hosts <= 8 else { fail("--hosts is at most 8 (127.0.0.1 to 127.0.0.8)") }
        guard options.changed <= options.feeds else { fail("--changed is at most --feeds") }
        guard options.entries >= 5 else { fail("--entries is at least 5 (a change publishes 5)") }
        return options
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("feeds-bench: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}
