// PropertyListReadError: why a property list from someone else's bytes was refused.

/// A property list that is not one, or one past the reader's caps. `reason` says what is wrong in the file's terms.
public struct PropertyListReadError: Error, CustomStringConvertible, Sendable, Equatable {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
