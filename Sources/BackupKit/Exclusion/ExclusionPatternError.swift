// ExclusionPatternError: why an `--exclude` glob was refused.

/// A glob that is not in the pattern language `ExclusionPattern` defines; the description says what to
/// write instead.
public struct ExclusionPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        case empty
        case tooLong(limit: Int)
        case unclosedBracket
        case emptyBracket
        case slashInBracket
        case characterClass
        case trailingBackslash
        case doubleStarInsideComponent
        case emptyComponent
        case dotComponent(String)
    }

    public let problem: Problem

    public var description: String {
        switch problem {
        case .empty: "the pattern is empty"
        case .tooLong(let limit): "the pattern is longer than \(limit) bytes"
        case .unclosedBracket: "'[' opens a bracket expression that is never closed (write '\\[' for a literal '[')"
        case .emptyBracket: "'[]' matches no character (write '\\[\\]' for literal brackets)"
        case .slashInBracket: "a bracket expression cannot match '/'"
        case .characterClass: "character classes such as '[:alpha:]' are not supported; list the characters ('[a-z]')"
        case .trailingBackslash: "it ends with a lone '\\' (write '\\\\' for a literal backslash)"
        case .doubleStarInsideComponent:
            "'**' must be a whole path component ('a/**/b', '**/x'); use '*' within a name"
        case .emptyComponent: "it has an empty path component ('//')"
        case .dotComponent(let name): "a path component '\(name)' never names an entry of a backup"
        }
    }
}
