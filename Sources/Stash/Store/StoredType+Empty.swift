extension StoredType {
    /// The empty value of the kind: `0`, `0.0`, `""` or no bytes. What an attribute of a row
    /// that is gone reads as, where its type reads it (`Int`, `Bool`, `Double`, `String`,
    /// `Data`, arrays and other JSON values do not: a `Date` or a `URL` has no empty value).
    var emptyValue: StoredValue {
        switch self {
        case .integer: .integer(0)
        case .real: .real(0)
        case .text: .text("")
        case .blob: .blob([])
        }
    }
}
