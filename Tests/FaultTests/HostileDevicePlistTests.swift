// HostileDevicePlistTests: a device root is hostile too. A value in one of its plists that would become a path,
// a date or a count (a marker name that climbs out, a delay of 1e308, an identifier with '/') is a malformed-plist
// error naming the file for status, launch and widget-refresh: exit 1, no trap, nothing changed inside or outside
// ROOT; notifications (which reads none of these files) is unaffected.
import Foundation
import TestSupport
import Testing

@Suite struct HostileDevicePlistTests {
    struct Case: CustomStringConvertible, Sendable {
        let description: String
        /// Which file (as `MalformedInputTests.path` names them).
        let file: String
        /// What the error must say besides the file's path.
        let mentions: String
        let edit: @Sendable (inout [String: Any]) -> Void
    }

    /// Sets `key` of the app's nudge configuration (`NudgeConfiguration.plist` in its bundle).
    static func widget(_ key: String, _ value: Any & Sendable) -> @Sendable (inout [String: Any]) -> Void {
        { settings in settings[key] = value }
    }

    static let cases: [Case] = [
        Case(
            description: "marker name climbing out to the sentinel", file: "nudge", mentions: "markerFileName",
            edit: widget("markerFileName", "../../../../../sentinel/EVIL")),
        Case(
            description: "marker name with '/'", file: "nudge", mentions: "markerFileName",
            edit: widget("markerFileName", "a/b")),
        Case(description: "delay 1e308", file: "nudge", mentions: "delaySeconds", edit: widget("delaySeconds", 1e308)),
        Case(description: "delay -1", file: "nudge", mentions: "delaySeconds", edit: widget("delaySeconds", -1.0)),
        Case(
            description: "delay 'NaN' as a string", file: "nudge", mentions: "widget settings",
            edit: widget("delaySeconds", "NaN")),
        Case(description: "flag key empty", file: "nudge", mentions: "flagKey", edit: widget("flagKey", "")),
        Case(
            description: "title of 2000 bytes", file: "nudge", mentions: "title",
            edit: widget("title", String(repeating: "t", count: 2000))),
        Case(description: "app name climbing out", file: "info", mentions: "CFBundleDisplayName") {
            $0["CFBundleDisplayName"] = "../x"
        },
        Case(description: "bundle id climbing out", file: "info", mentions: "CFBundleIdentifier") {
            $0["CFBundleIdentifier"] = "../x"
        },
        Case(
            description: "a group id climbing out", file: "entitlements",
            mentions: "com.apple.security.application-groups[0]"
        ) {
            $0["com.apple.security.application-groups"] = ["../../x"]
        },
        Case(
            description: "groups not strings", file: "entitlements", mentions: "com.apple.security.application-groups"
        ) {
            $0["com.apple.security.application-groups"] = [1, 2]
        },
        Case(
            description: "container identifier climbing out", file: "group metadata",
            mentions: "MCMMetadataIdentifier"
        ) {
            $0["MCMMetadataIdentifier"] = "../../x"
        },
        Case(
            description: "home-screen widget app climbing out", file: "iconstate",
            mentions: "containerBundleIdentifier"
        ) {
            $0["iconLists"] = [[[
                "iconType": "custom", "elementType": "widget", "widgetIdentifier": "NudgeWidget",
                "bundleIdentifier": "com.example.news.NudgeWidget", "containerBundleIdentifier": "../x",
                "uniqueIdentifier": "A", "gridSize": "medium",
            ]]]
        },
        Case(description: "old home-screen widget app climbing out", file: "iconstate", mentions: "widgets[0].app") {
            $0 = ["widgets": [["app": "../x", "kind": "NudgeWidget"]]]
        },
    ]

    @Test(arguments: cases)
    func aHostileValueIsAMalformedPlistAndNothingChanges(_ hostile: Case) throws {
        try PhoneScratch.withFaults { scratch in
            let root = try MalformedInputTests.device(scratch)
            let path = try MalformedInputTests.path(hostile.file, root)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            var plist = try #require(
                try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
            hostile.edit(&plist)
            try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
                .write(to: URL(fileURLWithPath: path))
            let before = try TreeSnapshot.take(scratch.dir)
            let commands = [["status", root], ["launch", root, "--app", "com.example.news"], ["widget-refresh", root]]
            for command in commands {
                let result = try scratch.fails(
                    command, mentioning: [path, "malformed property list", hostile.mentions])
                #expect(result.status < 128, "\(command[0]): exit \(result.status)")
                let after = try TreeSnapshot.take(scratch.dir)
                #expect(after == before, "\(command[0]): \(snapshotDifference(before, after))")
            }
            // It settles the delivered N1 (an event logged), as on any device.
            let notifications = try scratch.ok(["notifications", root])
            #expect(notifications.stdout.contains("N1"))
        }
    }

    /// A date no calendar names (the identity's `Created` ±1e300 seconds after 2001) is shown as its seconds,
    /// as `list` shows such a file time; it used to trap converting the Double to an Int. (A NaN date is a
    /// malformed property list: the reader refuses it.)
    @Test(arguments: [(1e300, "9223372036854775807"), (-1e300, "-9223372036854775808")])
    func anIdentityCreatedPastAnyCalendarIsShownAsSeconds(_ seconds: Double, _ shown: String) throws {
        try PhoneScratch.withFaults { scratch in
            let root = scratch.root
            try scratch.ok(["init", root])
            let path = root + "/DeviceLocal/identity.plist"
            var identity = try #require(
                try PropertyListSerialization.propertyList(
                    from: Data(contentsOf: URL(fileURLWithPath: path)), format: nil) as? [String: Any])
            identity["Created"] = Date(timeIntervalSinceReferenceDate: seconds)
            try PropertyListSerialization.data(fromPropertyList: identity, format: .binary, options: 0)
                .write(to: URL(fileURLWithPath: path))
            let status = try scratch.ok(["status", root])
            #expect(status.stdout.contains("created  \(shown)\n"), "\(status.stdout)")
            let json = try scratch.ok(["status", root, "--json"])
            #expect(json.stdout.contains("\"\(shown)\""), "\(json.stdout)")
        }
    }
}
