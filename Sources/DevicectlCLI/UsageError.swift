// UsageError: the command line was wrong; exit status 64.

/// A command-line mistake (unknown command or option, missing or bad argument). Exit status 64.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// The command whose usage to show, when known.
    public let command: String?

    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    public var description: String { message }
}
