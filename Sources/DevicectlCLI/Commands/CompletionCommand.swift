// CompletionCommand: `devicectl completion bash|zsh|fish`: print the shell completion script.

enum CompletionCommand: Command {
    static let spec = CommandSpec(
        name: "completion", summary: "Print the shell completion script for bash, zsh or fish.",
        positionals: [PositionalSpec("SHELL", help: "bash, zsh or fish.")],
        discussion: """
            The script is generated from the command specs, so it knows every command, option and value this
            devicectl takes. 'make install' installs all three (bash-completion, zsh site-functions, fish
            vendor completions); to use one without installing:
            Example: source <(devicectl completion bash)
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let name = arguments.positionals.first ?? ""
        guard let shell = CompletionShell(rawValue: name) else {
            let list = CompletionShell.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError(
                name.isEmpty ? "missing SHELL (\(list))" : "no completion for shell '\(name)'; devicectl has \(list)",
                command: spec.name)
        }
        context.console.outRaw(CompletionScript(specs: Devicectl.commands.map(\.spec)).text(for: shell))
        return 0
    }
}
