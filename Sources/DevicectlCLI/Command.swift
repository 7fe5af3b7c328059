// Command: what every subcommand provides: its spec and a run function.

/// A subcommand. `run` receives arguments already checked against `spec` and returns the exit status.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32
}

/// A command as the dispatcher keeps it: its spec and its run function.
struct CommandEntry: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments, CommandContext) throws -> Int32

    init<C: Command>(_ command: C.Type) {
        spec = C.spec
        run = { arguments, context in try C.run(arguments, context) }
    }
}
