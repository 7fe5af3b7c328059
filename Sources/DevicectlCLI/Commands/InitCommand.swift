// InitCommand: `devicectl init`: a fresh device root with its own random UDID.
import DeviceKit
import Foundation

enum InitCommand: Command {
    static let spec = CommandSpec(
        name: "init", summary: "Create a fresh device root with its own identity.",
        positionals: [PositionalSpec("ROOT", help: "The device root to create (absent or empty).")],
        options: [
            nowOption,
            OptionSpec(
                ["--repair"],
                help: "Give a device root that lost DeviceLocal/identity.plist a new identity (its files stay)."),
            OptionSpec(
                ["--adopt"],
                help: "Make a device of an existing Simulator data/ directory ROOT, adding only DeviceLocal/."),
            jsonOption,
        ],
        discussion: """
            Prints the new UDID. The identity lives in ROOT/DeviceLocal, which no backup carries and no
            restore replaces. Refuses a non-empty ROOT that is not a device, and an existing device.
            --repair: ROOT is laid out like a device (Containers/..., Library/SpringBoard) but its identity is
            missing; it gets a new UDID and keeps everything else.
            --adopt: ROOT is a Simulator's data/ directory (Containers/..., Library/SpringBoard/IconState.plist);
            its apps, extensions, App Groups and home screen are read and checked, and only DeviceLocal/ is added.
            Example: devicectl init /tmp/phone
            Example: devicectl init --adopt ~/Library/Developer/CoreSimulator/Devices/UDID/data
            """
    )

    /// What `init` was asked to do.
    struct Options: Equatable {
        var root: String
        var json: Bool
    }

    /// A device already lives at ROOT: `init` would replace its identity.
    struct AlreadyADevice: Error, CustomStringConvertible {
        let root: String
        let udid: String?
        var description: String {
            "\(root) is already a device root\(udid.map { " (UDID \($0))" } ?? ""); refusing to initialise it again"
        }
    }

    static func options(_ arguments: ParsedArguments) throws(UsageError) -> Options {
        Options(root: try DeviceArguments.root(arguments), json: arguments.flag("--json"))
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let options = try options(arguments)
        let now = try context.now(arguments)
        if arguments.flag("--repair") { return try repair(options, now: now, context) }
        if arguments.flag("--adopt") { return try adopt(options, now: now, context) }
        if Device.isDevice(at: options.root) {
            let existing = try Device.open(options.root)
            throw AlreadyADevice(root: existing.root, udid: try? existing.identity().udid)
        }
        let device = try Device.initialize(options.root, now: now)
        let udid = try device.identity().udid
        try device.withLock {
            try EventLog(device: device).append(DeviceEvent(time: now, type: "init", details: ["udid": udid]))
        }
        if options.json {
            context.console.result(Result(root: device.root, udid: udid, repaired: false))
        } else {
            context.console.out("initialised device root \(device.root) with UDID \(udid)")
        }
        return 0
    }

    /// `init --adopt`: a device made of a Simulator-shaped data directory, logged as an adopting `init`.
    static func adopt(_ options: Options, now: Date, _ context: CommandContext) throws -> Int32 {
        let (device, apps) = try Device.adopt(options.root, now: now)
        let udid = try device.identity().udid
        try device.withLock {
            try EventLog(device: device).append(
                DeviceEvent(time: now, type: "init", details: ["udid": udid, "adopted": "\(apps.count) apps"]))
        }
        if options.json {
            context.console.result(AdoptResult(root: device.root, udid: udid, adopted: apps.map(\.bundleId)))
        } else {
            context.console.out(
                "adopted \(device.root) as a device with UDID \(udid): \(apps.count) app\(apps.count == 1 ? "" : "s")"
                    + (apps.isEmpty ? "" : " (" + apps.map(\.bundleId).joined(separator: ", ") + ")"))
        }
        return 0
    }

    /// `init --repair`: a new identity for a device root that lost its own, logged as a repairing `init`.
    static func repair(_ options: Options, now: Date, _ context: CommandContext) throws -> Int32 {
        let device = try Device.repairIdentity(options.root, now: now)
        let udid = try device.identity().udid
        try device.withLock {
            try EventLog(device: device).append(
                DeviceEvent(time: now, type: "init", details: ["udid": udid, "repair": "identity was missing"]))
        }
        if options.json {
            context.console.result(Result(root: device.root, udid: udid, repaired: true))
        } else {
            context.console.out("repaired device root \(device.root): new identity, UDID \(udid)")
        }
        return 0
    }
}
