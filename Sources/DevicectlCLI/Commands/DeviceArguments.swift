// DeviceArguments: the argument checks and device opening shared by the device-model commands.
import DeviceKit
import Foundation

/// Helpers for commands that take a device ROOT and an `--app` or identifier.
enum DeviceArguments {
    /// The first positional (ROOT), refusing an empty string (it would mean the working directory).
    static func root(_ arguments: ParsedArguments) throws(UsageError) -> String {
        let root = arguments.positional(0) ?? ""
        guard !root.isEmpty else { throw UsageError("ROOT must not be empty", command: arguments.spec.name) }
        return root
    }

    /// The value of a required bundle id option (`--app`), checked as `DeviceValue.bundleIdentifier`.
    static func requiredIdentifier(_ key: String, _ arguments: ParsedArguments) throws(UsageError) -> String {
        guard let value = arguments.value(key) else {
            let meta =
                arguments.spec.options.first { $0.key == key }.flatMap { option -> String? in
                    if case .value(let meta) = option.kind { return meta }
                    return nil
                } ?? "VALUE"
            throw UsageError("missing required option \(key) \(meta)", command: arguments.spec.name)
        }
        try checked(value, for: key, arguments) { text throws(DeviceValueError) in
            try DeviceValue.bundleIdentifier(text, field: key)
        }
        return value
    }

    /// `value` if it is a valid identifier, else a usage error naming `key` and the value.
    static func identifier(_ value: String, for key: String, _ arguments: ParsedArguments) throws(UsageError) -> String
    {
        try checked(value, for: key, arguments) { text throws(DeviceValueError) in
            try DeviceValue.identifier(text, field: key)
        }
        return value
    }

    /// Runs a `DeviceValue` check on the option value `text`; a refusal is a usage error worded as the
    /// manifest and plist checks word it (`invalid value 'TEXT' for KEY: problem`).
    static func checked(
        _ text: String, for key: String, _ arguments: ParsedArguments,
        _ check: (String) throws(DeviceValueError) -> Void
    ) throws(UsageError) {
        do {
            try check(text)
        } catch {
            throw UsageError(
                DeviceValueError(field: key, value: text, problem: error.problem).description,
                command: arguments.spec.name)
        }
    }

    /// Opens the device at `root` and reads its identity, so a missing root, a directory that is not
    /// a device or a malformed `identity.plist` fails before the command does anything.
    static func open(_ root: String) throws -> Device {
        let device = try Device.open(root)
        _ = try device.identity()
        return device
    }

    /// Opens the device at `root` as `open(_:)` does, for a command run in `context`: waiting for the device
    /// lock is announced on stderr (naming the holder's pid) and bounded by `--lock-timeout` or
    /// `DEVICECTL_LOCK_TIMEOUT`; a torn last line in the event log (a crash while logging) is a warning.
    static func open(_ root: String, _ arguments: ParsedArguments, _ context: CommandContext) throws -> Device {
        var device = try open(root)
        let console = context.console
        let shown = device.root
        device.lockWait = DeviceLockWait(
            timeout: try lockTimeout(arguments, context),
            waiting: { pid in
                let holder = pid.map { " (pid \($0))" } ?? ""
                console.err("devicectl: waiting for another devicectl using \(shown)\(holder)...")
            })
        let log = EventLog(device: device)
        if let warning = EventLog.tornWarning(try log.contents(), path: log.path) { console.warn(warning) }
        return device
    }

    /// `--lock-timeout SECONDS`, else `DEVICECTL_LOCK_TIMEOUT`, else nil (wait as long as it takes).
    static func lockTimeout(_ arguments: ParsedArguments, _ context: CommandContext) throws(UsageError) -> Double? {
        func seconds(_ text: String) -> Double? {
            guard let value = Double(text), value.isFinite, value >= 0, value <= 86_400 * 366 else { return nil }
            return value
        }
        if let text = arguments.value("--lock-timeout") {
            guard let value = seconds(text) else {
                throw UsageError(
                    "invalid value '\(text)' for --lock-timeout: expected seconds, 0 or more (e.g. 30 or 0.5)",
                    command: arguments.spec.name)
            }
            return value
        }
        guard let text = context.environment["DEVICECTL_LOCK_TIMEOUT"], !text.isEmpty else { return nil }
        guard let value = seconds(text) else {
            throw UsageError("invalid DEVICECTL_LOCK_TIMEOUT '\(text)': expected seconds, 0 or more (e.g. 30 or 0.5)")
        }
        return value
    }

    /// Refuses (`DeviceError.clockBehind`) a `now` earlier than the device's clock, naming where it came from.
    static func checkClock(_ device: Device, _ now: Date, _ arguments: ParsedArguments, _ context: CommandContext)
        throws
    {
        try device.checkClock(now, source: context.nowSource(arguments))
    }

    /// The device a read-only command (status, notifications, events) shows, and the time it shows it at
    /// (`readingTime`).
    static func openForReading(_ arguments: ParsedArguments, _ context: CommandContext) throws -> (Device, Date) {
        let root = try root(arguments)
        let requested = try context.now(arguments)
        let device = try open(root, arguments, context)
        return (device, try readingTime(device, requested, arguments, context))
    }

    /// The time a read-only command (status, notifications, events) shows the device at: `now`, or the
    /// device's clock when that is later and `now` came from `DEVICECTL_NOW` or the system clock (a state
    /// before the device's own history is impossible). An explicit earlier `--now` is refused.
    static func readingTime(
        _ device: Device, _ now: Date, _ arguments: ParsedArguments, _ context: CommandContext
    ) throws -> Date {
        if arguments.value("--now") != nil { try checkClock(device, now, arguments, context) }
        guard let clock = try device.clock(), clock > now else { return now }
        return clock
    }

    /// `path` relative to the device root when it is inside it (for compact output), else as given.
    static func relative(_ path: String, to device: Device) -> String {
        path.hasPrefix(device.root + "/") ? String(path.dropFirst(device.root.count + 1)) : path
    }
}
