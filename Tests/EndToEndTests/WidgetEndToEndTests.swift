// WidgetEndToEndTests: `devicectl widget add` writes the home-screen layout that backups carry.
import Foundation
import TestSupport
import Testing

@Suite struct WidgetEndToEndTests {
    static func iconState(_ phone: PhoneScratch) -> String { "\(phone.root)/Library/SpringBoard/IconState.plist" }

    @Test func widgetsArePlacedOnceInOrder() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try phone.install("com.example.sports", [])
            let first = try phone.ok(["widget", "add", phone.root, "--app", "com.example.news"])
            #expect(
                first.stdout.hasPrefix("the medium widget 'NudgeWidget' of com.example.news placed on page 1 (id "))
            try phone.ok(["widget", "add", phone.root, "--app", "com.example.sports"])
            let again = try phone.ok(["widget", "add", phone.root, "--app", "com.example.news"])
            #expect(again.stdout == first.stdout.replacingOccurrences(of: "placed", with: "is already placed"))

            // SpringBoard's layout: the apps' icons, then one flat widget dict per widget, in order.
            let layout = try PhoneScratch.plistDictionary(Self.iconState(phone))
            let page = try #require((layout["iconLists"] as? [[Any]])?.first)
            #expect(page.prefix(2).compactMap { $0 as? String } == ["com.example.news", "com.example.sports"])
            let widgets = page.dropFirst(2).compactMap { $0 as? [String: Any] }
            #expect(
                widgets.map { $0["containerBundleIdentifier"] as? String } == ["com.example.news", "com.example.sports"])
            #expect(
                widgets.allSatisfy {
                    $0["iconType"] as? String == "custom" && $0["widgetIdentifier"] as? String == "NudgeWidget"
                })
        }
    }

    @Test func unknownAppOrAppWithoutWidgetIsRefused() throws {
        try PhoneScratch.with { phone in
            try phone.install("com.example.plain", ["--no-widget"])
            let before = try phone.snapshot()
            try phone.fails(
                ["widget", "add", phone.root, "--app", "com.example.ghost"],
                mentioning: ["no app 'com.example.ghost' is installed"])
            try phone.fails(
                ["widget", "add", phone.root, "--app", "com.example.plain"],
                mentioning: ["app 'com.example.plain' has no widget"])
            try phone.fails(["widget", "add", phone.root], status: 64, mentioning: ["missing required option --app"])
            #expect(try phone.snapshot() == before)
            #expect(try phone.ok(["widget", "list", phone.root]).stdout == "no widgets on the home screen\n")
        }
    }

    @Test func malformedLayoutIsNamed() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try phone.python(
                "open(os.path.join(root, 'Library/SpringBoard/IconState.plist'), 'wb').write(plistlib.dumps({'widgets': 'no'}, fmt=plistlib.FMT_BINARY))"
            )
            let before = try phone.snapshot()
            try phone.fails(
                ["widget", "add", phone.root, "--app", "com.example.news"],
                mentioning: [Self.iconState(phone), "malformed property list"])
            #expect(try phone.snapshot() == before)
        }
    }
}
