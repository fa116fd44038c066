import Foundation
import Stash
import StashREST
import Testing

/// Another writer of the store file (the `sqlite3` shell, a process of its own, or another
/// container on the same file) commits while a paged import is between pages. What it wrote
/// into the pages' rows is not what the server sent: the validators the import keeps must not
/// vouch for it, or the next fetch's 304 keeps it for as long as the page stays the same.
@Suite struct RESTOtherWriterTests {
    private let path = "paged/w?pages=2&per_page=2"

    /// Who writes what the server never sent into item 1's row.
    enum Writer: String, CaseIterable, Sendable {
        case shell, otherContainer
    }

    /// Writes "mine" into item 1's title (or its tags), as `writer`.
    static func write(_ writer: Writer, file: URL, tags: Bool) {
        switch writer {
        case .shell:
            let sql =
                tags
                ? #"UPDATE "Item" SET "tags" = replace("tags", 't1', 'mine') WHERE "id" = 1"#
                : #"UPDATE "Item" SET "title" = 'mine' WHERE "id" = 1"#
            try! TemporaryStore.write(sql, to: file)
        case .otherContainer:
            let other = ManagedObjectContext(try! TemporaryStore.container(at: file))
            let item = try! other.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.id == 1 }))[0]
            if tags { item.tags = ["mine"] } else { item.title = "mine" }
            try! other.save()
        }
    }

    /// A client whose `number`th decode (counted over its imports) first lets `writer` write.
    static func client(
        _ server: TestServer, _ store: TemporaryStore, writer: Writer, tags: Bool, atDecode number: Int
    ) -> RESTClient {
        let calls = CallCounter()
        let file = store.file
        return testClient(server) { configuration in
            configuration.makeDecoder = {
                if calls.next() == number { write(writer, file: file, tags: tags) }
                return RESTConfiguration.defaultDecoder()
            }
        }
    }

    /// Saved page by page: page 1 is saved, then (while page 2 decodes) another process
    /// writes item 1's title, then page 2 is saved and the records written. Page 1's record
    /// must not take "mine" for the server's title: the next fetch puts "Item 1" back.
    @Test(arguments: Writer.allCases)
    func anEditByAnotherWriterBetweenSavedPagesIsUndoneByTheNextFetch(writer: Writer) async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        var options = FetchOptions()
        options.saving = .perPage
        let api = Self.client(server, store, writer: writer, tags: false, atDecode: 2)
        let first = try await api.fetchReporting([Item].self, from: path, into: context, options: options)
        #expect(first.report.inserted == 4)
        #expect(try store.sqlite(#"SELECT "title" FROM "Item" WHERE "id" = 1"#) == "mine")

        let again = try await testClient(server).fetchReporting(
            [Item].self, from: path, into: context, options: options)
        #expect(!again.report.notModified)
        #expect(try store.sqlite(#"SELECT "title" FROM "Item" WHERE "id" = 1"#) == "Item 1")
        #expect(try store.count("Item") == 4)
        let settled = try await testClient(server).fetchReporting([Item].self, from: path, into: context)
        #expect(settled.report.notModified && settled.value.map(\.id) == [1, 2, 3, 4])
    }

    /// Saved at once: both pages changed on the server and are decoded again; while page 2
    /// decodes, another writer changes item 1's tags (which page 1's decode set to what the row
    /// held). The save or the next fetch puts the server's tags back.
    @Test(arguments: Writer.allCases)
    func anEditByAnotherWriterBeforeTheSaveIsUndoneByTheNextFetch(writer: Writer) async throws {
        let (server, store, context) = try await serverAndEmptyStore()
        _ = try await testClient(server).fetch([Item].self, from: path, into: context)
        try await server.get("paged/w/edit?page=1&title=one")
        try await server.get("paged/w/edit?page=2&title=two")
        let api = Self.client(server, store, writer: writer, tags: true, atDecode: 2)
        let changed = try await api.fetchReporting([Item].self, from: path, into: context)
        #expect(changed.report.updated == 4)
        // The save wrote the tags page 1 decoded over "mine" (what it sets is written whole).
        #expect(try store.sqlite(#"SELECT "title", "tags" LIKE '%mine%' FROM "Item" WHERE "id" = 1"#) == "one 1|0")

        let again = try await testClient(server).fetchReporting([Item].self, from: path, into: context)
        #expect(try store.sqlite(#"SELECT "tags" LIKE '%mine%' FROM "Item" WHERE "id" = 1"#) == "0")
        #expect(again.value.map(\.tags) == [["t1"], ["t2"], ["t0"], ["t1"]])
        let settled = try await testClient(server).fetchReporting([Item].self, from: path, into: context)
        #expect(settled.report.notModified && settled.value.map(\.title) == ["one 1", "one 2", "two 3", "two 4"])
    }
}
