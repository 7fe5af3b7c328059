// NotImplemented: a command whose implementation has not landed yet.

/// Raised by a command that is declared but not built yet.
struct NotImplemented: Error, CustomStringConvertible {
    let command: String
    var description: String { "'\(command)' is not implemented yet" }
}
