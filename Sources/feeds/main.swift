import Feeds
import Foundation

// The command line is being built (issue 16); for now it opens the store.
let store = FeedStore.location(option: nil, environment: ProcessInfo.processInfo.environment)
print("feeds: store at \(store.path)")
