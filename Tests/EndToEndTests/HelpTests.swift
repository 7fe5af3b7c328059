import TestSupport
import Testing

@Suite struct HelpTests {
    @Test func versionAndHelp() throws {
        let version = try DevicectlBinary.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("devicectl "))
        let help = try DevicectlBinary.run(["help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("widget-refresh"))
    }

    @Test(arguments: [
        "init", "install", "widget add", "launch", "defaults read", "defaults write", "defaults delete",
        "exclude add", "exclude remove", "exclude check", "status", "backup", "restore", "verify", "list",
        "widget-refresh", "notifications", "tap", "events",
    ])
    func everyCommandHasHelp(_ command: String) throws {
        let result = try DevicectlBinary.run(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Usage: devicectl \(command)"))
    }

    @Test func unknownCommandIsUsageError() throws {
        let result = try DevicectlBinary.run(["bakup"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("did you mean 'backup'?"))
    }
}
