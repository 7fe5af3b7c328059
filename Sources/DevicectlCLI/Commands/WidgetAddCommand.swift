// WidgetAddCommand: `devicectl widget add`: place an app's widget on the home screen (IconState.plist).
import DeviceKit
import Foundation

enum WidgetAddCommand: Command {
    static let spec = CommandSpec(
        name: "widget add", summary: "Place an app's widget on the home screen.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [
            OptionSpec(["--app"], .value("BUNDLE_ID"), help: "The app whose widget to place (required)."),
            OptionSpec(["--kind"], .value("KIND"), help: "The widget's kind (default: the extension's first)."),
            OptionSpec(["--size"], .value("small|medium|large"), help: "The widget's size (default medium)."),
            OptionSpec(
                ["--page"], .value("N"), help: "The page, from 1; one past the last adds a page (default: last)."),
            OptionSpec(
                ["--stack-with"], .value("ID"),
                help: "Join the widget or stack ID (or the first widget of app ID) as a Smart Stack."),
            lockTimeoutOption,
            jsonOption,
        ],
        discussion: """
            The layout is SpringBoard's ROOT/Library/SpringBoard/IconState.plist, which backups carry, as iOS
            backs up the home screen: the widget is one flat widget dict (iconType custom, widgetIdentifier =
            the kind, bundleIdentifier = the extension, containerBundleIdentifier = the app) at the end of the
            page, or an element of the stack it joins. Placing a widget of the same app, kind and size that is
            already placed, with no --page or --stack-with, changes nothing. Every other key is kept.
            Example: devicectl widget add /tmp/phone --app com.example.news --size medium --page 2
            """
    )

    /// What `widget add` was asked to do.
    struct Options: Equatable {
        var root: String
        var app: String
        var kind: String? = nil
        var size = "medium"
        var page: Int? = nil
        var stackWith: String? = nil
        var json = false
    }

    static func options(_ arguments: ParsedArguments) throws(UsageError) -> Options {
        let size = arguments.value("--size") ?? "medium"
        guard ["small", "medium", "large"].contains(size) else {
            throw UsageError("--size must be small, medium or large, not '\(size)'", command: spec.name)
        }
        let page = try arguments.value("--page", as: "a page number from 1") { text -> Int? in
            guard let page = Int(text), page >= 1, page <= HomeScreen.maxPages else { return nil }
            return page
        }
        if page != nil && arguments.value("--stack-with") != nil {
            throw UsageError(
                "--page cannot be combined with --stack-with (a stack stays where it is)", command: spec.name)
        }
        if let kind = arguments.value("--kind") {
            try DeviceArguments.checked(kind, for: "--kind", arguments) { text throws(DeviceValueError) in
                try DeviceValue.flagKey(text, field: "--kind")
            }
        }
        return Options(
            root: try DeviceArguments.root(arguments), app: try DeviceArguments.requiredIdentifier("--app", arguments),
            kind: arguments.value("--kind"), size: size, page: page, stackWith: arguments.value("--stack-with"),
            json: arguments.flag("--json"))
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let options = try options(arguments)
        let device = try DeviceArguments.open(options.root, arguments, context)
        let (widget, added) = try device.withLock { () throws -> (PlacedWidget, Bool) in
            try device.validate()
            let app = try device.app(options.app)
            guard let appex = app.widgetExtension else { throw DeviceError.noWidget(app: options.app) }
            return try device.placeWidget(
                HomeScreen.Placement(
                    app: options.app, extensionId: appex.bundleId, kind: options.kind ?? appex.defaultKind,
                    size: options.size, page: options.page, stackWith: options.stackWith))
        }
        if options.json {
            context.console.result(WidgetAddResult(added: added, widget: widget))
        } else {
            let verb = added ? "placed" : "is already placed"
            context.console.out(
                "the \(widget.size) widget '\(widget.kind)' of \(options.app) \(verb) on \(widget.placeText) "
                    + "(id \(widget.id))")
        }
        return 0
    }

    /// `--json`: `{"added":BOOL,"widget":{...}}`.
    struct WidgetAddResult: Encodable {
        let added: Bool
        let widget: PlacedWidget
    }
}
