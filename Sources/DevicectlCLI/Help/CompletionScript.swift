// CompletionScript: a shell completion script generated from the command specs, so it cannot drift from them.

/// The completion script for one shell, built from every command's `CommandSpec`.
struct CompletionScript {
    /// A word that can follow `devicectl`: a command, a group's first word, or `help`.
    struct TopWord {
        let word: String
        let summary: String
    }

    let specs: [CommandSpec]

    /// Every word that can come first, in the order `devicectl help` lists them (a group once, where its first
    /// member is), then `help`.
    var topWords: [TopWord] {
        var words: [TopWord] = []
        var seen: Set<String> = []
        for spec in specs {
            let first = String(spec.name.split(separator: " ")[0])
            guard seen.insert(first).inserted else { continue }
            if let group = CommandGroup(named: first, in: specs) {
                let subcommands = group.members.map { $0.name.dropFirst(first.count + 1) }.joined(separator: ", ")
                words.append(TopWord(word: first, summary: "\(subcommands)"))
            } else {
                words.append(TopWord(word: first, summary: spec.summary))
            }
        }
        words.append(TopWord(word: "help", summary: "Show the commands, or one command's options."))
        return words
    }

    /// The groups (`defaults`, `exclude`, `widget`), each with its members.
    var groups: [CommandGroup] {
        var result: [CommandGroup] = []
        for word in topWords {
            if let group = CommandGroup(named: word.word, in: specs) { result.append(group) }
        }
        return result
    }

    /// The script for `shell`.
    func text(for shell: CompletionShell) -> String {
        switch shell {
        case .bash: bash
        case .zsh: zsh
        case .fish: fish
        }
    }

    /// The word after a group's name, e.g. `add` for `widget add`.
    static func subcommand(_ spec: CommandSpec, of group: CommandGroup) -> String {
        String(spec.name.dropFirst(group.name.count + 1))
    }

    /// What the value of `option` completes to (`nil` for a flag).
    static func value(of option: OptionSpec) -> CompletionValue? {
        guard case .value(let meta) = option.kind else { return nil }
        return CompletionValue(metavariable: meta)
    }

    /// Whether a command's positionals name files (ROOT, ARCHIVE, PATH...).
    static func takesPaths(_ spec: CommandSpec) -> Bool {
        spec.positionals.contains { CompletionValue(metavariable: $0.name) == .path }
    }

    /// A help text cut to its first sentence, for a one-line description.
    static func brief(_ help: String) -> String {
        let sentence = help.split(separator: ". ", maxSplits: 1).first.map(String.init) ?? help
        return sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence
    }
}
