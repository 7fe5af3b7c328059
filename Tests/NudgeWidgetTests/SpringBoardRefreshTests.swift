// SpringBoardRefreshTests: widget-refresh over an IconState.plist written by hand as SpringBoard writes one:
// every placed nudge widget runs (a page, a Smart Stack, the Today view), in page order then Today; widgets of
// other extensions, kinds or apps are skipped with a warning; the file is left as it was.
import DeviceKit
import Foundation
import NudgeWidget
import TestSupport
import Testing

@Suite struct SpringBoardRefreshTests {
    static let news = "com.example.news"
    static let mail = "com.example.mail"

    static func element(_ app: String, kind: String = "NudgeWidget", ext: String? = nil, id: String) -> [String: Any] {
        [
            "elementType": "widget", "widgetIdentifier": kind, "bundleIdentifier": ext ?? "\(app).NudgeWidget",
            "containerBundleIdentifier": app, "uniqueIdentifier": id,
        ]
    }

    static func icon(_ element: [String: Any], size: String) -> [String: Any] {
        element.merging(
            ["iconType": "custom", "displayIdentifier": UUID().uuidString, "gridSize": size,
                "allowsSuggestions": false, "allowsExternalSuggestions": false], uniquingKeysWith: { $1 })
    }

    @Test func everyPlacedNudgeWidgetRunsInPageOrderThenToday() throws {
        try withTemporaryDirectory { dir in
            let phone = try TestPhone("\(dir)/phone", apps: [])
            for app in [Self.news, Self.mail] { try phone.device.install(AppInstallation(bundleId: app)) }
            let stack: [String: Any] = [
                "iconType": "custom", "displayIdentifier": "STACK", "gridSize": "medium", "allowsSuggestions": true,
                "allowsExternalSuggestions": true,
                "elements": [
                    Self.element(Self.mail, id: "M1"),
                    Self.element("com.apple.weather", kind: "weather", ext: "com.apple.weather.widget", id: "X1"),
                    Self.element(Self.news, kind: "Headlines", id: "N9"),
                ],
            ]
            let layout: [String: Any] = [
                "iconLists": [[Self.news, Self.icon(Self.element(Self.news, id: "N1"), size: "small")], [stack]],
                "listUniqueIdentifiers": ["P1", "P2"], "buttonBar": ["com.apple.mobilephone"],
                "today": [Self.icon(Self.element(Self.news, id: "N2"), size: "large")], "widgetVersion": 1,
                "unknownRootKey": [1, 2],
            ]
            let path = phone.device.path(DeviceLayout.homeScreen)
            let bytes = try PropertyListSerialization.data(fromPropertyList: layout, format: .xml, options: 0)
            try bytes.write(to: URL(fileURLWithPath: path))
            for app in [Self.news, Self.mail] { try phone.suite(app).set(NudgeSettings.defaultFlagKey, to: true) }

            let results = try WidgetRefresher(device: phone.device).refreshAll(at: TestPhone.at(hours: 1))
            #expect(results.map(\.app) == [Self.news, Self.mail, "com.apple.weather", Self.news, Self.news])
            #expect(
                results.map(\.decision.reason) == [.restored, .restored, .appNotInstalled, .noWidget, .notArmed],
                "page 1, the stack in its order (the system widget and another kind skipped), then Today")
            #expect(results[3].problem?.contains("'Headlines'") == true)
            #expect(try NotificationStore(device: phone.device).all().count == 2)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "a refresh does not rewrite the layout")
        }
    }
}
