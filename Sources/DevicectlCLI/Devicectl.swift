// Devicectl: the entry point: pick the command, parse its arguments, run it, map errors to exit codes.
import Foundation
import Glibc
import SystemKit

/// The devicectl command line.
public enum Devicectl {
    public static let version = "0.1.0"

    /// Every command, in the order `devicectl help` lists them.
    static let commands: [CommandEntry] = [
        CommandEntry(InitCommand.self),
        CommandEntry(InstallCommand.self),
        CommandEntry(WidgetAddCommand.self),
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
    ]

    /// Runs devicectl with `arguments` (without the program name); returns the exit status. Refuses to run
    /// (exit 1, before any file is opened) when standard input, output or error is closed.
    public static func main(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        // First of all: with descriptor 1 closed the first file opened (the device's lock file) would become
        // standard output, and `backup -o -` would write the archive into it.
        let closed = StandardDescriptors.closed()
        guard closed.isEmpty else { return refuseClosed(closed) }
        // A write past RLIMIT_FSIZE must fail with EFBIG (so the temporary archive or the staged restore is
        // removed and the error names the file), not kill the process with SIGXFSZ and leave them behind.
        signal(SIGXFSZ, SIG_IGN)
        let context = CommandContext(console: Console(), environment: environment)
        let console = context.console
        do {
            let (command, rest) = try select(arguments)
            guard let command else { return 0 }
            let parsed = try ParsedArguments.parse(rest, spec: command.spec)
            if parsed.flag("--help") {
                console.out(command.spec.help)
                return 0
            }
            return try command.run(parsed, context)
        } catch let error as UsageError {
            console.err("devicectl: \(error.message)")
            if error.command == nil { console.err("Run 'devicectl help' for the list of commands.") } else {
                console.err("Run 'devicectl \(error.command!) --help' for its options.")
            }
            return 64
        } catch {
            console.err("devicectl: \(error)")
            return 1
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

    /// Finds the command named by the first words of `arguments`. Returns nil after printing help or version.
    static func select(_ arguments: [String]) throws -> (CommandEntry?, [String]) {
        let console = Console()
        guard let first = arguments.first else {
            console.out(overview)
            return (nil, [])
        }
        switch first {
        case "help", "--help", "-h":
            if arguments.count > 1 {
                let (command, _) = try select(Array(arguments.dropFirst()))
                if let command { console.out(command.spec.help) }
            } else {
                console.out(overview)
            }
            return (nil, [])
        case "--version", "version":
            console.out("devicectl \(version)")
            return (nil, [])
        default:
            break
        }
        // Longest match first: "widget add" before a hypothetical "widget".
        for length in [2, 1] where arguments.count >= length {
            let name = arguments.prefix(length).joined(separator: " ")
            if let command = commands.first(where: { $0.spec.name == name }) {
                return (command, Array(arguments.dropFirst(length)))
            }
        }
        let names = commands.map(\.spec.name)
        let attempted = arguments.count >= 2 && names.contains(where: { $0.hasPrefix(first + " ") })
            ? arguments.prefix(2).joined(separator: " ") : first
        var message = "unknown command '\(attempted)'"
        if let guess = Suggestion.closest(to: attempted, in: names) { message += "; did you mean '\(guess)'?" }
        throw UsageError(message)
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
        for command in commands {
            let name = command.spec.name
            lines.append("  " + name + String(repeating: " ", count: max(2, 18 - name.count)) + command.spec.summary)
        }
        lines += [
            "",
            "Run 'devicectl COMMAND --help' for a command's options.",
            "Exit status: 0 success, 1 failure, 64 usage error.",
        ]
        return lines.joined(separator: "\n")
    }
}
