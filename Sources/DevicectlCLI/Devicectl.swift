// Devicectl: the entry point: pick the command, parse its arguments, run it, map errors to exit codes.
import BackupKit
import Foundation
import Glibc
import SystemKit
import TarKit

/// The devicectl command line.
public enum Devicectl {
    public static let version = "0.1.0"

    /// Every command, in the order `devicectl help` lists them.
    static let commands: [CommandEntry] = [
        CommandEntry(InitCommand.self),
        CommandEntry(InstallCommand.self),
        CommandEntry(UninstallCommand.self),
        CommandEntry(ContainerCommand.self),
        CommandEntry(WidgetAddCommand.self),
        CommandEntry(WidgetRemoveCommand.self),
        CommandEntry(WidgetListCommand.self),
        CommandEntry(LaunchCommand.self),
        CommandEntry(DefaultsCommand.Read.self),
        CommandEntry(DefaultsCommand.Write.self),
        CommandEntry(DefaultsCommand.Delete.self),
        CommandEntry(ExcludeCommand.Add.self),
        CommandEntry(ExcludeCommand.Remove.self),
        CommandEntry(ExcludeCommand.Check.self),
        CommandEntry(StatusCommand.self),
        CommandEntry(BackupCommand.self),
        CommandEntry(RestoreCommand.self),
        CommandEntry(VerifyCommand.self),
        CommandEntry(ListCommand.self),
        CommandEntry(WidgetRefreshCommand.self),
        CommandEntry(NotificationsCommand.self),
        CommandEntry(TapCommand.self),
        CommandEntry(EventsCommand.self),
        CommandEntry(CompletionCommand.self),
    ]

    /// Runs devicectl with `arguments` (without the program name); returns the exit status. Refuses to run
    /// (exit 1, before any file is opened) when standard input, output or error is closed.
    public static func main(_ arguments: [String], environment: [String: String] = ProcessEnvironment.current()) -> Int32 {
        main(arguments, argumentBytes: [:], environment: environment)
    }

    /// Runs devicectl with the arguments as the kernel passed them (without the program name). An argument that
    /// is not UTF-8 (a Linux file name may be any bytes) reaches the commands as it is shown, with tar's escapes
    /// (`ArchiveFormat.name(bytes:)`); the commands that take file names (`exclude`) act on its bytes.
    public static func main(
        argumentBytes: [[UInt8]], environment: [String: String] = ProcessEnvironment.current()
    ) -> Int32 {
        var bytes: [String: [UInt8]] = [:]
        let arguments = argumentBytes.map { argument -> String in
            if let text = String(validating: argument, as: UTF8.self) { return text }
            let shown = ArchiveFormat.name(bytes: argument)
            bytes[shown] = argument
            return shown
        }
        return main(arguments, argumentBytes: bytes, environment: environment)
    }

    private static func main(
        _ arguments: [String], argumentBytes: [String: [UInt8]], environment: [String: String]
    ) -> Int32 {
        // First of all: with descriptor 1 closed the first file opened (the device's lock file) would become
        // standard output, and `backup -o -` would write the archive into it.
        let closed = StandardDescriptors.closed()
        guard closed.isEmpty else { return refuseClosed(closed) }
        // A write past RLIMIT_FSIZE must fail with EFBIG (so the temporary archive or the staged restore is
        // removed and the error names the file), not kill the process with SIGXFSZ and leave them behind.
        signal(SIGXFSZ, SIG_IGN)
        // Before any thread starts: a table grown later stalls every thread that opens a file for an RCU grace period
        // (`Kernel.reserveDescriptorSlots`).
        Kernel.reserveDescriptorSlots(Kernel.startupDescriptorSlots)
        let context = CommandContext(console: Console(), environment: environment, argumentBytes: argumentBytes)
        let console = context.console
        var commandName: String?
        do {
            let (command, rest): (CommandEntry, [String])
            switch try select(arguments) {
            case .command(let entry, let words): (command, rest) = (entry, words)
            case .done(let status): return status
            }
            commandName = command.spec.name
            // Known before parsing, so that a usage error in a `--json` command line is a JSON object too.
            if command.spec.options.contains(where: { $0.key == "--json" }) 
                && rest.prefix(while: { $0 != "--" }).contains("--json")
            {
                console.beginJSON(command: command.spec.name)
            }
            let parsed = try ParsedArguments.parse(rest, spec: command.spec)
            if parsed.flag("--help") {
                console.out(command.spec.help)
                return 0
            }
            try applyVerbosity(parsed, console)
            return try command.run(parsed, context)
        } catch let error as UsageError {
            if !console.isJSON && commandName == nil && arguments.contains("--json") {
                console.beginJSON(command: nil)
            }
            console.failure(error.message, exitStatus: 64)
            if console.isJSON { return 64 }
            if error.command == nil { console.err("Run 'devicectl help' for the list of commands.") } else {
                console.err("Run 'devicectl \(error.command!) --help' for its options.")
            }
            return 64
        } catch {
            let status = exitStatus(for: error)
            console.failure(UserMessage.text(for: error), exitStatus: status, path: UserMessage.path(for: error))
            return status
        }
    }

    /// `-q/--quiet` switches the console to errors only, for every command that takes it; `-v/--verbose` goes
    /// with neither `--quiet` nor `--json` (whose result lists no paths).
    private static func applyVerbosity(_ parsed: ParsedArguments, _ console: Console) throws(UsageError) {
        let name = parsed.spec.name
        if parsed.flag("--verbose") {
            if parsed.flag("--quiet") {
                throw UsageError("-q/--quiet and -v/--verbose cannot be used together", command: name)
            }
            if parsed.flag("--json") {
                throw UsageError(
                    "-v/--verbose lists paths as text, so it cannot be used with --json", command: name)
            }
        }
        if parsed.flag("--quiet") { console.beginQuiet() }
    }

    /// 1 for a failure; 128 + the signal for SIGINT or SIGTERM, as a shell reports a process the signal ended (a
    /// backup interrupted while writing dies of the signal itself after removing its temporary file).
    static func exitStatus(for error: any Error) -> Int32 {
        switch error {
        case RestoreError.interrupted(let signal), ArchiveReaderError.interrupted(let signal),
            BackupError.interrupted(let signal):
            128 + signal
        case let failure as ArchiveFailure: exitStatus(for: failure.cause)
        default: 1
        }
    }

    /// Says (on standard error, when that is open) which standard descriptors are closed; returns 1.
    private static func refuseClosed(_ closed: [Int32]) -> Int32 {
        guard !closed.contains(STDERR_FILENO) else { return 1 }
        let names = closed.map(StandardDescriptors.name).joined(separator: " and ")
        let (verb, pronoun) = closed.count == 1 ? ("is", "it") : ("are", "them")
        var text = "devicectl: \(names) \(verb) closed; nothing was done "
            + "(open \(pronoun), e.g. on /dev/null, and run again)\n"
        text.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
        return 1
    }

    /// What the first words of a command line select.
    enum Selection {
        /// A command and the words after its name.
        case command(CommandEntry, [String])
        /// Help, a version or a usage text was printed: exit with this status.
        case done(Int32)
    }

    /// The options devicectl itself takes before a command.
    static let globalOptions = ["--help", "-h", "--version"]

    /// Finds the command named by the first words of `arguments`. Help and the version print on stdout
    /// (status 0); no command at all, or a group without its subcommand, prints the usage on stderr (64).
    static func select(_ arguments: [String]) throws(UsageError) -> Selection {
        let console = Console()
        guard let first = arguments.first else {
            console.err(overview)
            return .done(64)
        }
        switch first {
        case "help", "--help", "-h":
            if arguments.dropFirst().first == "--man" {
                guard arguments.count == 2 else { throw UsageError("'help --man' takes nothing else") }
                console.outRaw(ManualPage(specs: commands.map(\.spec), version: version).text)
                return .done(0)
            }
            console.out(try helpText(Array(arguments.dropFirst())))
            return .done(0)
        case "--version", "version":
            console.out("devicectl \(version)")
            return .done(0)
        default:
            break
        }
        if first.hasPrefix("-") {
            var message = "unknown option '\(first)'"
            if let guess = Suggestion.option(for: first, in: globalOptions) {
                message += "; did you mean '\(guess)'?"
            } else {
                message += " (a command's options go after the command)"
            }
            throw UsageError(message)
        }
        if let (command, length) = command(named: arguments) {
            return .command(command, Array(arguments.dropFirst(length)))
        }
        if let group = CommandGroup(named: first, in: commands.map(\.spec)) {
            guard arguments.count > 1 else {
                console.err(group.help)
                return .done(64)
            }
            if ["--help", "-h"].contains(arguments[1]) {
                console.out(group.help)
                return .done(0)
            }
        }
        throw unknownCommand(arguments)
    }

    /// The command named by the first one or two words, and how many words its name takes.
    private static func command(named arguments: [String]) -> (CommandEntry, Int)? {
        // Longest match first: "widget add" before a hypothetical "widget".
        for length in [2, 1] where arguments.count >= length {
            let name = arguments.prefix(length).joined(separator: " ")
            if let command = commands.first(where: { $0.spec.name == name }) { return (command, length) }
        }
        return nil
    }

    /// `devicectl help [COMMAND | GROUP]`.
    private static func helpText(_ words: [String]) throws(UsageError) -> String {
        guard let first = words.first else { return overview }
        if let (command, length) = command(named: words), length == words.count { return command.spec.help }
        if words.count == 1, let group = CommandGroup(named: first, in: commands.map(\.spec)) { return group.help }
        throw unknownCommand(words)
    }

    private static func unknownCommand(_ arguments: [String]) -> UsageError {
        let first = arguments[0]
        let names = commands.map(\.spec.name)
        let attempted = arguments.count >= 2 && names.contains(where: { $0.hasPrefix(first + " ") })
            ? arguments.prefix(2).joined(separator: " ") : first
        var message = "unknown command '\(attempted)'"
        if let guess = Suggestion.closest(to: attempted, in: names) { message += "; did you mean '\(guess)'?" }
        return UsageError(message)
    }

    /// `devicectl help`.
    static var overview: String {
        var lines = [
            "devicectl \(version): back up, restore and migrate simulated iOS device roots.",
            "",
            "Usage: devicectl COMMAND [arguments] [options]",
            "",
            "Commands:",
        ]
        let width = max(16, commands.map(\.spec.name.count).max() ?? 0) + 2
        for command in commands {
            let name = command.spec.name
            lines.append("  " + name + String(repeating: " ", count: width - name.count) + command.spec.summary)
        }
        lines += [
            "",
            "Run 'devicectl COMMAND --help' for a command's options, 'devicectl GROUP --help' for a group's",
            "(defaults, exclude, widget). A value that starts with '-' is given as --option=VALUE.",
            "'devicectl help --man' prints the manual page; 'devicectl completion SHELL' a completion script.",
            "Exit status: 0 success, 1 failure, 64 usage error.",
        ]
        return lines.joined(separator: "\n")
    }
}
