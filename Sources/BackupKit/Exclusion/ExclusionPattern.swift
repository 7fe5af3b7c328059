// ExclusionPattern: one `--exclude GLOB`, compiled once and matched against paths relative to ROOT.
import Glibc

/// A glob from `--exclude`, in a small, fully defined language (refused with `ExclusionPatternError`
/// when it is not in it):
///
/// - **Anchoring.** A pattern with no `/` (other than a trailing one) is unanchored: it matches a name
///   at any depth (`*.log`, `build`). A pattern with a `/` is anchored at ROOT and matched against the
///   whole relative path (`Containers/Data`); a leading `/` or `./` says so explicitly (`/build` is only
///   ROOT's `build`). A trailing `/` is ignored. An excluded directory's contents are never walked.
/// - **Wildcards.** `*` matches any run of characters within one component (never `/`), `?` one
///   character (never `/`), `[abc]`, `[a-z]`, `[!a-z]` (or `[^a-z]`) one character of (not of) the set.
///   `**` as a whole component matches any number of components, none included: `**/tmp` is `tmp` at
///   any depth, `a/**/b` is `a/b`, `a/x/b`, `a/x/y/b`; a last `**` needs one at least: `Documents/**` is
///   everything below `Documents`, which itself is kept (empty).
/// - **Escapes.** `\` makes the next character literal (`\*`, `\[`).
///
/// Refused: an empty pattern, an unclosed or empty `[`, a `/` or `[:class:]` in brackets, a trailing lone
/// `\`, `**` inside a name (`a**`), empty components (`a//b`) and `.` or `..` components. Matching takes
/// time proportional to the pattern's length times the path's, whatever either holds.
public struct ExclusionPattern: Sendable, Equatable {
    /// The glob as given.
    public let text: String
    private let components: [Component]
    private let anchored: Bool

    /// The longest pattern accepted, in bytes (a path is at most 4095).
    public static let maxLength = 4096

    /// One component of the pattern: `**`, or a glob within one name.
    private enum Component: Sendable, Equatable {
        case anyDepth
        case name([Token])
    }

    private enum Token: Sendable, Equatable {
        case literal(Unicode.Scalar)
        case anyCharacter
        case anyRun
        case set([ClosedRange<UInt32>], negated: Bool)
    }

    /// Compiles `text`; throws when it is not a pattern of the language above.
    public init(_ text: String) throws(ExclusionPatternError) {
        guard !text.isEmpty else { throw ExclusionPatternError(problem: .empty) }
        guard text.utf8.count <= Self.maxLength else {
            throw ExclusionPatternError(problem: .tooLong(limit: Self.maxLength))
        }
        self.text = text
        var body = Substring(text)
        var anchored = false
        while body.hasPrefix("./") || body.hasPrefix("/") {
            body = body.hasPrefix("/") ? body.dropFirst() : body.dropFirst(2)
            anchored = true
        }
        while body.hasSuffix("/") && !body.hasSuffix("\\/") { body = body.dropLast() }
        guard !body.isEmpty else { throw ExclusionPatternError(problem: .empty) }
        let parts = try Self.splitComponents(body)
        self.anchored = anchored || parts.count > 1
        components = try parts.map { part throws(ExclusionPatternError) -> Component in
            if part == ["*", "*"] { return .anyDepth }
            return .name(try Self.tokens(part))
        }
    }

    // MARK: - Compiling

    /// The pattern's components as scalars, split at every `/` not escaped.
    private static func splitComponents(_ body: Substring) throws(ExclusionPatternError) -> [[Unicode.Scalar]] {
        var parts: [[Unicode.Scalar]] = [[]]
        var escaped = false
        var inBracket = false
        for scalar in body.unicodeScalars {
            if escaped {
                parts[parts.count - 1] += ["\\", scalar]
                escaped = false
                continue
            }
            switch scalar {
            case "\\": escaped = true
            case "/" where !inBracket:
                guard !parts[parts.count - 1].isEmpty else { throw ExclusionPatternError(problem: .emptyComponent) }
                parts.append([])
            case "/": throw ExclusionPatternError(problem: .slashInBracket)
            default:
                // Brackets are tracked only to give a '/' inside one its own message.
                if scalar == "[" && !inBracket { inBracket = true } else if scalar == "]" { inBracket = false }
                parts[parts.count - 1].append(scalar)
            }
        }
        guard !escaped else { throw ExclusionPatternError(problem: .trailingBackslash) }
        guard !parts[parts.count - 1].isEmpty else { throw ExclusionPatternError(problem: .emptyComponent) }
        for part in parts where part == ["."] || part == [".", "."] {
            throw ExclusionPatternError(problem: .dotComponent(String(String.UnicodeScalarView(part))))
        }
        return parts
    }

    /// The tokens of one component (`**` already taken out).
    private static func tokens(_ part: [Unicode.Scalar]) throws(ExclusionPatternError) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        while index < part.count {
            let scalar = part[index]
            index += 1
            switch scalar {
            case "\\":
                tokens.append(.literal(part[index]))
                index += 1
            case "?":
                tokens.append(.anyCharacter)
            case "*":
                if index < part.count && part[index] == "*" {
                    throw ExclusionPatternError(problem: .doubleStarInsideComponent)
                }
                tokens.append(.anyRun)
            case "[":
                tokens.append(try bracket(part, &index))
            default:
                tokens.append(.literal(scalar))
            }
        }
        return tokens
    }

    /// A bracket expression starting after its `[`; leaves `index` after its `]`.
    private static func bracket(_ part: [Unicode.Scalar], _ index: inout Int) throws(ExclusionPatternError) -> Token {
        var negated = false
        if index < part.count && (part[index] == "!" || part[index] == "^") {
            negated = true
            index += 1
        }
        var ranges: [ClosedRange<UInt32>] = []
        var first = true
        while true {
            guard index < part.count else { throw ExclusionPatternError(problem: .unclosedBracket) }
            var scalar = part[index]
            index += 1
            if scalar == "]" && !first { break }
            if scalar == "]" && first && (index >= part.count || !part[index...].contains("]")) {
                throw ExclusionPatternError(problem: ranges.isEmpty ? .emptyBracket : .unclosedBracket)
            }
            first = false
            if scalar == "[" && index < part.count && part[index] == ":" {
                throw ExclusionPatternError(problem: .characterClass)
            }
            if scalar == "\\" {
                guard index < part.count else { throw ExclusionPatternError(problem: .unclosedBracket) }
                scalar = part[index]
                index += 1
            }
            var upper = scalar
            if index + 1 < part.count && part[index] == "-" && part[index + 1] != "]" {
                upper = part[index + 1]
                index += 2
                if upper == "\\" {
                    guard index < part.count else { throw ExclusionPatternError(problem: .unclosedBracket) }
                    upper = part[index]
                    index += 1
                }
            }
            ranges.append(min(scalar.value, upper.value)...max(scalar.value, upper.value))
        }
        return .set(ranges, negated: negated)
    }

    // MARK: - Matching

    /// Whether the pattern matches `path` (NUL-terminated, relative to ROOT) whose last component
    /// starts at `basename`.
    func matches(path: UnsafePointer<CChar>, basename: UnsafePointer<CChar>) -> Bool {
        let length = strlen(path)
        return path.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            matches(UnsafeBufferPointer(start: bytes, count: length), basenameOffset: basename - path)
        }
    }

    /// Whether the pattern matches the relative path `path`.
    public func matches(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            let slash = bytes.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            return matches(bytes, basenameOffset: slash)
        }
    }

    private func matches(_ path: UnsafeBufferPointer<UInt8>, basenameOffset: Int) -> Bool {
        guard anchored else {
            guard case .name(let tokens) = components[0] else { return true }
            return Self.matchName(tokens, UnsafeBufferPointer(rebasing: path[basenameOffset...]))
        }
        // A pattern that starts or ends with a name must match the path's first or last component: most paths fail
        // there, before the full match.
        if case .name(let tokens)? = components.last,
            !Self.matchName(tokens, UnsafeBufferPointer(rebasing: path[basenameOffset...]))
        {
            return false
        }
        if case .name(let tokens)? = components.first {
            let end = path.firstIndex(of: UInt8(ascii: "/")) ?? path.count
            if !Self.matchName(tokens, UnsafeBufferPointer(rebasing: path[..<end])) { return false }
        }
        // Asked for every entry of a walk: the components' bounds (`PathComponents`) and the two rows of flags go
        // in temporary allocations (on the stack at the usual depths), not in arrays.
        return PathComponents.withBounds(of: path) { names in
            let count = names.count
            return withUnsafeTemporaryAllocation(of: Bool.self, capacity: 2 * (count + 1)) { flags in
                // reachable[j]: the components matched so far can end right before path component j.
                var reachable = UnsafeMutableBufferPointer(rebasing: flags[0...count])
                var next = UnsafeMutableBufferPointer(rebasing: flags[(count + 1)...])
                reachable.initialize(repeating: false)
                reachable[0] = true
                for (index, component) in components.enumerated() {
                    next.initialize(repeating: false)
                    switch component {
                    case .anyDepth:
                        // A last `**` needs one component at least: `Documents/**` is below Documents, not it.
                        let atLeastOne = index == components.count - 1
                        var seen = false
                        for j in 0...count {
                            if atLeastOne {
                                next[j] = seen
                                seen = seen || reachable[j]
                            } else {
                                seen = seen || reachable[j]
                                next[j] = seen
                            }
                        }
                    case .name(let tokens):
                        for j in 0..<count where reachable[j]
                        && Self.matchName(tokens, UnsafeBufferPointer(rebasing: path[names[j]])) {
                            next[j + 1] = true
                        }
                    }
                    swap(&reachable, &next)
                }
                return reachable[count]
            }
        } ?? false
    }

    /// The scalar starting at byte `index` of UTF-8 `bytes` and its length; a malformed sequence reads as
    /// one U+FFFD byte (such names are never archived anyway).
    private static func scalar(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> (Unicode.Scalar, Int) {
        let lead = bytes[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
        guard length > 0, index + length <= bytes.count else { return ("\u{FFFD}", 1) }
        var value = UInt32(lead) & (0x7F >> UInt32(length))
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return ("\u{FFFD}", 1) }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { return ("\u{FFFD}", 1) }
        return (scalar, length)
    }

    /// One name (UTF-8) against one component's tokens: a `*` backtracks only to the last `*`, so the
    /// time is at most the product of the two lengths.
    private static func matchName(_ tokens: [Token], _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        var t = 0
        var n = 0
        var star: (token: Int, name: Int)?
        while n < name.count {
            if t < tokens.count, tokens[t] == .anyRun {
                star = (t, n)
                t += 1
                continue
            }
            let (scalar, length) = scalar(name, n)
            if t < tokens.count, matchOne(tokens[t], scalar) {
                t += 1
                n += length
                continue
            }
            guard let last = star else { return false }
            let skipped = Self.scalar(name, last.name).1
            star = (last.token, last.name + skipped)
            t = last.token + 1
            n = last.name + skipped
        }
        while t < tokens.count, tokens[t] == .anyRun { t += 1 }
        return t == tokens.count
    }

    private static func matchOne(_ token: Token, _ scalar: Unicode.Scalar) -> Bool {
        switch token {
        case .literal(let literal): literal == scalar
        case .anyCharacter: true
        case .anyRun: false
        case .set(let ranges, let negated): ranges.contains { $0.contains(scalar.value) } != negated
        }
    }
}
