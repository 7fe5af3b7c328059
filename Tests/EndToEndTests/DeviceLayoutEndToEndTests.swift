// DeviceLayoutEndToEndTests: the commands over iOS's layout: a reinstall keeps the app's settings, uninstall
// removes what iOS removes, container prints simctl's paths, widget add places pages and stacks and refuses
// what SpringBoard would not take.
import Foundation
import Testing
import TestSupport

@Suite struct DeviceLayoutEndToEndTests {
    typealias F = NudgeFixture

    @discardableResult
    static func ok(_ arguments: [String]) throws -> RunResult {
        let result = try DevicectlBinary.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    @Test func aReinstallKeepsTheAppsSettingsExceptThoseGiven() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try Self.ok(["init", root])
            try Self.ok([
                "install", root, "--app", F.news, "--group", "group.a", "--group", "group.b", "--nudge-delay", "1h",
                "--marker-name", "m.txt", "--nudge-policy", "as-published", "--name", "Daily", "--version", "2.0",
            ])
            try Self.ok(["install", root, "--app", F.news, "--flag-key", "armed"])
            let status = try Self.ok(["status", root, "--json"]).stdout
            #expect(status.contains("\"flagKey\":\"armed\"") && status.contains("\"markerFileName\":\"m.txt\""))
            #expect(status.contains("\"policy\":\"as-published\"") && status.contains("\"delaySeconds\":3600"))
            let groups = try Self.ok(["container", root, "--app", F.news, "groups"]).stdout
            #expect(groups.hasPrefix("group.a\t") && groups.contains("\ngroup.b\t"), "both groups kept, in order")
            let app = try Self.ok(["container", root, "--app", F.news]).stdout
            #expect(app.hasSuffix("/Daily.app\n"), "the name is kept: \(app)")
            let bundle = (app.trimmingCharacters(in: .newlines) as NSString).deletingLastPathComponent
            let infoBytes = try Data(contentsOf: URL(fileURLWithPath: "\(bundle)/Daily.app/Info.plist"))
            let info = try #require(
                try PropertyListSerialization.propertyList(from: infoBytes, format: nil) as? [String: Any])
            #expect(info["CFBundleShortVersionString"] as? String == "2.0")
        }
    }

    @Test func uninstallRemovesTheAppItsUnsharedGroupsIconAndWidgets() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try Self.ok(["init", root])
            try Self.ok(["install", root, "--app", F.news, "--group", "group.shared", "--group", "group.news"])
            try Self.ok(["install", root, "--app", "com.example.sports", "--group", "group.shared"])
            try Self.ok(["widget", "add", root, "--app", F.news])
            let removed = try Self.ok(["uninstall", root, "--app", F.news]).stdout
            #expect(removed.contains("App Groups removed: group.news"), "\(removed)")
            #expect(try Self.ok(["widget", "list", root]).stdout == "no widgets on the home screen\n")
            let gone = try DevicectlBinary.run(["container", root, "--app", F.news])
            #expect(gone.status == 1 && gone.stderr.contains("no app 'com.example.news' is installed"))
            let shared = try Self.ok(["container", root, "--app", "com.example.sports", "group.shared"])
            #expect(shared.stdout.hasPrefix(root), "the shared group stays")
            let layoutBytes = try Data(contentsOf: URL(fileURLWithPath: "\(root)/Library/SpringBoard/IconState.plist"))
            let layout = try #require(
                try PropertyListSerialization.propertyList(from: layoutBytes, format: nil) as? [String: Any])
            #expect((layout["iconLists"] as? [[Any]])?.first as? [String] == ["com.example.sports"])
        }
    }

    @Test func widgetAddPlacesPagesAndStacksAndRefusesWhatSpringBoardWouldNot() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try Self.ok(["init", root])
            try Self.ok(["install", root, "--app", F.news])
            try Self.ok(["install", root, "--app", "com.example.plain", "--no-widget"])
            let first = try Self.ok(["widget", "add", root, "--app", F.news, "--size", "small"]).stdout
            let id = try #require(first.split(separator: " ").last?.dropLast(2))
            try Self.ok(["widget", "add", root, "--app", F.news, "--size", "large", "--page", "2"])
            try Self.ok(["widget", "add", root, "--app", F.news, "--size", "small", "--stack-with", String(id)])
            let list = try Self.ok(["widget", "list", root]).stdout.split(separator: "\n")
            #expect(list.count == 3 && list[0].hasPrefix("page 1 (stack)") && list[2].hasPrefix("page 2:"), "\(list)")
            let refusals: [([String], Int32, String)] = [
                (["--size", "huge"], 64, "--size must be small, medium or large"),
                (["--page", "0"], 64, "--page"),
                (["--page", "4"], 1, "there is no page 4: the home screen has 2 pages"),
                (["--kind", "Other"], 1, "has no widget 'Other'"),
                (["--stack-with", "NOPE"], 1, "no widget or stack 'NOPE'"),
                (["--stack-with", String(id), "--size", "large"], 1, "holds small widgets"),
                (["--page", "1", "--stack-with", String(id)], 64, "cannot be combined"),
            ]
            for (extra, status, message) in refusals {
                let result = try DevicectlBinary.run(["widget", "add", root, "--app", F.news] + extra)
                #expect(result.status == status && result.stderr.contains(message), "\(extra): \(result.stderr)")
            }
            let plain = try DevicectlBinary.run(["widget", "add", root, "--app", "com.example.plain"])
            #expect(plain.status == 1 && plain.stderr.contains("has no widget"))
            #expect(try Self.ok(["widget", "list", root]).stdout.split(separator: "\n").count == 3, "nothing changed")
            let removed = try Self.ok(["widget", "remove", root, "--app", F.news]).stdout
            #expect(removed == "removed 3 widgets of com.example.news from the home screen\n")
            let again = try DevicectlBinary.run(["widget", "remove", root, "--app", F.news])
            #expect(again.status == 1 && again.stderr.contains("no widget of com.example.news is on the home screen"))
        }
    }

    @Test func adoptRefusesADeviceAndAPlainDirectory() throws {
        try withTemporaryDirectory { dir in
            try Self.ok(["init", "\(dir)/phone"])
            let device = try DevicectlBinary.run(["init", "--adopt", "\(dir)/phone"])
            #expect(device.status == 1 && device.stderr.contains("it is already a device"), "\(device.stderr)")
            try FileManager.default.createDirectory(atPath: "\(dir)/plain/x", withIntermediateDirectories: true)
            let plain = try DevicectlBinary.run(["init", "--adopt", "\(dir)/plain"])
            #expect(plain.status == 1 && plain.stderr.contains("does not look like an iOS data directory"))
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/plain/DeviceLocal"))
        }
    }
}
