import Foundation

/// How `push` resolves a conflict: `.serverWins` by default.
public enum PushConflictPolicy: Sendable {
    case serverWins
    case localWins
    /// Decides per conflict (its `resolution` says `.serverWins` when asked).
    case custom(@Sendable (PushConflict) -> PushResolution)

    func resolve(_ conflict: PushConflict) -> PushResolution {
        switch self {
        case .serverWins: .serverWins
        case .localWins: .localWins
        case .custom(let decide): decide(conflict)
        }
    }
}
