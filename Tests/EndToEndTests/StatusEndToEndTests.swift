// StatusEndToEndTests: `devicectl status` reports identity, apps, groups, widgets, markers, flags,
// notifications and tokens, and changes nothing.
import Foundation
import TestSupport
import Testing

@Suite struct StatusEndToEndTests {
    @Test func aFreshDevice() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let udid = try PhoneScratch.json(try phone.ok(["init", phone.root, "--json"]))["udid"] as? String
            let status = try PhoneScratch.json(try phone.ok(["status", phone.root, "--json"]))
            #expect(status["udid"] as? String == udid)
            #expect(status["root"] as? String == phone.root)
            #expect(status["created"] as? String == PhoneScratch.now)
            #expect((status["apps"] as? [Any])?.isEmpty == true)
            #expect((status["groups"] as? [Any])?.isEmpty == true)
            #expect((status["widgets"] as? [Any])?.isEmpty == true)
            let text = try phone.ok(["status", phone.root]).stdout
            #expect(text.contains("  udid     \(udid ?? "?")\n"))
            #expect(text.contains("apps (0)\n"))
        }
    }

    /// `status` and `widget-refresh` list each kind of container once (`ContainerIndex`; the refresh reuses what its
    /// validation read): every container's metadata plist is opened once, however many apps, groups and widgets look
    /// containers up (seven times each before).
    @Test func containerMetadataIsReadOnce() throws {
        try PhoneScratch.with { phone in
            for index in 0..<4 {
                try phone.install("com.example.app\(index)", ["--group", "group.com.example.app\(index)"])
                try phone.ok(["widget", "add", phone.root, "--app", "com.example.app\(index)"])
            }
            for command in [["status", phone.root], ["widget-refresh", phone.root, "--now", "2026-12-02T09:00:00Z"]] {
                let traced = try Shell.run(
                    "strace", ["-f", "-e", "trace=openat2", DevicectlBinary.path] + command,
                    environment: ["DEVICECTL_NOW": PhoneScratch.now])
                #expect(traced.status == 0, "\(command[0]): \(traced.stderr)")
                let opened = traced.stderr.split(separator: "\n")
                    .filter { $0.contains(".com.apple.mobile_container_manager.metadata.plist") }
                    .compactMap { $0.split(separator: "\"").dropFirst().first.map(String.init) }
                let groups = opened.filter { $0.hasPrefix("Containers/Shared/AppGroup/") }
                #expect(groups.count == 4, "\(command[0]) opened group metadata \(groups.count) times: \(groups)")
                let counts = Dictionary(opened.map { ($0, 1) }, uniquingKeysWith: +)
                #expect(counts.values.allSatisfy { $0 == 1 }, "\(command[0]): \(counts)")
            }
        }
    }

    @Test func everythingAboutTheApps() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try phone.install(
                "com.example.sports", ["--group", "group.com.example.news", "--nudge-policy", "as-published"])
            try phone.install("com.example.plain", ["--no-widget"])
            try phone.ok(["widget", "add", phone.root, "--app", "com.example.news"])
            let token = try PhoneScratch.json(
                try phone.ok(["launch", phone.root, "--app", "com.example.news", "--json"]))["deviceToken"]
            try phone.python(
                """
                t = lambda h: datetime.datetime(2026, 12, 1, 9) + datetime.timedelta(hours=h)
                notes = [dict(id='N1', app='com.example.sports', title='t', body='b', scheduledAt=t(0), fireDate=t(24)),
                         dict(id='N2', app='com.example.sports', title='t', body='b', scheduledAt=t(0), fireDate=t(2)),
                         dict(id='N3', app='com.example.sports', title='t', body='b', scheduledAt=t(0), fireDate=t(5), cancelledAt=t(1))]
                open(os.path.join(root, 'DeviceLocal/notifications.plist'), 'wb').write(plistlib.dumps(notes, fmt=plistlib.FMT_BINARY))
                """)
            let before = try phone.snapshot()
            let status = try PhoneScratch.json(
                try phone.ok(["status", phone.root, "--json", "--now", "2026-12-01T12:00:00Z"]))
            #expect(try phone.snapshot() == before)
            #expect(status["now"] as? String == "2026-12-01T12:00:00Z")
            let apps = try #require(status["apps"] as? [[String: Any]])
            #expect(
                apps.map { $0["bundleId"] as? String } == [
                    "com.example.news", "com.example.plain", "com.example.sports",
                ])
            let news = apps[0]
            let plain = apps[1]
            let sports = apps[2]

            #expect(news["name"] as? String == "News")
            #expect(news["groups"] as? [String] == ["group.com.example.news"])
            #expect(news["widgetPlaced"] as? Bool == true)
            #expect(news["markerPresent"] as? Bool == true)
            #expect(news["markerExcluded"] as? Bool == true)
            #expect((news["markerPath"] as? String)?.hasSuffix("/device-restoration-marker.txt") == true)
            #expect(news["flag"] as? Bool == true)
            #expect(news["lastDeviceToken"] as? String == token as? String)
            #expect((news["widget"] as? [String: Any])?["policy"] as? String == "once")

            #expect(sports["widgetPlaced"] as? Bool == false)
            #expect((sports["widget"] as? [String: Any])?["policy"] as? String == "as-published")
            #expect(sports["lastDeviceToken"] is NSNull)
            #expect(sports["notifications"] as? [String: Int] == ["pending": 1, "delivered": 1, "cancelled": 1])
            #expect(news["notifications"] as? [String: Int] == ["pending": 0, "delivered": 0, "cancelled": 0])

            #expect(plain["widget"] is NSNull)
            #expect(plain["markerPresent"] is NSNull)
            #expect(plain["flag"] is NSNull)

            let groups = try #require(status["groups"] as? [[String: Any]])
            #expect(groups.count == 1)
            #expect(groups.first?["id"] as? String == "group.com.example.news")
            #expect(groups.first?["apps"] as? [String] == ["com.example.news", "com.example.sports"])
            #expect(status["widgets"] as? [[String: String]] == [["app": "com.example.news"]])

            // Later, the pending one is delivered too.
            let later = try PhoneScratch.json(
                try phone.ok(["status", phone.root, "--json", "--now", "2026-12-03T00:00:00Z"]))
            let sportsLater = try #require((later["apps"] as? [[String: Any]])?.last)
            #expect(sportsLater["notifications"] as? [String: Int] == ["pending": 0, "delivered": 2, "cancelled": 1])

            let text = try phone.ok(["status", phone.root]).stdout
            #expect(text.contains("  com.example.news (News)\n"))
            #expect(text.contains("    marker         present (excluded from backup)"))
            #expect(text.contains("    flag           notificationEnabled = 1\n"))
            #expect(text.contains("    device token   \(token as? String ?? "?")\n"))
            #expect(text.contains("home screen widgets (1)\n  1. com.example.news\n"))
        }
    }

    @Test func aMarkerThatLostItsFlagIsShownAsNotExcluded() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let launched = try PhoneScratch.json(
                try phone.ok(["launch", phone.root, "--app", "com.example.news", "--json"]))
            let marker = try phone.root + "/" + #require(launched["markerPath"] as? String)
            try phone.ok(["exclude", "remove", marker])
            let news = try #require(
                (try PhoneScratch.json(try phone.ok(["status", phone.root, "--json"]))["apps"] as? [[String: Any]])?
                    .first)
            #expect(news["markerPresent"] as? Bool == true)
            #expect(news["markerExcluded"] as? Bool == false)
            try FileManager.default.removeItem(atPath: marker)
            let gone = try #require(
                (try PhoneScratch.json(try phone.ok(["status", phone.root, "--json"]))["apps"] as? [[String: Any]])?
                    .first)
            #expect(gone["markerPresent"] as? Bool == false)
        }
    }

    @Test func notADeviceOrAMalformedIdentity() throws {
        try PhoneScratch.with { phone in
            try phone.fails(["status", phone.dir], mentioning: ["\(phone.dir) is not a device root"])
            try phone.fails(
                ["status", "\(phone.dir)/absent"], mentioning: ["\(phone.dir)/absent: no such file or directory"])
            let identity = "\(phone.root)/DeviceLocal/identity.plist"
            try Data().write(to: URL(fileURLWithPath: identity))
            try phone.fails(
                ["status", phone.root], mentioning: [identity, "malformed property list (the file is empty)"])
        }
    }
}
