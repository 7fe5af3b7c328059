// SpringBoardLayoutTests: IconState.plist files built by hand in SpringBoard's schema are read, edited and
// written back without losing a key; hostile ones are refused naming the file; the old layout is upgraded.
import DeviceKit
import Foundation
import Testing
import TestSupport

@Suite struct SpringBoardLayoutTests {
    static let news = "com.example.news"
    static let newsWidget = "com.example.news.NudgeWidget"

    static func widget(_ app: String, _ ext: String, kind: String, id: String, size: String? = nil) -> [String: Any] {
        var dict: [String: Any] = [
            "iconType": "custom", "displayIdentifier": UUID().uuidString, "elementType": "widget",
            "widgetIdentifier": kind, "bundleIdentifier": ext, "containerBundleIdentifier": app,
            "uniqueIdentifier": id,
            "allowsSuggestions": false, "allowsExternalSuggestions": false,
        ]
        if let size { dict["gridSize"] = size }
        return dict
    }

    /// A layout as SpringBoard writes one: two pages (apps, a folder, an app dict, a widget; a Smart Stack),
    /// the dock, the Today view, `ignored`, `listMetadata` and a key devicectl does not know.
    static func springBoardLayout() -> [String: Any] {
        let folder: [String: Any] = [
            "listType": "folder", "displayName": "Utilities", "uniqueIdentifier": "FOLDER-1",
            "iconLists": [["com.apple.calculator", "com.apple.compass"]], "listUniqueIdentifiers": ["F1"],
        ]
        let stack: [String: Any] = [
            "iconType": "custom", "displayIdentifier": "STACK-1", "gridSize": "medium", "allowsSuggestions": true,
            "allowsExternalSuggestions": true, "userSelectedElementIdentifier": "W2",
            "elements": [
                ["elementType": "widget", "widgetIdentifier": "NudgeWidget", "bundleIdentifier": newsWidget,
                    "containerBundleIdentifier": news, "uniqueIdentifier": "W2"],
                ["elementType": "widget", "widgetIdentifier": "com.apple.weather", "bundleIdentifier":
                    "com.apple.weather.widget", "containerBundleIdentifier": "com.apple.weather",
                    "uniqueIdentifier": "W3"],
                ["elementType": "siriSuggestions", "uniqueIdentifier": "W4"],
            ],
        ]
        return [
            "iconLists": [
                [news, folder, ["iconType": "app", "displayIdentifier": "x", "bundleIdentifier": "y"],
                    widget(news, newsWidget, kind: "NudgeWidget", id: "W1", size: "large")],
                [stack],
            ],
            "listUniqueIdentifiers": ["P1", "P2"],
            "buttonBar": ["com.apple.mobilephone", "com.apple.mobilesafari"],
            "today": [widget(news, newsWidget, kind: "NudgeWidget", id: "W5", size: "small")],
            "ignored": ["com.example.hidden"],
            "listMetadata": ["P2": ["hiddenDate": Date(timeIntervalSince1970: 0)]],
            "widgetVersion": 1,
            "someFutureKey": ["nested": [1, 2, 3]],
        ]
    }

    static func writeXML(_ plist: [String: Any], on device: Device) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: device.path(DeviceLayout.homeScreen)))
    }

    static func readRaw(_ device: Device) throws -> (NSDictionary, Data) {
        let data = try Data(contentsOf: URL(fileURLWithPath: device.path(DeviceLayout.homeScreen)))
        let plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        return (plist as! NSDictionary, data)
    }

    @Test func readsEveryPlacedWidgetInPageOrderThenToday() throws {
        try TestPhone.withDevice { device in
            try Self.writeXML(Self.springBoardLayout(), on: device)
            let layout = try device.homeScreen()
            #expect(!layout.isLegacy)
            #expect(layout.placedWidgets.map(\.id) == ["W1", "W2", "W3", "W5"])
            #expect(layout.placedWidgets.map(\.placeText) == ["page 1", "page 2 (stack)", "page 2 (stack)", "today"])
            #expect(layout.placedWidgets.map(\.size) == ["large", "medium", "medium", "small"])
            #expect(layout.placedWidgets[1].stack == "STACK-1")
            #expect(layout.widgets == [Self.news, "com.apple.weather"])
            #expect(layout.appIcons.prefix(3) == [Self.news, "com.apple.calculator", "com.apple.compass"])
        }
    }

    @Test func rewritesWithoutLosingAKey() throws {
        try TestPhone.withDevice { device in
            try device.install(AppInstallation(bundleId: Self.news))
            let original = Self.springBoardLayout()
            try Self.writeXML(original, on: device)
            let placed = try device.placeWidget(
                HomeScreen.Placement(
                    app: Self.news, extensionId: "", kind: "NudgeWidget", size: "small", page: 3, stackWith: nil))
            #expect(placed.added && placed.widget.page == 3)
            _ = try device.placeWidget(
                HomeScreen.Placement(
                    app: Self.news, extensionId: "", kind: "NudgeWidget", size: "large", page: nil, stackWith: "W1"))
            let (raw, bytes) = try Self.readRaw(device)
            #expect(bytes.starts(with: Array("bplist00".utf8)), "SpringBoard writes binary plists")
            for key in ["buttonBar", "today", "ignored", "listMetadata", "widgetVersion", "someFutureKey"] {
                #expect(raw[key] as? NSObject == (original as NSDictionary)[key] as? NSObject, "\(key)")
            }
            let pages = raw["iconLists"] as! [[Any]]
            #expect(pages.count == 3 && (raw["listUniqueIdentifiers"] as! [String]).count == 3)
            #expect((pages[0][1] as! NSDictionary) == ((original["iconLists"] as! [[Any]])[0][1] as! NSDictionary))
            #expect((pages[1][0] as! NSDictionary) == ((original["iconLists"] as! [[Any]])[1][0] as! NSDictionary))
            // W1 became a stack: no top-level elementType (iLEAPP would read it as one widget), two elements.
            let stacked = pages[0][3] as! [String: Any]
            #expect(stacked["elementType"] == nil && (stacked["elements"] as! [Any]).count == 2)
            #expect(stacked["userSelectedElementIdentifier"] as? String == "W1")
            let layout = try device.homeScreen()
            #expect(layout.placedWidgets.count == 6)
            // Removing the news widgets leaves the weather widget as the stack's only widget... flat.
            var edited = layout
            #expect(edited.removeWidgets(app: Self.news) == 5)
            try device.save(edited)
            let after = try device.homeScreen()
            #expect(after.placedWidgets.map(\.id) == ["W3"])
            let (again, _) = try Self.readRaw(device)
            #expect(again["someFutureKey"] as? NSObject == (original as NSDictionary)["someFutureKey"] as? NSObject)
        }
    }

    @Test func oldLayoutIsReadAndUpgradedOnTheNextWrite() throws {
        try TestPhone.withDevice { device in
            try device.install(AppInstallation(bundleId: Self.news))
            try device.install(AppInstallation(bundleId: "com.example.mail"))
            try Self.writeXML(
                ["widgets": [["app": Self.news, "kind": "NudgeWidget"]], "keptKey": "kept"], on: device)
            let old = try device.homeScreen()
            #expect(old.isLegacy && old.widgets == [Self.news])
            #expect(old.placedWidgets.first?.extensionId == Self.newsWidget)
            #expect(try device.homeScreen().placedWidgets == old.placedWidgets, "the same ids every read")
            try device.placeWidgets(apps: ["com.example.mail"])
            let (raw, _) = try Self.readRaw(device)
            #expect(raw["widgets"] == nil && raw["keptKey"] as? String == "kept")
            let upgraded = try device.homeScreen()
            #expect(!upgraded.isLegacy && upgraded.widgets == [Self.news, "com.example.mail"])
        }
    }

    struct Hostile: CustomStringConvertible, Sendable {
        let description: String
        let mentions: String
        let build: @Sendable () -> Any
    }

    static let hostile: [Hostile] = [
        Hostile(description: "top level an array", mentions: "not a dictionary") { [1] },
        Hostile(description: "both layouts", mentions: "both") { ["iconLists": [[]], "widgets": []] },
        Hostile(description: "neither layout", mentions: "no 'iconLists'") { ["buttonBar": []] },
        Hostile(description: "iconLists a string", mentions: "'iconLists' is a string") { ["iconLists": "x"] },
        Hostile(description: "a page a number", mentions: "page 1") { ["iconLists": [7]] },
        Hostile(description: "an entry a number", mentions: "entry 1 of page 1") { ["iconLists": [[7]]] },
        Hostile(description: "widget without extension", mentions: "'bundleIdentifier'") {
            var widget = SpringBoardLayoutTests.widget(news, newsWidget, kind: "K", id: "A")
            widget["bundleIdentifier"] = nil
            return ["iconLists": [[widget]]]
        },
        Hostile(description: "kind not a string", mentions: "'widgetIdentifier'") {
            var widget = SpringBoardLayoutTests.widget(news, newsWidget, kind: "K", id: "A")
            widget["widgetIdentifier"] = 5
            return ["iconLists": [[widget]]]
        },
        Hostile(description: "app climbing out", mentions: "containerBundleIdentifier") {
            ["iconLists": [[SpringBoardLayoutTests.widget("../x", newsWidget, kind: "K", id: "A")]]]
        },
        Hostile(description: "one widget id twice", mentions: "used twice") {
            ["iconLists": [[SpringBoardLayoutTests.widget(news, newsWidget, kind: "K", id: "A")],
                [SpringBoardLayoutTests.widget(news, newsWidget, kind: "K", id: "A")]]]
        },
        Hostile(description: "too many pages", mentions: "more than 500") {
            ["iconLists": Array(repeating: [String](), count: 501)]
        },
        Hostile(description: "nested too deep", mentions: "nested deeper") {
            var deep: Any = "leaf"
            for _ in 0..<20 { deep = [deep] }
            return ["iconLists": [[]], "x": deep]
        },
        Hostile(description: "too many values", mentions: "more than 100000 values") {
            ["iconLists": [[]], "x": Array(repeating: 1, count: 100_001)]
        },
        Hostile(description: "stack elements not dicts", mentions: "element 1 of the stack") {
            ["iconLists": [[["iconType": "custom", "elements": ["x"]]]]]
        },
        Hostile(description: "widgetVersion a string", mentions: "'widgetVersion'") {
            ["iconLists": [[]], "widgetVersion": "1"]
        },
    ]

    @Test(arguments: hostile)
    func hostileLayoutIsRefusedNamingTheFile(_ input: Hostile) throws {
        try TestPhone.withDevice { device in
            let data = try PropertyListSerialization.data(fromPropertyList: input.build(), format: .binary, options: 0)
            try data.write(to: URL(fileURLWithPath: device.path(DeviceLayout.homeScreen)))
            do {
                _ = try device.homeScreen()
                Issue.record("accepted \(input)")
            } catch {
                #expect("\(error)".contains("IconState.plist"), "\(error)")
                #expect("\(error)".contains(input.mentions), "\(error)")
            }
            // Restore and verify judge an archive member by the same check (through Foundation's types, as the home
            // screen was read before it was read straight from PropertyListKit's value): the same reason.
            var direct: String?, checked: String?
            do { _ = try device.homeScreen() } catch DeviceError.malformedPlist(_, let reason) { direct = reason }
            do { try DevicePlist.homeScreen.check(Array(data), path: "m") } catch DeviceError.malformedPlist(_, let reason) {
                checked = reason
            }
            #expect(checked != nil && direct == checked, "\(String(describing: direct)) / \(String(describing: checked))")
        }
    }
}
