// UsageErrorTests: command-line misuse of every command (from the dispatcher's own list, so a new command is
// covered too): an unknown option, a missing or extra argument, an option without its value or given twice,
// bad values (`--now yesterday`, `--level 99`, `--nudge-delay -3h` ...), a bad DEVICECTL_NOW. Each exits 64
// with a `devicectl: ` message and a pointer to the command's help, and changes nothing.
import Foundation
import TestSupport
import Testing

@testable import DevicectlCLI

@Suite struct UsageErrorTests {
    /// A valid invocation of each command (ROOT: a device with an app; DIR: its scratch directory).
    static let valid: [String: [String]] = [
        "init": ["DIR/new"], "install": ["ROOT", "--app", "com.example.other"],
        "widget add": ["ROOT", "--app", "com.example.news"], "launch": ["ROOT", "--app", "com.example.news"],
        "widget remove": ["ROOT", "--app", "com.example.news"], "widget list": ["ROOT"],
        "container": ["ROOT", "--app", "com.example.news"], "uninstall": ["ROOT", "--app", "com.example.news"],
        "defaults read": ["ROOT", "com.example.news"],
        "defaults write": ["ROOT", "com.example.news", "k", "-int", "1"],
        "defaults delete": ["ROOT", "com.example.news", "k"], "exclude add": ["ROOT/Library"],
        "exclude remove": ["ROOT/Library"], "exclude check": ["ROOT/Library"], "status": ["ROOT"],
        "backup": ["ROOT", "-o", "DIR/b.tar"], "restore": ["DIR/a.tar", "DIR/new"], "verify": ["DIR/a.tar"],
        "list": ["DIR/a.tar"], "widget-refresh": ["ROOT"], "notifications": ["ROOT"],
        "tap": ["ROOT", "--notification", "N1"], "events": ["ROOT"], "completion": ["bash"],
    ]

    /// Values each option must refuse as a usage error.
    static let badValues: [String: [String]] = [
        "--now": ["yesterday", "2026-13-01T00:00:00Z", ""], "--level": ["99", "x"], "--compression": ["rar", ""],
        "--nudge-delay": ["-3h", "soon", ""], "--nudge-policy": ["sometimes", ""], "--group": ["bad/group", ""],
        "--app": ["../x", ""], "--exclude": [""],
    ]

    static var names: [String] { Devicectl.commands.map(\.spec.name) }

    /// Every misuse of `spec`'s command, built from its declared arguments and options.
    static func misuses(_ spec: CommandSpec) -> [(String, [String], String)] {
        let words = spec.name.split(separator: " ").map(String.init)
        let base = valid[spec.name]!
        var cases: [(String, [String], String)] = [
            ("an unknown option", words + base + ["--bogus-option"], "unknown option '--bogus-option'"),
            ("a misspelt option", words + base + ["--jsn"], "unknown option '--jsn'"),
        ]
        if spec.positionals.contains(where: { !$0.optional }) {
            cases.append(("no arguments", words, "missing"))
        }
        if !spec.positionals.contains(where: \.variadic) {
            // One more than the optional arguments can take (the valid invocations leave those out).
            let extra = Array(repeating: "extra-argument", count: spec.positionals.filter(\.optional).count + 1)
            cases.append(("an extra argument", words + base + extra, "unexpected argument 'extra-argument'"))
        }
        for option in spec.options {
            guard case .value = option.kind else { continue }
            cases.append(("\(option.key) without its value", words + base + [option.names[0]], "needs a value"))
            if !option.repeatable {
                let value = base.firstIndex(of: option.names[0]).map { base[$0 + 1] } ?? "1"
                let twice =
                    words + base + [option.names[0], value]
                    + (base.contains(option.names[0]) ? [] : [option.names[0], value])
                cases.append(("\(option.key) twice", twice, "given more than once"))
            }
            for bad in badValues[option.key] ?? [] {
                var arguments = base
                if let index = arguments.firstIndex(of: option.names[0]) {
                    arguments[index + 1] = bad
                } else {
                    arguments += [option.names[0], bad]
                }
                if option.key == "--level" { arguments += ["--compression", "zstd"] }
                cases.append(("\(option.key) '\(bad)'", words + arguments, option.key))
            }
        }
        if spec.options.contains(where: { $0.key == "--now" }) || spec.name == "backup" || spec.name == "restore" {
            cases.append(("DEVICECTL_NOW=yesterday", ["NOW=yesterday"] + words + base, "DEVICECTL_NOW"))
        }
        return cases
    }

    @Test(arguments: names)
    func misuseExits64WithHelpAndChangesNothing(_ name: String) throws {
        let spec = try #require(Devicectl.commands.first { $0.spec.name == name }).spec
        try #require(Self.valid[name] != nil, "no valid invocation of '\(name)' in UsageErrorTests.valid")
        try PhoneScratch.withFaults { scratch in
            let root = try scratch.phone(files: 2, size: 100)
            try scratch.ok(["backup", root, "-o", scratch.dir + "/a.tar"])
            let before = try TreeSnapshot.take(scratch.dir)
            for (what, words, message) in Self.misuses(spec) {
                var environment = ["DEVICECTL_NOW": PhoneScratch.now]
                var arguments = substitutingPlaceholders(words, ["ROOT": root, "DIR": scratch.dir])
                if arguments.first == "NOW=yesterday" {
                    environment["DEVICECTL_NOW"] = "yesterday"
                    arguments.removeFirst()
                }
                let result = try DevicectlBinary.run(arguments, environment: environment)
                #expect(result.status == 64, "\(name) with \(what): exit \(result.status): \(result.stderr)")
                #expect(result.stderr.hasPrefix("devicectl: "), "\(name) with \(what): \(result.stderr)")
                #expect(result.stderr.contains(message), "\(name) with \(what): lacks '\(message)': \(result.stderr)")
                let help = "Run 'devicectl \(name) --help' for its options."
                #expect(
                    result.stderr.hasSuffix(help + "\n") || environment["DEVICECTL_NOW"] == "yesterday",
                    "\(name) with \(what): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(name) with \(what) printed: \(result.stdout)")
            }
            let after = try TreeSnapshot.take(scratch.dir)
            #expect(after == before, "\(name): \(snapshotDifference(before, after))")
        }
    }

    @Test func everyCommandHasAValidInvocationHere() {
        #expect(Set(Self.names) == Set(Self.valid.keys))
    }
}
