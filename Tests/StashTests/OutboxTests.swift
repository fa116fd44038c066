import Foundation
import Testing

@testable import Stash

/// A model whose edits go back to its API (issue 19).
final class OutboxNote: ManagedObject, Codable, RemoteModel {
    static let remotePath = "notes"
    static var localAttributes: [PartialKeyPath<OutboxNote>] { [\.read] }
    @Attribute(.unique) var id: UUID = UUID()
    @Attribute var title: String = ""
    @Attribute var body: String = ""
    @Attribute var read: Bool = false
}

/// Issue 19, the store's side: a save records `RemoteModel` edits in `_stash_outbox` in its
/// own transaction, merged while they wait; a write of what a server sent keeps them.
@Suite(.sqliteOnly("the outbox lives in the SQLite file (refused by name on PostgreSQL)")) struct OutboxTests {
    let directory: TemporaryDirectory
    let container: PersistentContainer

    init() throws {
        directory = try TemporaryDirectory()
        container = try testContainer(for: OutboxNote.self, Post.self, storeURL: directory.file())
    }

    /// `method|attributes|key`, one line per operation, in order.
    func outbox() throws -> String {
        try sqliteShell(
            directory.file(), "SELECT \"method\", \"attributes\", \"key\" FROM \"_stash_outbox\" ORDER BY \"sequence\"")
    }

    func note(_ context: ManagedObjectContext, _ title: String) -> OutboxNote {
        let note = OutboxNote(context: context)
        note.title = title
        return note
    }

    @Test func aSaveRecordsAPostAPatchOfWhatChangedAndADelete() throws {
        let context = ManagedObjectContext(container)
        let first = note(context, "one")
        try context.save()
        let key = first.id.uuidString
        #expect(try outbox() == "POST||\(key)\n")
        try container.updateOutbox(acknowledged: try container.outboxOperations().map(\.sequence))
        #expect(try container.pendingChangeCount() == 0)

        first.body = "text"
        try context.save()
        #expect(try outbox() == "PATCH|body|\(key)\n")
        try container.updateOutbox(acknowledged: try container.outboxOperations().map(\.sequence))

        context.delete(first)
        try context.save()
        #expect(try outbox() == "DELETE||\(key)\n")
    }

    @Test func modelsThatAreNotRemoteRecordNothingAndLocalAttributesAreNotSent() throws {
        let context = ManagedObjectContext(container)
        let post = Post(context: context)
        post.id = 1
        post.userId = 1
        post.title = "t"
        post.body = "b"
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT count(*) FROM sqlite_master WHERE name LIKE '_stash_outbox%'")
                == "0\n")

        let first = note(context, "one")
        try context.save()
        try container.updateOutbox(acknowledged: try container.outboxOperations().map(\.sequence))
        first.read = true
        try context.save()
        #expect(try outbox() == "")
        #expect(try sqliteShell(directory.file(), "SELECT \"read\" FROM OutboxNote") == "1\n")
    }

    @Test func editsBeforeAPushMergeIntoOneOperation() throws {
        let context = ManagedObjectContext(container)
        // insert + update: one POST.
        let first = note(context, "one")
        try context.save()
        first.title = "one, edited"
        try context.save()
        let firstKey = first.id.uuidString
        #expect(try outbox() == "POST||\(firstKey)\n")
        // insert + delete: nothing.
        let second = note(context, "two")
        try context.save()
        context.delete(second)
        try context.save()
        #expect(try outbox() == "POST||\(firstKey)\n")
        try container.updateOutbox(acknowledged: try container.outboxOperations().map(\.sequence))

        // update + update: one PATCH of both, its idempotency key kept.
        first.title = "again"
        try context.save()
        let idempotencyKey = try container.outboxOperations()[0].idempotencyKey
        first.body = "text"
        try context.save()
        #expect(try outbox() == "PATCH|title,body|\(firstKey)\n")
        #expect(try container.outboxOperations()[0].idempotencyKey == idempotencyKey)
        // update + delete: a DELETE.
        context.delete(first)
        try context.save()
        #expect(try outbox() == "DELETE||\(firstKey)\n")
    }

    @Test func anOperationAlreadySentTakesNoLaterEditButARefusedOneDoes() throws {
        let context = ManagedObjectContext(container)
        let first = note(context, "one")
        try context.save()
        try container.updateOutbox(acknowledged: try container.outboxOperations().map(\.sequence))
        first.title = "two"
        try context.save()
        let sent = try container.outboxOperations()[0]
        try container.updateOutbox(attempted: OutboxAttempt(sequence: sent.sequence, body: nil))
        first.body = "text"
        try context.save()
        let key = first.id.uuidString
        #expect(try outbox() == "PATCH|title|\(key)\nPATCH|body|\(key)\n")

        // The server refused the second (a 422): the fix merges into it, with a new key.
        let refused = try container.outboxOperations()[1]
        try container.updateOutbox(
            attempted: OutboxAttempt(sequence: refused.sequence, body: nil),
            failed: (refused.sequence, "body: too short"))
        first.body = "a longer text"
        first.title = "three"
        try context.save()
        let operations = try container.outboxOperations()
        #expect(operations.count == 2)
        #expect(operations[1].attributes == ["body", "title"])
        #expect(operations[1].failure == nil && operations[1].attempts == 0)
        #expect(operations[1].idempotencyKey != refused.idempotencyKey)
        #expect(operations[0].idempotencyKey == sent.idempotencyKey)
    }

    @Test func aFailedSaveRecordsNothing() throws {
        let context = ManagedObjectContext(container)
        _ = note(context, "one")
        let post = Post(context: context)
        post.id = 1  // the other required values are never set
        #expect(throws: StashError.self) { try context.save() }
        #expect(
            try sqliteShell(directory.file(), "SELECT count(*) FROM sqlite_master WHERE name = '_stash_outbox'")
                == "0\n")
        context.delete(post)
        try context.save()
        #expect(try container.pendingChangeCount() == 1)
    }

    @Test func aWriteOfWhatTheServerSentKeepsTheEditsStillWaiting() throws {
        let context = ManagedObjectContext(container)
        let first = note(context, "one")
        first.body = "body"
        try context.save()
        try container.updateOutbox(acknowledged: try container.outboxOperations().map(\.sequence))
        first.title = "local title"
        try context.save()

        // A fetch's answer: the server does not have the local title yet.
        let fetch = ManagedObjectContext(container)
        fetch.recordsEdits = false
        let key = first.id.uuidString
        _ = try recipeDecoder(fetch).decode(
            OutboxNote.self, from: json(#"{"id": "\#(key)", "title": "server title", "body": "server body"}"#))
        try fetch.save()
        #expect(try sqliteShell(directory.file(), "SELECT title, body FROM OutboxNote") == "local title|server body\n")
        #expect(try outbox() == "PATCH|title|\(key)\n")

        // Once acknowledged, the server's values are written.
        try container.updateOutbox(acknowledged: try container.outboxOperations().map(\.sequence))
        _ = try recipeDecoder(fetch).decode(
            OutboxNote.self, from: json(#"{"id": "\#(key)", "title": "server title", "body": "server body"}"#))
        try fetch.save()
        #expect(try sqliteShell(directory.file(), "SELECT title, body FROM OutboxNote") == "server title|server body\n")
        #expect(try outbox() == "")
    }

    @Test func aPushAcknowledgementIsWrittenWithTheServersAnswer() throws {
        let context = ManagedObjectContext(container)
        let first = note(context, "one")
        try context.save()
        let operation = try container.outboxOperations()[0]
        let answer = ManagedObjectContext(container)
        answer.recordsEdits = false
        let key = first.id.uuidString
        _ = try recipeDecoder(answer).decode(
            OutboxNote.self, from: json(#"{"id": "\#(key)", "title": "one", "body": "made by the server"}"#))
        try answer.saveAcknowledging(
            [operation.sequence], etags: [OutboxETag(entityName: "OutboxNote", rowID: operation.rowID, value: "\"v1\"")]
        )
        #expect(try outbox() == "")
        #expect(try sqliteShell(directory.file(), "SELECT body FROM OutboxNote") == "made by the server\n")
        #expect(try container.rowETags([operation.objectID]) == [operation.objectID: "\"v1\""])
        // Nothing to write but the acknowledgement: written alone.
        first.title = "two"
        try context.save()
        let next = try container.outboxOperations()[0]
        try answer.saveAcknowledging([next.sequence], etags: [])
        #expect(try outbox() == "")
    }

    @Test func outboxStatesFollowSavesRefusalsAndAcknowledgements() async throws {
        var states = container.outboxStates().makeAsyncIterator()
        #expect(await states.next() == OutboxState(waiting: 0, refused: 0))
        let context = ManagedObjectContext(container)
        _ = note(context, "one")
        _ = note(context, "two")
        try context.save()
        let waiting = await states.next()
        #expect(waiting == OutboxState(waiting: 2, refused: 0))
        #expect(waiting?.description == "2 changes waiting")

        let operations = try container.outboxOperations()
        try container.updateOutbox(
            attempted: OutboxAttempt(sequence: operations[0].sequence, body: nil),
            failed: (operations[0].sequence, "HTTP 422: title: too short"))
        let refused = await states.next()
        #expect(refused == OutboxState(waiting: 2, refused: 1))
        #expect(refused?.description == "2 changes waiting (1 refused)")
        try container.updateOutbox(acknowledged: operations.map(\.sequence))
        #expect(await states.next() == OutboxState(waiting: 0, refused: 0))
        #expect(try container.outboxState().description == "0 changes waiting")
    }
}
