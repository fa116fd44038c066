import Foundation
import Stash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The pages of a paged import asked for ahead of its decode: the next page as soon as an
/// answer names it (its `Link` header, a next URL or cursor in its body), from the task that
/// received that answer. Neither the page's decode nor the import's loop stands between two
/// requests, so a paged import waits only for the slower of its transport and its decode.
///
/// Only the pages the loop would ask for next anyway, in its order:
/// - none past `FetchOptions.pageLimit` and none visited;
/// - none whose URL fails the checks a redirect gets;
/// - none after an answer the loop would refuse (its content type) or one that names no page
///   before its decode (a 304: the loop reads where it leads from what it kept).
///
/// At most `depth` pages are asked for and not yet taken; the page the last of them names
/// is asked for as the loop takes one. A page the loop does not take next (it went elsewhere) is cancelled with every
/// page after it.
final class PageReadAhead<Validator: Sendable>: Sendable {
    /// A page asked for: its URL, and its answer on its way.
    struct Page: Sendable {
        let url: URL
        let answer: Task<Answer, any Error>
    }

    /// A page's answer, the validators its request sent, and the page it names before its
    /// decode (`Asking.next`), found once for the read-ahead and the loop: for a next URL in
    /// the body, that is a scan of the whole body.
    struct Answer: Sendable {
        let stored: Validator?
        let data: Data
        let response: HTTPURLResponse
        let next: URL?
    }

    /// What asking for a page takes, from the import.
    struct Asking: Sendable {
        let client: RESTClient
        let progress: AsyncStream<RESTProgress>.Continuation?
        let pageLimit: Int
        /// The validators kept for a page URL, if the call sends any.
        let validator: @Sendable (URL) async throws -> Validator?
        /// The request for a page URL, with the validators kept for it.
        let request: @Sendable (URL, Validator?) -> URLRequest
        /// The page an answer leads to, if it names one before its decode and the loop would
        /// decode it.
        let next: @Sendable (URL, HTTPURLResponse, Data) -> URL?
    }

    private struct State {
        /// The page the loop is on, and its number (1 for the first).
        var current: URL?
        var number = 0
        /// The pages asked for after it, in order.
        var asked: [Page] = []
        /// Every page the loop visited or that was asked for.
        var visited: Set<URL> = []
        /// The page the last one asked for names, not asked for while `depth` pages waited:
        /// asked for as the loop takes one.
        var held: (after: URL, next: URL)?
        var stopped = false
    }

    private let asking: Asking
    private let depth: Int
    private let state = Locked(State())

    init(_ asking: Asking, depth: Int = 2) {
        self.asking = asking
        self.depth = depth
    }

    /// The loop is on page `number`, at `url`: its answer if it was asked for ahead. Any page
    /// asked for that is not the loop's next is cancelled, with the pages after it.
    func take(_ url: URL, number: Int) -> Page? {
        state.withLock { state in
            state.current = url
            state.number = number
            state.visited.insert(url)
            let held = state.held
            state.held = nil
            guard let first = state.asked.first else { return nil }
            guard first.url == url else {
                for page in state.asked { page.answer.cancel() }
                state.asked = []
                return nil
            }
            state.asked.removeFirst()
            // A page taken makes room: the page the last one named is asked for now.
            if let held, !state.stopped, state.asked.last?.url == held.after,
                mayAsk(held.next, after: held.after, from: number + state.asked.count, state)
            {
                ask(held.next, in: &state)
            }
            return first
        }
    }

    /// Asks for `next`, where the loop's page at `url` leads, unless it was asked already.
    func follow(_ next: URL, after url: URL) throws {
        // A cancelled import sends nothing more (its decode would not notice in time).
        try Task.checkCancellation()
        state.withLock { state in
            guard !state.stopped, state.asked.isEmpty, mayAsk(next, after: url, from: state.number, state) else {
                return
            }
            ask(next, in: &state)
        }
    }

    /// Cancels every page asked for and asks for no more: the loop is done or went elsewhere.
    func stop() {
        state.withLock { state in
            state.stopped = true
            for page in state.asked { page.answer.cancel() }
            state.asked = []
            state.held = nil
        }
    }

    /// Asks for `next`, which the answer for `url` names, if `url` is the last page asked for
    /// (or the loop's current one) and fewer than `depth` wait to be taken.
    private func answered(_ url: URL, naming next: URL) {
        state.withLock { state in
            guard !state.stopped else { return }
            let position: Int
            if url == state.current {
                position = 0
            } else if let index = state.asked.firstIndex(where: { $0.url == url }) {
                position = index + 1
            } else {
                return
            }
            guard position == state.asked.count else { return }
            guard state.asked.count < depth else {
                state.held = (url, next)
                return
            }
            guard mayAsk(next, after: url, from: state.number + position, state) else { return }
            ask(next, in: &state)
        }
    }

    /// Whether the loop, on page `number` at `url`, would ask for `next`.
    private func mayAsk(_ next: URL, after url: URL, from number: Int, _ state: State) -> Bool {
        number < asking.pageLimit && !state.visited.contains(next)
            && (try? asking.client.configuration.checkStep(from: url, to: next, "the next page's URL")) != nil
    }

    /// Sends the request for `url` in a task of its own, its validators read first, off the
    /// loop's way.
    private func ask(_ url: URL, in state: inout State) {
        state.visited.insert(url)
        let asking = self.asking
        let answer = Task { [self] in
            let stored = try await asking.validator(url)
            let (data, response) = try await asking.client.send(
                asking.request(url, stored), progress: asking.progress)
            let next = asking.next(url, response, data)
            if let next { answered(url, naming: next) }
            return Answer(stored: stored, data: data, response: response, next: next)
        }
        state.asked.append(Page(url: url, answer: answer))
    }
}
