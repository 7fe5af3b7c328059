// ManifestLineError: why one manifest line could not be parsed (the line number is ManifestProblem's).

/// Why a manifest line is not a manifest line: `not a JSON object with a "kind"`, `file line for 'a' without a size`.
public struct ManifestLineError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
