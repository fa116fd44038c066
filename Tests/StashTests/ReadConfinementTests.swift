// Debug builds only: release builds check writes and entry points, not reads.
#if DEBUG
    import Dispatch
    import Foundation
    @testable import Stash
    import Testing

    /// Debug builds check reads as every build checks writes: an attribute or relationship read
    /// off its context's isolation traps, naming the property; reads where the context is used,
    /// and of objects in no context, pass.
    @Suite(.bothStores) struct ReadConfinementTests {
        // MARK: Misplaced reads trap

        @Test func anAttributeReadOutsidePerformTraps() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let container = try testContainer(for: Post.self, inMemory: true)
                let background = container.newBackgroundContext()
                let box = await background.perform { CrossingBox(makePost(in: background)) }
                _ = box.object.title
            }
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("Stash: Post.title was read outside background context"))
            #expect(message.contains(".perform { … }, off the queue to which the context belongs"))
        }

        @Test func anAttributeReadOffTheMainActorTraps() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let container = try testContainer(for: Post.self, inMemory: true)
                let box = await MainActor.run { CrossingBox(makePost(in: container.mainContext)) }
                _ = box.object.title
            }
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("Stash: Post.title was read off the main actor, to which mainContext belongs"))
        }

        @Test func anAttributeReadWhileAnotherThreadIsInsideAnUnconfinedContextTraps() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let container = try testContainer(for: Blocking.self, inMemory: true)
                let context = ManagedObjectContext(container)
                let first = try recipeDecoder(context).decode(Blocking.self, from: json(#"{"id": 1}"#))
                let inside = DispatchSemaphore(value: 0)
                Blocking.entered = inside
                Thread.detachNewThread {
                    // Decoding makes a blank object inside the context, which then waits.
                    _ = try? recipeDecoder(context).decode(Blocking.self, from: json(#"{"id": 2}"#))
                }
                inside.wait()
                _ = first.id
            }
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("Stash: Blocking.id was read by one thread while another was inside context"))
            #expect(message.contains("which belongs to one task at a time"))
        }

        @Test func anAttributeReadOffTheActorOfItsContextTraps() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let container = try testContainer(for: Post.self, inMemory: true)
                let box = await PostKeeper(container: container).keepPost()
                _ = box.object.title
            }
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            // The runtime's check, naming the actor: Swift has none that tells without trapping.
            #expect(message.contains("Incorrect actor executor assumption; expected 'StashTests.PostKeeper' executor"))
        }

        @Test func aToOneRelationshipReadOutsidePerformTraps() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let container = try graphContainer()
                let background = container.newBackgroundContext()
                let box = await background.perform { CrossingBox(makeBook(in: background)) }
                _ = box.object.writer
            }
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("Stash: Book.writer was read outside background context"))
        }

        @Test func aToManyRelationshipReadOutsidePerformTraps() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let container = try graphContainer()
                let background = container.newBackgroundContext()
                let box = await background.perform { CrossingBox(makeBook(in: background).writer!) }
                _ = box.object.books
            }
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("Stash: Writer.books was read outside background context"))
        }

        // MARK: Reads where the context is used pass

        @Test func readsInPerformPass() async throws {
            let container = try graphContainer()
            let background = container.newBackgroundContext()
            let read = await background.perform { () -> String in
                #expect(background.misplacedRead() == nil)
                let book = makeBook(in: background)
                return "\(book.title) by \(book.writer!.name), \(book.writer!.books.count) book"
            }
            #expect(read == "Dune by Frank Herbert, 1 book")
            // From here, off the queue, the check would trap: it says why without trapping.
            #expect(background.misplacedRead()?.contains("outside \(background.name).perform { … }") == true)
        }

        @MainActor @Test func readsOnTheMainActorPass() async throws {
            let container = try testContainer(for: Post.self, inMemory: true)
            let post = makePost(in: container.mainContext)
            #expect(container.mainContext.misplacedRead() == nil)
            #expect(post.title == "A title")
            // Code on the main queue outside any task (a dispatch block) is on the main actor too.
            let box = CrossingBox(post)
            let title = await withCheckedContinuation { continuation in
                DispatchQueue.main.async { continuation.resume(returning: box.object.title) }
            }
            #expect(title == "A title")
            let main = container.mainContext
            let offMain = await Task.detached { main.misplacedRead() }.value
            #expect(offMain == "off the main actor, to which mainContext belongs")
        }

        @Test func readsInTheActorOfTheirContextPass() async throws {
            let container = try testContainer(for: Post.self, inMemory: true)
            let keeper = PostKeeper(container: container)
            _ = await keeper.keepPost()
            #expect(await keeper.readTitle() == "A title")
        }

        @Test func anUnconfinedContextsObjectsReadFromOneTaskAtATimePass() async throws {
            let container = try testContainer(for: Post.self, inMemory: true)
            let context = ManagedObjectContext(container)
            let post = makePost(in: context)
            let box = CrossingBox(post)
            // Another thread, while no other is inside the context: one task at a time.
            let title = await Task.detached { box.object.title }.value
            #expect(title == "A title")
            let onAThread = await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: box.object.title) }
            }
            #expect(onAThread == "A title")
            #expect(context.misplacedRead() == nil)
        }

        // MARK: Objects in no context are not checked

        @Test func objectsInNoContextReadAnywhere() async throws {
            let container = try testContainer(for: Post.self, inMemory: true)
            let background = container.newBackgroundContext()
            // Never inserted, reset out of its context, and new then deleted: each in none.
            let boxes = await background.perform { () -> [CrossingBox<Post>] in
                let never = Post()
                never.title = "never inserted"
                let reset = makePost(in: background)
                reset.title = "reset"
                try? background.save()
                background.reset()
                let deleted = makePost(in: background, id: 2)
                deleted.title = "deleted"
                background.delete(deleted)
                return [never, reset, deleted].map(CrossingBox.init)
            }
            #expect(boxes.allSatisfy { $0.object.managedObjectContext == nil })
            #expect(boxes.map(\.object.title) == ["never inserted", "reset", "deleted"])
        }
    }

    /// Carries an object out of its context's isolation, on purpose, to show the check.
    final class CrossingBox<Object: ManagedObject>: @unchecked Sendable {
        let object: Object
        init(_ object: Object) { self.object = object }
    }

    /// An actor whose context is made in its methods, and so belongs to it.
    actor PostKeeper {
        let container: PersistentContainer
        var context: ManagedObjectContext?
        var post: Post?

        init(container: PersistentContainer) { self.container = container }

        func keepPost() -> CrossingBox<Post> {
            let context = ManagedObjectContext(container)
            self.context = context
            let post = makePost(in: context)
            self.post = post
            return CrossingBox(post)
        }

        func readTitle() -> String? { post?.title }
    }

    /// A post with every required attribute set, inserted into `context`.
    func makePost(in context: ManagedObjectContext, id: Int = 1) -> Post {
        let post = Post(context: context)
        post.id = id
        post.userId = 1
        post.title = "A title"
        post.body = "A body"
        return post
    }

    /// A book and its writer, inserted into `context`.
    func makeBook(in context: ManagedObjectContext) -> Book {
        let writer = Writer(context: context)
        writer.id = 1
        writer.name = "Frank Herbert"
        let book = Book(context: context)
        book.id = 1
        book.title = "Dune"
        book.writer = writer
        return book
    }
#endif
