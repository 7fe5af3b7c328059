// CommandContext: what a running command may use: output streams, the environment, the clock.
import DeviceKit
import Foundation

/// The process around a command: where to print, the environment, whether stderr is a terminal.
struct CommandContext: Sendable {
    let console: Console
    let environment: [String: String]
    /// The arguments that were not UTF-8, by the escaped text they reach the commands as (see
    /// `Devicectl.main(argumentBytes:)`), mapped to their bytes.
    var argumentBytes: [String: [UInt8]] = [:]

    /// The bytes of `argument` as the user typed it.
    func bytes(of argument: String) -> [UInt8] {
        argumentBytes[argument] ?? Array(argument.utf8)
    }

    /// The time to act at: `--now` if given, else `DEVICECTL_NOW`, else the real clock.
    func now(_ arguments: ParsedArguments) throws(UsageError) -> Date {
        if let text = arguments.value("--now") {
            guard let date = Timestamp.parse(text) else {
                throw UsageError(
                    "invalid value '\(text)' for --now: expected ISO-8601 such as 2026-12-01T09:00:00Z",
                    command: arguments.spec.name)
            }
            return date
        }
        if let text = environment["DEVICECTL_NOW"], !text.isEmpty {
            guard let date = Timestamp.parse(text) else {
                throw UsageError("invalid DEVICECTL_NOW '\(text)': expected ISO-8601 such as 2026-12-01T09:00:00Z")
            }
            return date
        }
        return Date()
    }

    /// Whether `DEVICECTL_THREADS=pinned` asks for every system call that names a path on one thread, in the same
    /// order on every run (fault injection by call count); unset or `split` (the default): a restore's writer
    /// creates the files. Either way each thread's share is fixed before the run starts.
    func pinsThreads() throws(UsageError) -> Bool {
        switch environment["DEVICECTL_THREADS"] ?? "" {
        case "", "split": return false
        case "pinned": return true
        case let other: throw UsageError("invalid DEVICECTL_THREADS '\(other)': expected pinned or split")
        }
    }

    /// Where `now(_:)` takes the time from, for messages: `--now`, `DEVICECTL_NOW` or `the system clock`.
    func nowSource(_ arguments: ParsedArguments) -> String {
        if arguments.value("--now") != nil { return "--now" }
        if let text = environment["DEVICECTL_NOW"], !text.isEmpty { return "DEVICECTL_NOW" }
        return "the system clock at"
    }

    /// Whether a progress bar should be drawn: stderr is a TTY unless `--no-progress`; `--progress` forces it.
    /// Never under `--quiet`, nor under `--verbose` (the listing shows the progress, as `tar -v` does).
    func showsProgress(_ arguments: ParsedArguments) -> Bool {
        if arguments.flag("--no-progress") || arguments.flag("--verbose") || console.isQuiet { return false }
        if arguments.flag("--progress") { return true }
        return console.stderrIsTerminal
    }
}

/// The `--now TIME` option, shared by the commands that act at a time.
let nowOption = OptionSpec(["--now"], .value("TIME"), help: "Act at this ISO-8601 time (default: DEVICECTL_NOW or the clock).")
/// The `--lock-timeout SECONDS` option, shared by the commands that take the device lock.
let lockTimeoutOption = OptionSpec(
    ["--lock-timeout"], .value("SECONDS"),
    help: "Wait at most this long for another devicectl using ROOT (default: DEVICECTL_LOCK_TIMEOUT or forever).")
/// The `--json` option.
let jsonOption = OptionSpec(["--json"], help: "Print the result as one JSON object on stdout.")
/// The `-q/--quiet` option, applied once for every command that takes it (`Devicectl.applyVerbosity`).
let quietOption = OptionSpec(
    ["--quiet", "-q"], help: "Print only errors: no summary, notices, warnings or progress (exit status unchanged).")
/// The `-v/--verbose` option of backup and restore (listing each path, as `tar -v`).
let verboseOption = OptionSpec(["--verbose", "-v"], help: "List each path as it is stored or restored.")
/// The `--progress` / `--no-progress` pair.
let progressOptions = [
    OptionSpec(["--progress"], help: "Draw a progress bar on stderr even when it is not a terminal."),
    OptionSpec(["--no-progress"], help: "Never draw a progress bar."),
]
