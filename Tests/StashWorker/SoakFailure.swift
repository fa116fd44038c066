/// A soak process that failed or said something that is not its report.
struct SoakFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
