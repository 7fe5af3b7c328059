// DefaultsCommand: `devicectl defaults read|write|delete`, like macOS `defaults`.
import DeviceKit
import Foundation

enum DefaultsCommand {
    static let domainHelp = "A bundle id (the app's standard suite) or a group id (the shared suite)."

    /// A value given to `defaults write` with its type option.
    enum Value: Equatable {
        case bool(Bool)
        case int(Int)
        case float(Double)
        case string(String)

        /// The property-list object written to the suite.
        var plist: Any {
            switch self {
            case .bool(let value): value
            case .int(let value): value
            case .float(let value): value
            case .string(let value): value
            }
        }

        /// `-bool` accepts what macOS accepts: true/false, yes/no, 1/0 (any case).
        static func bool(_ text: String) -> Bool? {
            switch text.lowercased() {
            case "true", "yes", "1": true
            case "false", "no", "0": false
            default: nil
            }
        }
    }

    /// The positionals every defaults command shares.
    struct Target: Equatable {
        var root: String
        var domain: String
        var key: String?
    }

    static func target(_ arguments: ParsedArguments) throws(UsageError) -> Target {
        let domain = arguments.positional(1) ?? ""
        guard !domain.isEmpty else { throw UsageError("DOMAIN must not be empty", command: arguments.spec.name) }
        _ = try DeviceArguments.identifier(domain, for: "DOMAIN", arguments)
        return Target(root: try DeviceArguments.root(arguments), domain: domain, key: arguments.positional(2))
    }

    /// Opens the device and resolves the domain to its suite (unknown domain: exit 1 naming it).
    static func suite(_ target: Target) throws -> (Device, DefaultsSuite) {
        let device = try DeviceArguments.open(target.root)
        return (device, try device.defaults(target.domain))
    }

    enum Read: Command {
        static let spec = CommandSpec(
            name: "defaults read", summary: "Print a defaults domain, or one key's value.",
            positionals: [
                PositionalSpec("ROOT", help: "The device root."),
                PositionalSpec("DOMAIN", help: domainHelp),
                PositionalSpec("KEY", help: "The key to print (default: the whole domain).", optional: true),
            ],
            discussion: """
                Prints like macOS defaults: a boolean as 1 or 0, a whole domain as { key = value; }.
                Example: devicectl defaults read /tmp/phone group.com.example.news notificationEnabled
                """)

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            let target = try target(arguments)
            let (_, suite) = try suite(target)
            let dictionary = try suite.dictionary()
            guard let key = target.key else {
                context.console.out(Format.domain(dictionary))
                return 0
            }
            guard let value = dictionary[key] else { throw DeviceError.missingKey(domain: target.domain, key: key) }
            context.console.out(Format.value(value))
            return 0
        }
    }

    enum Write: Command {
        static let spec = CommandSpec(
            name: "defaults write", summary: "Set one key in a defaults domain.",
            positionals: [
                PositionalSpec("ROOT", help: "The device root."),
                PositionalSpec("DOMAIN", help: domainHelp),
                PositionalSpec("KEY", help: "The key to set."),
            ],
            options: [
                OptionSpec(["-bool"], .value("true|false"), help: "A boolean value (true/false, yes/no, 1/0)."),
                OptionSpec(["-int"], .value("N"), help: "An integer value."),
                OptionSpec(["-float"], .value("X"), help: "A floating-point value."),
                OptionSpec(["-string"], .value("TEXT"), help: "A string value."),
            ],
            discussion:
                "Give exactly one type option.\nExample: devicectl defaults write /tmp/phone com.example.news launches -int 3"
        )

        static let typeOptions = ["-bool", "-int", "-float", "-string"]

        /// The key and typed value to write.
        static func value(_ arguments: ParsedArguments) throws(UsageError) -> Value {
            let given = typeOptions.filter { arguments.value($0) != nil }
            guard given.count == 1, let option = given.first else {
                let found = given.isEmpty ? "none" : given.joined(separator: " and ")
                throw UsageError(
                    "give exactly one of -bool, -int, -float, -string with a value (got \(found))", command: spec.name)
            }
            switch option {
            case "-bool":
                return .bool(try arguments.value(option, as: "true, false, yes, no, 1 or 0", Value.bool)!)
            case "-int":
                return .int(try arguments.value(option, as: "an integer") { Int($0) }!)
            case "-float":
                return .float(
                    try arguments.value(option, as: "a finite number") {
                        Double($0).flatMap { $0.isFinite ? $0 : nil }
                    }!)
            default:
                return .string(arguments.value(option)!)
            }
        }

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            let target = try target(arguments)
            let value = try value(arguments)
            guard let key = target.key else { throw UsageError("missing argument KEY", command: spec.name) }
            let (device, suite) = try suite(target)
            try device.withLock { try suite.set(key, to: value.plist) }
            return 0
        }
    }

    enum Delete: Command {
        static let spec = CommandSpec(
            name: "defaults delete", summary: "Remove one key (or the whole domain) from defaults.",
            positionals: [
                PositionalSpec("ROOT", help: "The device root."),
                PositionalSpec("DOMAIN", help: domainHelp),
                PositionalSpec("KEY", help: "The key to remove (default: the whole domain).", optional: true),
            ],
            discussion: "Example: devicectl defaults delete /tmp/phone com.example.news launches")

        /// The domain has no suite file: nothing to delete.
        struct EmptyDomain: Error, CustomStringConvertible {
            let domain: String
            var description: String { "Domain (\(domain)) not found; defaults have not been changed" }
        }

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            let target = try target(arguments)
            let (device, suite) = try suite(target)
            try device.withLock {
                if let key = target.key {
                    try suite.remove(key)
                } else {
                    // A malformed suite may be deleted whole: that is how to recover from it.
                    guard try suite.exists() else {
                        throw EmptyDomain(domain: target.domain)
                    }
                    try suite.removeAll()
                }
            }
            return 0
        }
    }
}
