// MemberFilter: `list ARCHIVE PATH...`: which members to show, by path or by pattern, as `tar -tf ARCHIVE PATH`.
import BackupKit
import DeviceKit

/// The PATH arguments of `list`. A PATH without `*`, `?` or `[` selects the member of that name and everything
/// below it (`Library` selects `Library/` and `Library/Preferences/a.plist`); one with them is a glob in the
/// `--exclude` language (`*.plist` at any depth, `Containers/*/Application` anchored). A leading `./` and trailing
/// `/` are ignored. Each PATH must select at least one member (GNU tar: "Not found in archive").
struct MemberFilter {
    private enum Selector {
        case path(String)
        case pattern(ExclusionPattern)
    }

    private let selectors: [(given: String, selector: Selector)]
    /// How many members each selector selected.
    private(set) var counts: [Int]

    /// The filter for `paths`; no paths selects every member. A malformed glob is a usage error.
    init(_ paths: [String], command: String) throws(UsageError) {
        var selectors: [(String, Selector)] = []
        for given in paths {
            let path = Self.normalized(given)
            guard !path.isEmpty else { throw UsageError("PATH '\(DeviceValueError.display(given))' names no member", command: command) }
            if path.contains(where: { "*?[".contains($0) }) {
                do {
                    selectors.append((given, .pattern(try ExclusionPattern(path))))
                } catch {
                    throw UsageError("invalid PATH pattern '\(DeviceValueError.display(given))': \(error)", command: command)
                }
            } else {
                selectors.append((given, .path(path)))
            }
        }
        self.selectors = selectors
        counts = Array(repeating: 0, count: selectors.count)
    }

    /// Whether any PATH was given.
    var isActive: Bool { !selectors.isEmpty }

    /// Whether the member named `name` (as the archive spells it) is shown; counts it for each PATH it matches.
    /// The name is only made when a PATH was given.
    mutating func selects(_ name: @autoclosure () -> String) -> Bool {
        guard isActive else { return true }
        let path = Self.normalized(name())
        var selected = false
        for (index, entry) in selectors.enumerated() {
            let matches: Bool
            switch entry.selector {
            case .path(let prefix): matches = path == prefix || path.hasPrefix(prefix + "/")
            case .pattern(let pattern): matches = pattern.matches(path)
            }
            if matches {
                counts[index] += 1
                selected = true
            }
        }
        return selected
    }

    /// The PATHs that selected no member, as given.
    var unmatched: [String] {
        zip(selectors, counts).filter { $0.1 == 0 }.map { $0.0.given }
    }

    private static func normalized(_ text: String) -> String {
        var path = Substring(text)
        while path.hasPrefix("./") { path = path.dropFirst(2) }
        while path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
