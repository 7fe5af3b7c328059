// InstallEndToEndTests: `devicectl install` through the binary, checked with Python's plistlib.
import Foundation
import TestSupport
import Testing

@Suite struct InstallEndToEndTests {
    @Test func installCreatesBundleDataGroupAndPluginContainers() throws {
        try PhoneScratch.with { phone in
            let result = try phone.ok([
                "install", phone.root, "--app", "com.example.news", "--group", "group.com.example.news",
            ])
            #expect(result.stdout.hasPrefix("installed com.example.news (News)\n"))
            #expect(result.stdout.contains("App Group         group.com.example.news Containers/Shared/AppGroup/"))
            #expect(result.stdout.contains("(created)"))

            #expect(try phone.containers("Containers/Bundle/Application").keys.sorted() == ["com.example.news"])
            #expect(try phone.containers("Containers/Data/Application").keys.sorted() == ["com.example.news"])
            #expect(try phone.containers("Containers/Shared/AppGroup").keys.sorted() == ["group.com.example.news"])
            #expect(
                try phone.containers("Containers/Data/PluginKitPlugin").keys.sorted() == [
                    "com.example.news.NudgeWidget"
                ])

            let bundle = try phone.containerPath("Containers/Bundle/Application", "com.example.news")
            let info = try PhoneScratch.plistDictionary("\(bundle)/News.app/Info.plist")
            #expect(info["CFBundleIdentifier"] as? String == "com.example.news")
            #expect(info["CFBundlePackageType"] as? String == "APPL")
            #expect(info["CFBundleDisplayName"] as? String == "News")
            #expect(info["DevicectlAppGroups"] == nil && info["DevicectlNudgeWidget"] == nil)
            let entitlements = try PhoneScratch.plistDictionary(
                "\(bundle)/News.app/archived-expanded-entitlements.xcent")
            #expect(entitlements["com.apple.security.application-groups"] as? [String] == ["group.com.example.news"])
            let appex = try PhoneScratch.plistDictionary("\(bundle)/News.app/PlugIns/NudgeWidget.appex/Info.plist")
            #expect(appex["CFBundlePackageType"] as? String == "XPC!")
            #expect(appex["CFBundleIdentifier"] as? String == "com.example.news.NudgeWidget")
            #expect(
                (appex["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String
                    == "com.apple.widgetkit-extension")
            let widget = try PhoneScratch.plistDictionary("\(bundle)/News.app/NudgeConfiguration.plist")
            #expect(widget["policy"] as? String == "once")
            #expect(widget["delaySeconds"] as? Double == 86_400)
            #expect(widget["markerFileName"] as? String == "device-restoration-marker.txt")
            #expect(widget["flagKey"] as? String == "notificationEnabled")
            let metadata = try PhoneScratch.plistDictionary(
                "\(bundle)/.com.apple.mobile_container_manager.metadata.plist")
            #expect(metadata["MCMMetadataContentClass"] as? Int == 1)
            let data = try phone.containerPath("Containers/Data/Application", "com.example.news")
            for sub in ["Documents", "Library/Preferences", "Library/Caches", "tmp"] {
                #expect(FileManager.default.fileExists(atPath: "\(data)/\(sub)"), "\(sub)")
            }
        }
    }

    @Test func secondAppSharesTheExistingGroup() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let group = try phone.containerPath("Containers/Shared/AppGroup", "group.com.example.news")
            try Data("shared".utf8).write(to: URL(fileURLWithPath: "\(group)/shared.txt"))
            let result = try phone.ok([
                "install", phone.root, "--app", "com.example.sports", "--group", "group.com.example.news",
                "--group", "group.com.example.sports",
            ])
            #expect(result.stdout.contains("group.com.example.news Containers/Shared/AppGroup/"))
            #expect(result.stdout.contains("(shared with com.example.news)"))
            let groups = try phone.containers("Containers/Shared/AppGroup")
            #expect(groups.keys.sorted() == ["group.com.example.news", "group.com.example.sports"])
            #expect(try phone.containerPath("Containers/Shared/AppGroup", "group.com.example.news") == group)
            #expect(FileManager.default.fileExists(atPath: "\(group)/shared.txt"))
        }
    }

    @Test func everyWidgetOptionIsRecordedAndJSONDescribesIt() throws {
        try PhoneScratch.with { phone in
            let result = try phone.ok([
                "install", phone.root, "--app", "com.example.news", "--nudge-policy", "as-published", "--nudge-delay",
                "1h30m",
                "--nudge-title", "Hello again", "--nudge-body", "Open News", "--marker-name", "here.txt", "--flag-key",
                "armed",
                "--json",
            ])
            let json = try PhoneScratch.json(result)
            #expect(json["app"] as? String == "com.example.news")
            #expect(json["reinstalled"] as? Bool == false)
            let groups = try #require(json["groups"] as? [[String: Any]])
            #expect(groups.map { $0["id"] as? String } == ["group.com.example.news"])
            #expect(groups.first?["status"] as? String == "created")
            let widget = try #require(json["widget"] as? [String: Any])
            #expect(widget["policy"] as? String == "as-published")
            #expect(widget["delaySeconds"] as? Double == 5400)

            let bundle = try phone.containerPath("Containers/Bundle/Application", "com.example.news")
            let info = try PhoneScratch.plistDictionary("\(bundle)/News.app/Info.plist")
            _ = info
            let recorded = try PhoneScratch.plistDictionary("\(bundle)/News.app/NudgeConfiguration.plist")
            #expect(recorded["policy"] as? String == "as-published")
            #expect(recorded["delaySeconds"] as? Double == 5400)
            #expect(recorded["title"] as? String == "Hello again")
            #expect(recorded["body"] as? String == "Open News")
            #expect(recorded["markerFileName"] as? String == "here.txt")
            #expect(recorded["flagKey"] as? String == "armed")
            let entitlements = try PhoneScratch.plistDictionary(
                "\(bundle)/News.app/archived-expanded-entitlements.xcent")
            #expect(entitlements["com.apple.security.application-groups"] as? [String] == ["group.com.example.news"])
        }
    }

    @Test func noWidgetAppHasNoPluginAndNoGroup() throws {
        try PhoneScratch.with { phone in
            let result = try phone.ok(["install", phone.root, "--app", "com.example.plain", "--no-widget"])
            #expect(result.stdout.contains("nudge widget      none"))
            let bundle = try phone.containerPath("Containers/Bundle/Application", "com.example.plain")
            let info = try PhoneScratch.plistDictionary("\(bundle)/Plain.app/Info.plist")
            #expect(info["DevicectlNudgeWidget"] == nil)
            #expect(!FileManager.default.fileExists(atPath: "\(bundle)/Plain.app/NudgeConfiguration.plist"))
            let entitlements = try PhoneScratch.plistDictionary(
                "\(bundle)/Plain.app/archived-expanded-entitlements.xcent")
            #expect(entitlements["com.apple.security.application-groups"] as? [String] == [])
            #expect(try phone.containers("Containers/Data/PluginKitPlugin").isEmpty)
            #expect(try phone.containers("Containers/Shared/AppGroup").isEmpty)
        }
    }

    @Test func reinstallKeepsTheAppsData() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let data = try phone.containerPath("Containers/Data/Application", "com.example.news")
            try Data("draft".utf8).write(to: URL(fileURLWithPath: "\(data)/Documents/draft.txt"))
            try phone.ok(["defaults", "write", phone.root, "com.example.news", "launches", "-int", "7"])
            let result = try phone.ok([
                "install", phone.root, "--app", "com.example.news", "--group", "group.com.example.news",
                "--nudge-delay", "0s",
            ])
            #expect(result.stdout.hasPrefix("reinstalled com.example.news (News)"))
            #expect(result.stdout.contains("(kept)"))
            #expect(try phone.containerPath("Containers/Data/Application", "com.example.news") == data)
            #expect(try String(contentsOfFile: "\(data)/Documents/draft.txt", encoding: .utf8) == "draft")
            #expect(try phone.ok(["defaults", "read", phone.root, "com.example.news", "launches"]).stdout == "7\n")
            #expect(try phone.containers("Containers/Bundle/Application").count == 1)
        }
    }

    @Test(arguments: [
        (["--nudge-delay", "-1h"], ["invalid value '-1h' for --nudge-delay"]),
        (["--nudge-delay", "1d2x"], ["invalid value '1d2x' for --nudge-delay"]),
        (["--nudge-policy", "always"], ["invalid value 'always' for --nudge-policy"]),
        (["--group", "group/../../etc"], ["invalid value 'group/../../etc' for --group"]),
        (["--no-widget", "--nudge-title", "x"], ["--nudge-title cannot be combined with --no-widget"]),
        (["--marker-name", "../escape.txt"], ["invalid value '../escape.txt' for --marker-name"]),
    ])
    func badValuesAreUsageErrorsAndChangeNothing(_ extra: [String], _ messages: [String]) throws {
        try PhoneScratch.with { phone in
            let before = try phone.snapshot()
            try phone.fails(
                ["install", phone.root, "--app", "com.example.news"] + extra, status: 64, mentioning: messages)
            #expect(try phone.snapshot() == before)
        }
    }

    @Test func missingAppAndBadRootAndMalformedMetadata() throws {
        try PhoneScratch.with { phone in
            try phone.fails(
                ["install", phone.root], status: 64, mentioning: ["missing required option --app BUNDLE_ID"])
            try phone.fails(
                ["install", phone.dir, "--app", "com.example.news"], mentioning: ["\(phone.dir) is not a device root"])
            try phone.fails(
                ["install", "\(phone.dir)/nowhere", "--app", "com.example.news"], mentioning: ["\(phone.dir)/nowhere"])

            try phone.install()
            let group = try phone.containerPath("Containers/Shared/AppGroup", "group.com.example.news")
            let metadata = "\(group)/.com.apple.mobile_container_manager.metadata.plist"
            try Data("garbage".utf8).write(to: URL(fileURLWithPath: metadata))
            let before = try phone.snapshot()
            try phone.fails(
                ["install", phone.root, "--app", "com.example.sports"],
                mentioning: [metadata, "malformed property list"])
            #expect(try phone.snapshot() == before)
        }
    }
}
