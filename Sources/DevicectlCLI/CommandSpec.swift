// CommandSpec: the declared shape of one subcommand (name, positionals, options, help text).

/// One option a command accepts.
public struct OptionSpec: Sendable {
    public enum Kind: Sendable, Equatable {
        /// A switch with no value, e.g. `--json`.
        case flag
        /// An option that takes one value, e.g. `--app BUNDLE_ID`; the associated text names the value.
        case value(String)
    }

    /// Every spelling, long first: `["--output", "-o"]`.
    public let names: [String]
    public let kind: Kind
    /// May be given more than once (values accumulate).
    public let repeatable: Bool
    public let help: String

    public init(_ names: [String], _ kind: Kind = .flag, repeatable: Bool = false, help: String) {
        self.names = names
        self.kind = kind
        self.repeatable = repeatable
        self.help = help
    }

    /// The canonical name (first spelling), used as the key in `ParsedArguments`.
    public var key: String { names[0] }
}

/// One positional argument.
public struct PositionalSpec: Sendable {
    public let name: String
    public let help: String
    public let optional: Bool
    /// Takes every remaining positional (e.g. `PATH...`).
    public let variadic: Bool

    public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false) {
        self.name = name
        self.help = help
        self.optional = optional
        self.variadic = variadic
    }
}

/// The declared interface of one subcommand; `parse` checks arguments against it.
public struct CommandSpec: Sendable {
    /// The words that select the command, e.g. `"widget add"`.
    public let name: String
    public let summary: String
    public let positionals: [PositionalSpec]
    public let options: [OptionSpec]
    /// Extra lines printed after the options in `--help` (examples, notes).
    public let discussion: String

    public init(
        name: String, summary: String, positionals: [PositionalSpec] = [], options: [OptionSpec] = [],
        discussion: String = ""
    ) {
        self.name = name
        self.summary = summary
        self.positionals = positionals
        self.options = options + [OptionSpec(["--help", "-h"], help: "Show this help.")]
        self.discussion = discussion
    }

    /// The usage line, e.g. `devicectl backup ROOT -o ARCHIVE [--json]`.
    public var usage: String {
        var parts = ["devicectl", name]
        for positional in positionals {
            var text = positional.name + (positional.variadic ? "..." : "")
            if positional.optional { text = "[\(text)]" }
            parts.append(text)
        }
        if options.count > 1 { parts.append("[options]") }
        return parts.joined(separator: " ")
    }

    /// The widest spelling that still shares a line with its description; a longer one (`--engine
    /// icloud|computer|...`) stands alone and its description starts the next line, in the same column.
    static let maxSpellingWidth = 30

    /// The full `--help` text. Descriptions start in one column: two spaces after the longest spelling up to
    /// `maxSpellingWidth`, at least column 26 (as before any spelling grew past it).
    public var help: String {
        let spellings = options.map { option -> String in
            var spelling = option.names.joined(separator: ", ")
            if case .value(let meta) = option.kind { spelling += " \(meta)" }
            return spelling
        }
        let fitting = (spellings + positionals.map(\.name)).map(\.count).filter { $0 <= Self.maxSpellingWidth }
        let width = max(22, fitting.max() ?? 0)
        var lines = ["\(summary)", "", "Usage: \(usage)"]
        if !positionals.isEmpty {
            lines.append("")
            lines.append("Arguments:")
            for positional in positionals { lines += row(positional.name, positional.help, width) }
        }
        lines.append("")
        lines.append("Options:")
        for (option, spelling) in zip(options, spellings) { lines += row(spelling, option.help, width) }
        if !discussion.isEmpty {
            lines.append("")
            lines.append(discussion)
        }
        return lines.joined(separator: "\n")
    }

    /// One row of the table: `  spelling  description`, or the spelling alone and the description below it.
    private func row(_ spelling: String, _ help: String, _ width: Int) -> [String] {
        if spelling.count > width { return ["  " + spelling, String(repeating: " ", count: width + 4) + help] }
        return ["  " + pad(spelling, width) + help]
    }

    /// `text` followed by spaces up to `width`, then two more.
    private func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: width - text.count + 2)
    }
}
