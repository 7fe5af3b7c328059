// ContainerCommand: `devicectl container`: a container's path, as `xcrun simctl get_app_container` prints it.
import DeviceKit
import Foundation

enum ContainerCommand: Command {
    static let spec = CommandSpec(
        name: "container", summary: "Print the path of an app's bundle, data or App Group container.",
        positionals: [
            PositionalSpec("ROOT", help: "The device root."),
            PositionalSpec("CONTAINER", help: "app (default), data, groups or a GROUP_ID.", optional: true),
        ],
        options: [
            OptionSpec(["--app"], .value("BUNDLE_ID"), help: "The app (required)."),
            lockTimeoutOption,
            jsonOption,
        ],
        discussion: """
            As 'xcrun simctl get_app_container DEVICE BUNDLE_ID [CONTAINER]': app prints the .app directory,
            data the data container, groups each App Group as GROUP_ID<TAB>PATH, GROUP_ID that group's container.
            JSON: {"app","container","path"|null,"groups":{GROUP_ID:PATH}|null}
            Example: devicectl container /tmp/phone --app com.example.news data
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let root = try DeviceArguments.root(arguments)
        let appId = try DeviceArguments.requiredIdentifier("--app", arguments)
        let which = arguments.positional(1) ?? "app"
        if !["app", "data", "groups"].contains(which) {
            _ = try DeviceArguments.identifier(which, for: "CONTAINER", arguments)
        }
        let device = try DeviceArguments.open(root, arguments, context)
        let result = try device.withLock { () throws -> Result in
            let app = try device.app(appId)
            switch which {
            case "app": return Result(app: appId, container: which, path: device.path(app.appPath), groups: nil)
            case "data": return Result(app: appId, container: which, path: app.dataContainer.path, groups: nil)
            case "groups":
                var groups: [String: String] = [:]
                for group in app.groups { groups[group] = try device.groupContainer(group).path }
                return Result(app: appId, container: which, path: nil, groups: groups)
            default:
                guard app.groups.contains(which) else {
                    throw ContainerError(app: appId, group: which, groups: app.groups)
                }
                return Result(app: appId, container: which, path: try device.groupContainer(which).path, groups: nil)
            }
        }
        if arguments.flag("--json") {
            context.console.result(result)
        } else if let path = result.path {
            context.console.out(path)
        } else {
            for (group, path) in (result.groups ?? [:]).sorted(by: { $0.key < $1.key }) {
                context.console.out("\(group)\t\(path)")
            }
        }
        return 0
    }

    /// `--json`: `{"app","container","path","groups"}`.
    struct Result: Encodable {
        let app: String
        let container: String
        let path: String?
        let groups: [String: String]?

        private enum CodingKeys: String, CodingKey { case app, container, path, groups }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(app, forKey: .app)
            try container.encode(self.container, forKey: .container)
            try container.encode(path, forKey: .path)
            try container.encode(groups, forKey: .groups)
        }
    }

    /// The app does not belong to the App Group asked for.
    struct ContainerError: Error, CustomStringConvertible {
        let app: String
        let group: String
        let groups: [String]
        var description: String {
            "app '\(app)' does not belong to the App Group '\(group)' (its groups: "
                + (groups.isEmpty ? "none" : groups.joined(separator: ", ")) + ")"
        }
    }
}
