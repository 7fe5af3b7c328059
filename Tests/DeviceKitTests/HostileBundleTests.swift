// HostileBundleTests: an app bundle's files (entitlements, nudge configuration, widget extension Info.plists)
// are hostile like every device plist: a bad value is a malformed plist naming the file, the extension list is
// capped before any of them is read.
import DeviceKit
import Foundation
import Testing
import TestSupport

@Suite struct HostileBundleTests {
    struct Hostile: CustomStringConvertible, Sendable {
        let description: String
        /// The file inside `<Name>.app`.
        let file: String
        let mentions: String
        let value: @Sendable () -> Any
    }

    static let appex = "PlugIns/NudgeWidget.appex/Info.plist"
    static func appexInfo(_ extra: [String: Any]) -> [String: Any] {
        ["CFBundleIdentifier": "com.example.news.NudgeWidget", "CFBundlePackageType": "XPC!",
            "NSExtension": ["NSExtensionPointIdentifier": "com.apple.widgetkit-extension"]].merging(extra) { $1 }
    }

    static let cases: [Hostile] = [
        Hostile(description: "groups a string", file: "archived-expanded-entitlements.xcent",
            mentions: "com.apple.security.application-groups") { ["com.apple.security.application-groups": "g"] },
        Hostile(description: "33 groups", file: "archived-expanded-entitlements.xcent", mentions: "too many") {
            ["com.apple.security.application-groups": (0..<33).map { "group.g\($0)" }]
        },
        Hostile(description: "nudge delay a string", file: "NudgeConfiguration.plist", mentions: "widget settings") {
            [
                "policy": "once", "delaySeconds": "soon", "title": "t", "body": "b", "markerFileName": "m",
                "flagKey": "k",
            ]
        },
        Hostile(description: "extension id climbing out", file: appex, mentions: "CFBundleIdentifier") {
            appexInfo(["CFBundleIdentifier": "../x"])
        },
        Hostile(description: "kinds not a list", file: appex, mentions: "DevicectlWidgetKinds") {
            appexInfo(["DevicectlWidgetKinds": "NudgeWidget"])
        },
        Hostile(description: "an unknown size", file: appex, mentions: "supportedSizes") {
            appexInfo(["DevicectlWidgetKinds": [["kind": "K", "supportedSizes": ["huge"]]]])
        },
        Hostile(description: "a kind with a newline", file: appex, mentions: "DevicectlWidgetKinds[0].kind") {
            appexInfo(["DevicectlWidgetKinds": [["kind": "a\nb", "supportedSizes": ["small"]]]])
        },
        Hostile(description: "version a number", file: "Info.plist", mentions: "CFBundleShortVersionString") {
            ["CFBundleIdentifier": "com.example.news", "CFBundleShortVersionString": 3]
        },
    ]

    @Test(arguments: cases)
    func aHostileBundleFileIsAMalformedPlistNamingIt(_ hostile: Hostile) throws {
        try TestPhone.withDevice { device in
            let app = try device.install(AppInstallation(bundleId: "com.example.news"))
            let path = device.path("\(app.appPath)/\(hostile.file)")
            try PropertyListFile.write(hostile.value(), to: path)
            do {
                _ = try device.apps()
                Issue.record("accepted \(hostile)")
            } catch {
                #expect("\(error)".contains(path) && "\(error)".contains(hostile.mentions), "\(error)")
            }
        }
    }

    @Test func moreExtensionsThanABundleMayHoldAreRefusedBeforeReadingThem() throws {
        try TestPhone.withDevice { device in
            let app = try device.install(AppInstallation(bundleId: "com.example.news"))
            for index in 0..<40 {
                try FileManager.default.createDirectory(
                    atPath: device.path("\(app.appPath)/PlugIns/E\(index).appex"), withIntermediateDirectories: true)
            }
            #expect(throws: DeviceError.self) { try device.apps() }
        }
    }
}
