// ParsedArguments: a command line checked against a CommandSpec.

/// The arguments of one command after `parse`: positionals, option values and flags.
public struct ParsedArguments: Sendable {
    public let spec: CommandSpec
    public var positionals: [String] = []
    /// Values by option key (the option's first spelling), in command-line order.
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []

    /// Checks `arguments` (the words after the command name) against `spec`.
    public static func parse(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments(spec: spec)
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if onlyPositionals || word == "-" || !word.hasPrefix("-") {
                result.positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            var name = word
            var inlineValue: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            guard let option = spec.options.first(where: { $0.names.contains(name) }) else {
                var message = "unknown option '\(name)' for '\(spec.name)'"
                let known = spec.options.flatMap(\.names)
                if let guess = Suggestion.option(for: name, in: known) { message += "; did you mean '\(guess)'?" }
                throw UsageError(message, command: spec.name)
            }
            switch option.kind {
            case .flag:
                if inlineValue != nil { throw UsageError("option '\(name)' takes no value", command: spec.name) }
                result.flags.insert(option.key)
            case .value(let meta):
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count {
                    value = arguments[index]
                    guard !looksLikeOption(value) else {
                        throw UsageError(
                            "option '\(name)' needs a value (\(meta)), not the option '\(value)'; "
                                + "write \(name)=\(value) if that is the value", command: spec.name)
                    }
                    index += 1
                } else {
                    throw UsageError("option '\(name)' needs a value (\(meta))", command: spec.name)
                }
                if !option.repeatable, result.values[option.key] != nil {
                    throw UsageError("option '\(name)' given more than once", command: spec.name)
                }
                result.values[option.key, default: []].append(value)
            }
        }
        if result.flags.contains("--help") { return result }
        try result.checkPositionals()
        return result
    }

    /// Whether a word after a value option is an option rather than its value: it starts with `-` and is
    /// neither `-` (standard input or output) nor a negative value (`-int -5`, `-float -.5`,
    /// `--nudge-delay -1h`, checked by the option itself; no option starts with a digit). Such a value is
    /// given as `--opt=value` (`-o=--json`), or for a file as `./--json`.
    static func looksLikeOption(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word != "-" else { return false }
        let body = word.dropFirst()
        let negative = body.first.map { $0.isASCII && $0.isNumber } == true
            || (body.first == "." && body.dropFirst().first.map { $0.isASCII && $0.isNumber } == true)
        return !negative
    }

    private func checkPositionals() throws(UsageError) {
        let required = spec.positionals.filter { !$0.optional }
        if positionals.count < required.count {
            let missing = required[positionals.count].name
            throw UsageError("missing argument \(missing)\nUsage: \(spec.usage)", command: spec.name)
        }
        let variadic = spec.positionals.contains { $0.variadic }
        if !variadic && positionals.count > spec.positionals.count {
            let extra = positionals[spec.positionals.count]
            throw UsageError("unexpected argument '\(extra)'\nUsage: \(spec.usage)", command: spec.name)
        }
    }

    // MARK: - Access

    /// The `n`th positional, or nil.
    public func positional(_ n: Int) -> String? { n < positionals.count ? positionals[n] : nil }

    /// The single value of option `key` (its first spelling), or nil.
    public func value(_ key: String) -> String? { values[key]?.last }

    /// Every value of a repeatable option.
    public func all(_ key: String) -> [String] { values[key] ?? [] }

    /// Whether the flag `key` was given.
    public func flag(_ key: String) -> Bool { flags.contains(key) }

    /// The value of `key` converted by `convert`, or a usage error naming the option and the bad value.
    public func value<T>(_ key: String, as what: String, _ convert: (String) -> T?) throws(UsageError) -> T? {
        guard let text = value(key) else { return nil }
        guard let converted = convert(text) else {
            throw UsageError("invalid value '\(text)' for \(key): expected \(what)", command: spec.name)
        }
        return converted
    }
}
