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
            #expect(first.stdout == "the widget of com.example.news placed on the home screen (position 1)\n")
            try phone.ok(["widget", "add", phone.root, "--app", "com.example.sports"])
            let again = try phone.ok(["widget", "add", phone.root, "--app", "com.example.news"])
            #expect(again.stdout == "the widget of com.example.news is already on the home screen (position 1)\n")

            let layout = try PhoneScratch.plistDictionary(Self.iconState(phone))
            let widgets = try #require(layout["widgets"] as? [[String: String]])
            #expect(
                widgets == [
                    ["app": "com.example.news", "kind": "NudgeWidget"],
                    ["app": "com.example.sports", "kind": "NudgeWidget"],
                ])
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
            #expect(!FileManager.default.fileExists(atPath: Self.iconState(phone)))
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
