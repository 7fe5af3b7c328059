// PropertyListConversionError: a value that has no property-list form.

/// Why `PropertyListObject(foundation:)` refused a value: `reason` names what it was.
public struct PropertyListConversionError: Error, Sendable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}
