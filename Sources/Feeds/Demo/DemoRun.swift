import Foundation

/// `feeds demo`: the whole app against the project's own example feeds, served on 127.0.0.1
/// so it needs no internet. Starts `DemoServer`, subscribes (one feed found through an HTML
/// page), refreshes twice (the second answered by 304s), imports the bookmarks API in pages,
/// adds a bookmark with no network and pushes it to the API, searches, prints what landed and stops the server. A step that fails is reported and the
/// rest still run; the exit status is 1 if any failed.
public enum DemoRun {
    /// With `store == nil` a temporary store is used and deleted afterwards.
    public static func run(store: URL?, output: CommandOutput) async -> Int32 {
        let server: DemoServer
        do {
            server = try DemoServer(
                bookmarks: DemoContent.bookmarks, token: DemoContent.token, resources: DemoContent.resources)
        } catch {
            output.standardError("feeds: demo: cannot start the server: \(error)\n")
            return FeedsCommand.failure
        }
        defer { server.stop() }

        let temporary =
            store == nil
            ? FileManager.default.temporaryDirectory.appendingPathComponent(
                "feeds-demo-\(UUID().uuidString)") : nil
        defer { if let temporary { try? FileManager.default.removeItem(at: temporary) } }
        let storeURL = store ?? temporary!.appendingPathComponent("feeds.sqlite")

        var run = Steps(output: output)
        run.say("Serving the example feeds and a bookmarks API at \(server.baseURL.absoluteString)")
        run.say("Store: \(storeURL.path)\(store == nil ? " (temporary)" : "")\n")
        let library: FeedLibrary
        do {
            library = try FeedLibrary(storeURL: storeURL)
        } catch {
            output.standardError("feeds: demo: cannot open the store at \(storeURL.path): \(error)\n")
            return FeedsCommand.failure
        }
        await run.steps(library: library, server: server)

        server.stop()
        let log = server.requestLog
        let notModified = log.filter { $0.hasSuffix(" 304") }.count
        run.say(
            "\nStopped the server after \(log.count) requests (\(notModified) answered 304 Not Modified)."
                + (run.failures == 0 ? "" : " \(run.failures) step(s) failed; see above."))
        return run.failures == 0 ? FeedsCommand.success : FeedsCommand.failure
    }

    /// The demo's steps, counting the ones that failed.
    private struct Steps {
        let output: CommandOutput
        var failures = 0

        func say(_ text: String) { output.standardOutput(text + "\n") }

        mutating func fail(_ what: String, _ error: any Error) {
            failures += 1
            let message = (error as? FeedsError)?.message ?? String(describing: error)
            output.standardError("feeds: demo: \(what): \(message)\n")
        }

        mutating func steps(library: FeedLibrary, server: DemoServer) async {
            let base = server.baseURL.absoluteString
            let url = { (path: String) in base + String(path.dropFirst()) }

            say("1. Subscribing (the Atom feed is found through its HTML page)")
            for path in [DemoContent.rssPath, DemoContent.jsonFeedPath, DemoContent.pagePath] {
                do {
                    output.standardOutput("   " + FeedsText.added(try await library.add(url(path))))
                } catch {
                    fail(url(path), error)
                }
            }

            say("\n2. Refreshing twice, with conditional GET: an unchanged feed is answered 304")
            for pass in ["first", "second"] {
                let report = await library.refresh()
                output.standardOutput("   \(pass) refresh: " + FeedsText.refreshSummary(report))
                if pass == "second", !report.feeds.isEmpty, report.feeds.allSatisfy({ $0.status == .notModified }) {
                    say("   every feed answered 304 Not Modified: nothing was downloaded again")
                }
                for failure in report.failed {
                    failures += 1
                    output.standardError("feeds: demo: \(FeedsText.failure(failure))\n")
                }
            }

            say("\n3. Importing bookmarks from the linkding-style API, 20 a page")
            let api = url("/api/bookmarks/?limit=20")
            do {
                let report = try await library.importBookmarks(from: api, token: DemoContent.token)
                output.standardOutput("   " + FeedsText.imported(report, from: api))
            } catch {
                fail(api, error)
            }

            say("\n4. Bookmarking offline, then pushing the change to the API")
            do {
                let added = try await library.addBookmark(DemoContent.offlineBookmark, tags: ["offline"])
                output.standardOutput("   " + FeedsText.bookmark(added))
                output.standardOutput(indented(FeedsText.status(try await library.status())))
                let pushed = try await library.pushBookmarks(token: DemoContent.token)
                output.standardOutput(indented(FeedsText.pushed(pushed)))
                if server.bookmarks.contains(where: { $0.url == DemoContent.offlineBookmark }) {
                    say("   the API holds it now, with the id it gave it")
                }
            } catch {
                fail("push", error)
            }

            say("\n5. Searching for \u{201C}\(DemoContent.searchWord)\u{201D}")
            do {
                let results = try await library.search(DemoContent.searchWord)
                output.standardOutput(indented(FeedsText.search(results, for: DemoContent.searchWord)))
            } catch {
                fail("search", error)
            }

            say("\n6. What landed")
            do {
                output.standardOutput(indented(FeedsText.feeds(try await library.feeds())))
                var query = EntryQuery()
                query.limit = 5
                say("\n   The 5 newest entries:")
                output.standardOutput(indented(FeedsText.entries(try await library.entries(query))))
                let swift = try await library.bookmarks(tag: "swift")
                say("\n   Bookmarks tagged swift (any case): \(swift.count)")
                output.standardOutput(indented(FeedsText.bookmarks(Array(swift.prefix(3)))))
            } catch {
                fail("listing", error)
            }
        }

        private func indented(_ text: String) -> String {
            text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "   " + $0 }
                .joined(separator: "\n")
        }
    }
}
