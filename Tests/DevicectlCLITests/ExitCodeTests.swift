// ExitCodeTests: Devicectl.main maps success to 0, failures to 1 and usage errors to 64, and a usage
// error never touches the device.
import DeviceKit
import Foundation
import TestSupport
import Testing

@testable import DevicectlCLI

@Suite struct ExitCodeTests {
    static let environment = ["DEVICECTL_NOW": "2026-12-01T09:00:00Z"]

    /// Runs `arguments` (with `ROOT` replaced by a device root and `DIR` by its directory) in a new device.
    static func status(_ arguments: [String]) throws -> (Int32, Bool) {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            let device = try Device.initialize(root)
            try device.install(AppInstallation(bundleId: "com.example.news", groups: ["group.com.example.news"]))
            let before = try device.apps()
            let words = substitutingPlaceholders(arguments, ["ROOT": root, "DIR": dir])
            let code = Devicectl.main(words, environment: environment)
            return (code, try device.apps() == before && !FileManager.default.fileExists(atPath: "\(dir)/new"))
        }
    }

    @Test(arguments: [
        ["bogus"], ["widget"], ["install", "ROOT"],
        ["install", "ROOT", "--app", "com.example.x", "--nudge-delay", "-1h"],
        ["install", "ROOT", "--app", "com.example.x", "--nudge-policy", "sometimes"],
        ["install", "ROOT", "--app", "com.example.news", "--group", "bad/group"],
        ["launch", "ROOT", "--app", "com.example.news", "--now", "yesterday"], ["launch", "ROOT"],
        ["defaults", "write", "ROOT", "com.example.news", "k"],
        ["defaults", "write", "ROOT", "com.example.news", "k", "-int", "x"],
        ["exclude", "add"], ["status"], ["status", "ROOT", "--now", "soon"], ["init"], ["init", "DIR/new", "--bogus"],
        ["widget", "add", "ROOT", "--app"],
    ])
    func usageErrorsExit64AndChangeNothing(_ arguments: [String]) throws {
        let (code, unchanged) = try Self.status(arguments)
        #expect(code == 64)
        #expect(unchanged)
    }

    @Test(arguments: [
        ["status", "DIR/missing"], ["status", "DIR"], ["install", "DIR", "--app", "com.example.x"], ["init", "ROOT"],
        ["widget", "add", "ROOT", "--app", "com.example.unknown"], ["launch", "ROOT", "--app", "com.example.unknown"],
        ["defaults", "read", "ROOT", "com.example.unknown"],
        ["defaults", "read", "ROOT", "com.example.news", "missing"],
        ["defaults", "delete", "ROOT", "com.example.news", "missing"],
        ["defaults", "delete", "ROOT", "com.example.news"],
        ["exclude", "add", "DIR/missing"], ["exclude", "remove", "DIR/missing"],
    ])
    func failuresExit1AndChangeNothing(_ arguments: [String]) throws {
        let (code, unchanged) = try Self.status(arguments)
        #expect(code == 1)
        #expect(unchanged)
    }

    @Test(arguments: [
        ["init", "DIR/other"], ["status", "ROOT"], ["status", "ROOT", "--json"],
        ["widget", "add", "ROOT", "--app", "com.example.news"],
        ["launch", "ROOT", "--app", "com.example.news"], ["defaults", "read", "ROOT", "group.com.example.news"],
        ["defaults", "write", "ROOT", "com.example.news", "k", "-bool", "yes"], ["exclude", "add", "ROOT"],
        ["exclude", "remove", "ROOT"], ["install", "ROOT", "--app", "com.example.news"], ["--version"],
        ["init", "--help"],
    ])
    func successExits0(_ arguments: [String]) throws {
        #expect(try Self.status(arguments).0 == 0)
    }
}
