// LaunchEndToEndTests: `devicectl launch` writes the marker (with Apple's exclusion bytes) and the flag,
// cancels pending nudges and ends its output with the device token.
import Foundation
import TestSupport
import Testing

@Suite struct LaunchEndToEndTests {
    static func isToken(_ text: String) -> Bool {
        text.count == 64 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    @Test func launchWritesMarkerFlagAndSendsTheToken() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let result = try phone.ok(["launch", phone.root, "--app", "com.example.news"])
            let words = result.stdout.split(whereSeparator: \.isWhitespace)
            let token = try #require(words.last.map(String.init))
            #expect(Self.isToken(token), "\(result.stdout)")
            #expect(result.stdout.hasSuffix("device token sent: \(token)\n"))

            let group = try phone.containerPath("Containers/Shared/AppGroup", "group.com.example.news")
            let marker = "\(group)/device-restoration-marker.txt"
            #expect(try FileManager.default.attributesOfItem(atPath: marker)[.size] as? Int == 0)
            #expect(try PhoneScratch.exclusionHex(marker) == PhoneScratch.exclusionHex)
            let defaults = try PhoneScratch.plistDictionary("\(group)/Library/Preferences/group.com.example.news.plist")
            #expect(defaults["notificationEnabled"] as? Bool == true)
            #expect(
                try phone.ok(["defaults", "read", phone.root, "group.com.example.news", "notificationEnabled"]).stdout
                    == "1\n")

            let events = try phone.events().filter { $0["app"] as? String == "com.example.news" }
            #expect(events.map { $0["type"] as? String } == ["launch", "device-token-sent"])
            #expect(events.allSatisfy { $0["time"] as? String == PhoneScratch.now })
            #expect((events.last?["details"] as? [String: String])?["token"] == token)
        }
    }

    @Test func theFlagIsSetAgainOnEveryLaunchAndTheTokenIsPerDevice() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let first = try PhoneScratch.json(
                try phone.ok(["launch", phone.root, "--app", "com.example.news", "--json"]))
            let marker = phone.root + "/" + (try #require(first["markerPath"] as? String))
            #expect(first["app"] as? String == "com.example.news")
            #expect(first["cancelledNotifications"] as? [String] == [])
            // The flag is lost (a rewrite); the next launch sets it again.
            #expect(try Shell.run("setfattr", ["-x", PhoneScratch.exclusionAttribute, marker]).status == 0)
            #expect(try PhoneScratch.exclusionHex(marker) == nil)
            let second = try PhoneScratch.json(
                try phone.ok(["launch", phone.root, "--app", "com.example.news", "--json"]))
            #expect(try PhoneScratch.exclusionHex(marker) == PhoneScratch.exclusionHex)
            #expect(second["deviceToken"] as? String == first["deviceToken"] as? String)

            let other = PhoneScratch(dir: "\(phone.dir)/other")
            try other.ok(["init", other.root])
            try other.install()
            let elsewhere = try PhoneScratch.json(
                try other.ok(["launch", other.root, "--app", "com.example.news", "--json"]))
            #expect(Self.isToken(try #require(elsewhere["deviceToken"] as? String)))
            #expect(elsewhere["deviceToken"] as? String != first["deviceToken"] as? String)
        }
    }

    @Test func launchCancelsThePendingNudgeButNotADeliveredOne() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            // Seed two nudges with an independent writer: one fires tomorrow, one fired yesterday.
            try phone.python(
                """
                t = lambda h: datetime.datetime(2026, 12, 1, 9) + datetime.timedelta(hours=h)
                notes = [dict(id='N1-pending', app='com.example.news', title='t', body='b', scheduledAt=t(-1), fireDate=t(24)),
                         dict(id='N2-delivered', app='com.example.news', title='t', body='b', scheduledAt=t(-30), fireDate=t(-6))]
                open(os.path.join(root, 'DeviceLocal/notifications.plist'), 'wb').write(plistlib.dumps(notes, fmt=plistlib.FMT_BINARY))
                """)
            let result = try phone.ok(["launch", phone.root, "--app", "com.example.news"])
            #expect(result.stdout.contains("cancelled pending notification N1-pending\n"))
            let notes = try #require(
                try PhoneScratch.plist("\(phone.root)/DeviceLocal/notifications.plist") as? [[String: Any]])
            #expect(notes.first { $0["id"] as? String == "N1-pending" }?["cancelledAt"] as? String == PhoneScratch.now)
            #expect(notes.first { $0["id"] as? String == "N2-delivered" }?["cancelledAt"] == nil)
            let types = try phone.events().compactMap { $0["type"] as? String }
            #expect(
                types == ["init", "notification-delivered", "launch", "notification-cancelled", "device-token-sent"])
        }
    }

    @Test func nowComesFromTheOptionOrTheEnvironment() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try phone.ok(["launch", phone.root, "--app", "com.example.news"], now: "2027-01-02T03:04:05Z")
            try phone.ok(["launch", phone.root, "--app", "com.example.news", "--now", "2027-02-01T00:00:00+09:00"])
            let launches = try phone.events().filter { $0["type"] as? String == "launch" }.compactMap {
                $0["time"] as? String
            }
            #expect(launches == ["2027-01-02T03:04:05Z", "2027-01-31T15:00:00Z"])
        }
    }

    @Test func refusalsChangeNothing() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let before = try phone.snapshot()
            try phone.fails(
                ["launch", phone.root, "--app", "com.example.ghost"], mentioning: ["no app 'com.example.ghost'"])
            try phone.fails(["launch", phone.root], status: 64, mentioning: ["missing required option --app"])
            try phone.fails(
                ["launch", phone.root, "--app", "com.example.news", "--now", "tomorrow"], status: 64,
                mentioning: ["invalid value 'tomorrow' for --now"])
            try phone.fails(
                ["launch", phone.root, "--app", "com.example.news"], status: 64,
                mentioning: ["invalid DEVICECTL_NOW 'later'"], now: "later")
            #expect(try phone.snapshot() == before)

            let group = try phone.containerPath("Containers/Shared/AppGroup", "group.com.example.news")
            let suite = "\(group)/Library/Preferences/group.com.example.news.plist"
            try Data("not a plist".utf8).write(to: URL(fileURLWithPath: suite))
            let corrupted = try phone.snapshot()
            try phone.fails(
                ["launch", phone.root, "--app", "com.example.news"], mentioning: [suite, "malformed property list"])
            #expect(try phone.snapshot() == corrupted)
            #expect(!FileManager.default.fileExists(atPath: "\(group)/device-restoration-marker.txt"))
        }
    }
}
