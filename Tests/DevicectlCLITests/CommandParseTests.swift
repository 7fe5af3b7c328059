// CommandParseTests: every device-model command's good and bad argument forms, parsed without running.
import DeviceKit
import Testing

@testable import DevicectlCLI

@Suite struct CommandParseTests {
    static func parse(_ spec: CommandSpec, _ words: [String]) throws(UsageError) -> ParsedArguments {
        try ParsedArguments.parse(words, spec: spec)
    }

    /// The usage error `body` throws, or nil when it does not throw one.
    static func usageError(_ body: () throws -> Void) -> UsageError? {
        do {
            try body()
            return nil
        } catch {
            return error as? UsageError
        }
    }

    // MARK: - init, widget add, launch, status

    @Test(arguments: [
        (["/r"], false), (["/r", "--json"], true), (["--json", "/r"], true),
        (["/r", "--now", "2026-12-01T09:00:00Z"], false),
    ])
    func initForms(_ words: [String], _ json: Bool) throws {
        #expect(try InitCommand.options(Self.parse(InitCommand.spec, words)) == .init(root: "/r", json: json))
    }

    @Test(arguments: [["/r", "--app", "com.a"], ["--app=com.a", "/r"], ["/r", "--app", "com.a", "--"]])
    func widgetAddForms(_ words: [String]) throws {
        #expect(
            try WidgetAddCommand.options(Self.parse(WidgetAddCommand.spec, words)) == .init(root: "/r", app: "com.a"))
    }

    @Test func launchAndStatusForms() throws {
        let launch = try LaunchCommand.options(
            Self.parse(
                LaunchCommand.spec, ["/r", "--app", "com.a", "--json", "--now", "2026-12-01T09:00:00Z"]))
        #expect(launch == .init(root: "/r", app: "com.a", json: true))
        #expect(try StatusCommand.options(Self.parse(StatusCommand.spec, ["/r"])) == .init(root: "/r", json: false))
        #expect(
            try StatusCommand.options(Self.parse(StatusCommand.spec, ["/r", "--json"])) == .init(root: "/r", json: true)
        )
    }

    @Test(arguments: [
        (InitCommand.spec, [String](), "missing argument ROOT"),
        (InitCommand.spec, ["a", "b"], "unexpected argument 'b'"),
        (InitCommand.spec, ["/r", "--jsn"], "did you mean '--json'?"),
        (InitCommand.spec, [""], "ROOT must not be empty"),
        (WidgetAddCommand.spec, ["/r"], "missing required option --app BUNDLE_ID"),
        (WidgetAddCommand.spec, ["/r", "--app"], "option '--app' needs a value"),
        (WidgetAddCommand.spec, ["/r", "--app", ""], "invalid value '' for --app"),
        (WidgetAddCommand.spec, ["/r", "--app", "../etc"], "invalid value '../etc' for --app"),
        (LaunchCommand.spec, ["/r"], "missing required option --app"),
        (LaunchCommand.spec, ["/r", "--app", "a", "--app", "b"], "given more than once"),
        (LaunchCommand.spec, ["/r", "--app", "a", "--now"], "option '--now' needs a value"),
        (StatusCommand.spec, [], "missing argument ROOT"),
        (StatusCommand.spec, ["/r", "--verbose"], "unknown option '--verbose'"),
    ])
    func badDeviceCommandForms(_ spec: CommandSpec, _ words: [String], _ message: String) {
        let error = Self.usageError {
            let parsed = try Self.parse(spec, words)
            switch spec.name {
            case "init": _ = try InitCommand.options(parsed)
            case "widget add": _ = try WidgetAddCommand.options(parsed)
            case "launch": _ = try LaunchCommand.options(parsed)
            default: _ = try StatusCommand.options(parsed)
            }
        }
        #expect(error?.message.contains(message) == true, "\(words): \(String(describing: error))")
        #expect(error?.command == spec.name)
    }

    // MARK: - install

    @Test func installDefaults() throws {
        let options = try InstallCommand.options(Self.parse(InstallCommand.spec, ["/r", "--app", "com.example.news"]))
        #expect(options.root == "/r")
        #expect(
            options.installation
                == AppInstallation(
                    bundleId: "com.example.news", groups: [], widget: NudgeSettings(appName: "News")))
    }

    @Test func installEveryOption() throws {
        let words = [
            "/r", "--app=com.example.news", "--group", "group.a", "--group", "group.b", "--nudge-policy",
            "as-published",
            "--nudge-delay", "1h30m", "--nudge-title", "Hello", "--nudge-body", "Open it", "--marker-name", "m.txt",
            "--flag-key", "armed", "--json",
        ]
        let options = try InstallCommand.options(Self.parse(InstallCommand.spec, words))
        #expect(options.json)
        #expect(options.installation.groups == ["group.a", "group.b"])
        #expect(
            options.installation.widget
                == NudgeSettings(
                    policy: .asPublished, delaySeconds: 5400, title: "Hello", body: "Open it", markerFileName: "m.txt",
                    flagKey: "armed"))
    }

    @Test func installWithoutWidget() throws {
        let options = try InstallCommand.options(
            Self.parse(InstallCommand.spec, ["/r", "--app", "com.a", "--no-widget"]))
        #expect(options.installation.widget == nil)
    }

    @Test(arguments: [
        (["/r"], "missing required option --app BUNDLE_ID"),
        (["/r", "--app", "bad/id"], "invalid value 'bad/id' for --app"),
        (["/r", "--app", "a", "--group", "../x"], "invalid value '../x' for --group"),
        (["/r", "--app", "a", "--group", "g", "--group", "g"], "--group 'g' given twice"),
        (
            ["/r", "--app", "a", "--nudge-policy", "twice"],
            "invalid value 'twice' for --nudge-policy: expected once or as-published"
        ),
        (["/r", "--app", "a", "--nudge-delay", "-1h"], "invalid value '-1h' for --nudge-delay"),
        (["/r", "--app", "a", "--nudge-delay", "soon"], "invalid value 'soon' for --nudge-delay"),
        (["/r", "--app", "a", "--nudge-delay", "24"], "invalid value '24' for --nudge-delay"),
        (
            ["/r", "--app", "a", "--no-widget", "--nudge-delay", "1h"],
            "--nudge-delay cannot be combined with --no-widget"
        ),
        (["/r", "--app", "a", "--no-widget", "--flag-key", "k"], "--flag-key cannot be combined with --no-widget"),
        (["/r", "--app", "a", "--marker-name", "a/b"], "invalid value 'a/b' for --marker-name"),
        (["/r", "--app", "a", "--marker-name", ".."], "invalid value '..' for --marker-name"),
        (["/r", "--app", "a", "--flag-key", ""], "invalid value '' for --flag-key"),
        (["/r", "--app", "a", "--nudge-title", ""], "invalid value '' for --nudge-title"),
        (["/r", "--app", "a", "--nudge-polcy", "once"], "did you mean '--nudge-policy'?"),
        (["/r", "--app", "a", "--no-widget=yes"], "option '--no-widget' takes no value"),
    ])
    func badInstallForms(_ words: [String], _ message: String) {
        let error = Self.usageError { _ = try InstallCommand.options(Self.parse(InstallCommand.spec, words)) }
        #expect(error?.message.contains(message) == true, "\(words): \(String(describing: error))")
    }

    /// Install's options go through the validators a manifest header and an Info.plist go through: the same
    /// value is refused with the same problem, only the field differs (`--marker-name`, `widget.markerFileName`).
    @Test(arguments: [
        ("--marker-name", "a/b"), ("--marker-name", "m\u{1B}x"), ("--marker-name", String(repeating: "m", count: 256)),
        ("--flag-key", "k\u{0}"), ("--flag-key", String(repeating: "k", count: 256)),
        ("--nudge-title", String(repeating: "t", count: 1025)), ("--nudge-body", "a\u{7}b"),
        ("--nudge-delay", "367d"), ("--app", String(repeating: "a", count: 244)), ("--group", "g\u{0}"),
    ])
    func installOptionsAreRefusedAsTheManifestRefusesThem(_ option: String, _ value: String) throws {
        let words = option == "--app" ? ["/r", "--app", value] : ["/r", "--app", "com.a", option, value]
        let error = try #require(
            Self.usageError { _ = try InstallCommand.options(Self.parse(InstallCommand.spec, words)) })
        var settings = NudgeSettings()
        var installation = AppInstallation(bundleId: "com.a", groups: [])
        switch option {
        case "--marker-name": settings.markerFileName = value
        case "--flag-key": settings.flagKey = value
        case "--nudge-title": settings.title = value
        case "--nudge-body": settings.body = value
        case "--nudge-delay": settings.delaySeconds = try #require(NudgeSettings.parseDuration(value))
        case "--app": installation.bundleId = value
        default: installation.groups = [value]
        }
        installation.widget = settings
        let refused = #expect(throws: DeviceValueError.self) { try installation.validate() }
        let problem = try #require(refused?.problem)
        #expect(error.message.hasPrefix("invalid value '"), "\(error.message)")
        #expect(error.message.hasSuffix(" for \(option): \(problem)"), "\(error.message) vs \(problem)")
        #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 }, "\(error.message)")
    }

    @Test(arguments: ["../x", "a/b", "..", "g\u{0}"])
    func aDefaultsDomainIsAnIdentifier(_ domain: String) throws {
        let error = Self.usageError {
            _ = try DefaultsCommand.target(Self.parse(DefaultsCommand.Read.spec, ["/r", domain]))
        }
        #expect(error?.message.hasPrefix("invalid value '") == true && error?.message.contains(" for DOMAIN: ") == true)
    }

    @Test func thirtyThreeGroupsAreTooMany() throws {
        let words = ["/r", "--app", "com.a"] + (0..<33).flatMap { ["--group", "group.g\($0)"] }
        let error = Self.usageError { _ = try InstallCommand.options(Self.parse(InstallCommand.spec, words)) }
        #expect(error?.message == "too many --group: 33 entries, more than the 32 allowed")
    }

    // MARK: - defaults

    @Test(arguments: [
        (["-bool", "true"], DefaultsCommand.Value.bool(true)), (["-bool", "YES"], .bool(true)),
        (["-bool", "1"], .bool(true)),
        (["-bool", "false"], .bool(false)), (["-bool", "no"], .bool(false)), (["-bool", "0"], .bool(false)),
        (["-int", "42"], .int(42)), (["-int", "-5"], .int(-5)), (["-float", "1.5"], .float(1.5)),
        (["-float", "-2"], .float(-2)), (["-string", "hello world"], .string("hello world")),
        (["-string", ""], .string("")),
        (["-string=-bool"], .string("-bool")),  // `-string -bool` is refused: an option is never a value
    ])
    func defaultsWriteValues(_ option: [String], _ value: DefaultsCommand.Value) throws {
        let parsed = try Self.parse(DefaultsCommand.Write.spec, ["/r", "com.a", "key"] + option)
        #expect(try DefaultsCommand.target(parsed) == .init(root: "/r", domain: "com.a", key: "key"))
        #expect(try DefaultsCommand.Write.value(parsed) == value)
    }

    @Test(arguments: [
        ([String](), "give exactly one of -bool, -int, -float, -string"),
        (["-bool", "maybe"], "invalid value 'maybe' for -bool"),
        (["-int", "1.5"], "invalid value '1.5' for -int"),
        (["-int", "ten"], "invalid value 'ten' for -int"),
        (["-float", "abc"], "invalid value 'abc' for -float"),
        (["-float", "nan"], "invalid value 'nan' for -float"),
        (["-float", "inf"], "invalid value 'inf' for -float"),
        (["-int", "1", "-string", "x"], "got -int and -string"),
        (["-bool"], "option '-bool' needs a value"),
        (["-bol", "true"], "did you mean '-bool'?"),
    ])
    func badDefaultsWriteForms(_ option: [String], _ message: String) {
        let error = Self.usageError {
            _ = try DefaultsCommand.Write.value(
                Self.parse(DefaultsCommand.Write.spec, ["/r", "com.a", "key"] + option))
        }
        #expect(error?.message.contains(message) == true, "\(option): \(String(describing: error))")
    }

    @Test func defaultsReadAndDeleteForms() throws {
        #expect(
            try DefaultsCommand.target(Self.parse(DefaultsCommand.Read.spec, ["/r", "d"]))
                == .init(root: "/r", domain: "d"))
        #expect(try DefaultsCommand.target(Self.parse(DefaultsCommand.Delete.spec, ["/r", "d", "k"])).key == "k")
        #expect(
            Self.usageError { _ = try Self.parse(DefaultsCommand.Read.spec, ["/r"]) }?.message.contains(
                "missing argument DOMAIN") == true)
        #expect(Self.usageError { _ = try Self.parse(DefaultsCommand.Read.spec, ["/r", "d", "k", "x"]) } != nil)
        #expect(
            Self.usageError { _ = try Self.parse(DefaultsCommand.Write.spec, ["/r", "d", "-int", "1"]) }?.message
                .contains("missing argument KEY") == true)
        #expect(
            Self.usageError { _ = try DefaultsCommand.target(Self.parse(DefaultsCommand.Read.spec, ["/r", ""])) }?
                .message
                .contains("DOMAIN must not be empty") == true)
    }

    // MARK: - exclude

    @Test func excludeTakesOneOrMorePaths() throws {
        #expect(try Self.parse(ExcludeCommand.Add.spec, ["a", "b c", "--", "-d"]).positionals == ["a", "b c", "-d"])
        #expect(
            Self.usageError { _ = try Self.parse(ExcludeCommand.Add.spec, []) }?.message.contains(
                "missing argument PATH") == true)
        #expect(
            Self.usageError { _ = try Self.parse(ExcludeCommand.Remove.spec, ["-x"]) }?.message.contains(
                "unknown option") == true)
    }
}
