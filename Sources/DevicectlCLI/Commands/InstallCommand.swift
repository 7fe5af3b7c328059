// InstallCommand: `devicectl install`: bundle, data and App Group containers, and the nudge widget's settings.
import DeviceKit
import Foundation

enum InstallCommand: Command {
    static let spec = CommandSpec(
        name: "install", summary: "Install an app: bundle, data and App Group containers.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [
            OptionSpec(["--app"], .value("BUNDLE_ID"), help: "The app's bundle identifier (required)."),
            OptionSpec(["--name"], .value("NAME"), help: "The display name (default: from the bundle id, News)."),
            OptionSpec(["--version"], .value("VERSION"), help: "CFBundleShortVersionString (default 1.0)."),
            OptionSpec(
                ["--group"], .value("GROUP_ID"), repeatable: true, help: "An App Group the app belongs to (repeatable)."
            ),
            OptionSpec(
                ["--nudge-policy"], .value("once|as-published"), help: "When the widget clears its flag (default once)."
            ),
            OptionSpec(
                ["--nudge-delay"], .value("DURATION"),
                help: "Delay before the nudge fires, e.g. 24h, 90m, 0s (default 24h)."),
            OptionSpec(["--nudge-title"], .value("TEXT"), help: "The nudge notification's title."),
            OptionSpec(["--nudge-body"], .value("TEXT"), help: "The nudge notification's body."),
            OptionSpec(
                ["--marker-name"], .value("NAME"), help: "The marker file name (default device-restoration-marker.txt)."
            ),
            OptionSpec(
                ["--flag-key"], .value("KEY"), help: "The shared defaults flag key (default notificationEnabled)."),
            OptionSpec(["--no-widget"], help: "The app has no nudge widget."),
            lockTimeoutOption, quietOption,
            jsonOption,
        ],
        discussion: """
            Group containers are created when missing and shared when another app already has them; a
            reinstall keeps the app's data and its settings (name, version, groups, widget and nudge
            options) except those given again. An app with the widget but no --group gets group.<BUNDLE_ID>.
            Example: devicectl install /tmp/phone --app com.example.news --group group.com.example.news
            """
    )

    /// What `install` was asked to do.
    struct Options: Equatable {
        var root: String
        var installation: AppInstallation
        var json: Bool
        /// Which settings were given (a reinstall keeps the others).
        var given: Set<String> = []
    }

    static let nudgeOptions = [
        "--nudge-policy", "--nudge-delay", "--nudge-title", "--nudge-body", "--marker-name", "--flag-key",
    ]

    static func options(_ arguments: ParsedArguments) throws(UsageError) -> Options {
        let root = try DeviceArguments.root(arguments)
        let bundleId = try DeviceArguments.requiredIdentifier("--app", arguments)
        var groups: [String] = []
        for group in arguments.all("--group") {
            let group = try DeviceArguments.identifier(group, for: "--group", arguments)
            if groups.contains(group) { throw UsageError("--group '\(group)' given twice", command: spec.name) }
            groups.append(group)
        }
        if groups.count > DeviceValue.maxGroupsPerApp {
            throw UsageError(
                DeviceValueError(
                    field: "--group", displayValue: "\(groups.count)",
                    problem: .tooMany(count: groups.count, limit: DeviceValue.maxGroupsPerApp)
                ).description, command: spec.name)
        }
        var installation = AppInstallation(bundleId: bundleId, groups: groups, widget: nil)
        if let name = arguments.value("--name") {
            try DeviceArguments.checked(name, for: "--name", arguments) { text throws(DeviceValueError) in
                try DeviceValue.appName(text, field: "--name")
            }
            installation.name = name
        }
        if let version = arguments.value("--version") {
            try DeviceArguments.checked(version, for: "--version", arguments) { text throws(DeviceValueError) in
                try DeviceValue.flagKey(text, field: "--version")
            }
            installation.version = version
        }
        if arguments.flag("--no-widget") {
            if let option = nudgeOptions.first(where: { arguments.value($0) != nil }) {
                throw UsageError("\(option) cannot be combined with --no-widget", command: spec.name)
            }
        } else {
            installation.widget = try nudgeSettings(arguments, appName: installation.displayName)
        }
        let given = Set(
            (["--name", "--version", "--group", "--no-widget"] + nudgeOptions).filter {
                arguments.value($0) != nil || arguments.flag($0)
            })
        return Options(root: root, installation: installation, json: arguments.flag("--json"), given: given)
    }

    /// The widget settings from the `--nudge-*`, `--marker-name` and `--flag-key` options.
    static func nudgeSettings(_ arguments: ParsedArguments, appName: String) throws(UsageError) -> NudgeSettings {
        let policy = try arguments.value("--nudge-policy", as: "once or as-published") {
            NudgeSettings.Policy(rawValue: $0)
        }
        let delay = try arguments.value("--nudge-delay", as: "a non-negative duration such as 24h, 90m, 1h30m or 0s") {
            NudgeSettings.parseDuration($0)
        }
        if let delay, let text = arguments.value("--nudge-delay") {
            try DeviceArguments.checked(text, for: "--nudge-delay", arguments) { _ throws(DeviceValueError) in
                try DeviceValue.delay(delay, field: "--nudge-delay")
            }
        }
        let title = try option("--nudge-title", arguments) { text, key throws(DeviceValueError) in
            try DeviceValue.text(text, field: key, maxBytes: DeviceValue.maxTitleBytes)
        }
        let body = try option("--nudge-body", arguments) { text, key throws(DeviceValueError) in
            try DeviceValue.text(text, field: key, maxBytes: DeviceValue.maxBodyBytes)
        }
        let marker = try option("--marker-name", arguments) { text, key throws(DeviceValueError) in
            try DeviceValue.fileName(text, field: key)
        }
        let flagKey = try option("--flag-key", arguments) { text, key throws(DeviceValueError) in
            try DeviceValue.flagKey(text, field: key)
        }
        return NudgeSettings(
            policy: policy ?? .once, delaySeconds: delay ?? NudgeSettings.defaultDelaySeconds, title: title, body: body,
            markerFileName: marker ?? NudgeSettings.defaultMarkerFileName,
            flagKey: flagKey ?? NudgeSettings.defaultFlagKey,
            appName: appName)
    }

    /// The value of `key` checked by `check` (the validator a manifest's and an Info.plist's value passes).
    private static func option(
        _ key: String, _ arguments: ParsedArguments, _ check: (String, String) throws(DeviceValueError) -> Void
    ) throws(UsageError) -> String? {
        guard let text = arguments.value(key) else { return nil }
        try DeviceArguments.checked(text, for: key, arguments) { text throws(DeviceValueError) in
            try check(text, key)
        }
        return text
    }

    /// The request for a reinstall: what was given, the installed app's settings for the rest.
    static func merged(_ options: Options, existing: InstalledApp?) -> AppInstallation {
        guard let existing else { return options.installation }
        var request = options.installation
        let given = options.given
        if !given.contains("--name") { request.name = existing.name }
        if !given.contains("--version") { request.version = existing.version }
        request.build = existing.build
        if !given.contains("--group") { request.groups = existing.groups }
        if existing.widget == nil && given.isDisjoint(with: nudgeOptions) { request.widget = nil }
        guard !given.contains("--no-widget"), let old = existing.widget, var new = request.widget else {
            return request
        }
        if !given.contains("--nudge-policy") { new.policy = old.policy }
        if !given.contains("--nudge-delay") { new.delaySeconds = old.delaySeconds }
        if !given.contains("--nudge-title") { new.title = old.title }
        if !given.contains("--nudge-body") { new.body = old.body }
        if !given.contains("--marker-name") { new.markerFileName = old.markerFileName }
        if !given.contains("--flag-key") { new.flagKey = old.flagKey }
        request.widget = new
        return request
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let options = try options(arguments)
        let device = try DeviceArguments.open(options.root, arguments, context)
        let report = try device.withLock { () throws -> InstallReport in
            try device.validate()
            let existing = try device.apps().first { $0.bundleId == options.installation.bundleId }
            return try InstallReport.install(merged(options, existing: existing), on: device)
        }
        if options.json {
            context.console.result(Result(report))
        } else {
            for line in report.lines { context.console.out(line) }
        }
        return 0
    }
}
